import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { fixtureMarket, twoDays, DAY1 } from '../fixture.ts';
import { bazaarDelta } from './index.ts';

describe('bazaar-delta', () => {
  it('diffs the two latest snapshots', async () => {
    const out = await bazaarDelta.run({}, fakeContext({ bazaar: twoDays() }));
    expect(bazaarDelta.output.parse(out)).toEqual(out);
    expect(out.from).toEqual({ id: 1, day: '2025-05-30' });
    expect(out.counts).toEqual({ added: 2, removed: 1, repriced: 1, schema_changed: 0 });
    expect(out.added.map((l) => l.key)).toEqual(['https://ai.invalid/v1/embeddings', 'https://prices.invalid/token/price']);
    expect(out.removed.map((l) => [l.key, l.category])).toEqual([['https://chain.invalid/wallet/balance', 'onchain-data']]);
    expect(out.repriced).toEqual([{ key: 'https://weather.invalid/api/forecast', resource: 'https://weather.invalid/api/forecast', pay_to: '0x1111111111111111111111111111111111111111', from_price_usd: 0.01, to_price_usd: 0.02, change_pct: 100 }]);
  });

  it('needs two snapshots: 503 before', async () => {
    await expect(bazaarDelta.run({}, fakeContext({ bazaar: fixtureMarket([{ day: '2025-05-30', items: DAY1 }]) }))).rejects.toMatchObject({ status: 503 });
  });
});
