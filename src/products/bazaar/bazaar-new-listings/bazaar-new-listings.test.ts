import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { DAY1, fixtureMarket, twoDays } from '../fixture.ts';
import { bazaarNewListings } from './index.ts';

describe('bazaar-new-listings', () => {
  it('lists what the latest snapshot added, newest first', async () => {
    const out = await bazaarNewListings.run({ limit: 25 }, fakeContext({ bazaar: twoDays() }));
    expect(bazaarNewListings.output.parse(out)).toEqual(out);
    expect(out.total).toBe(2);
    expect(out.listings.map((l) => [l.key, l.price_usd, l.category])).toEqual([
      ['https://ai.invalid/v1/embeddings', 0.1, 'inference'],
      ['https://prices.invalid/token/price', 0.004, 'market-data'],
    ]);
    expect((await bazaarNewListings.run({ limit: 1 }, fakeContext({ bazaar: twoDays() }))).listings).toHaveLength(1);
  });

  it('on the first snapshot every listing is new', async () => {
    const out = await bazaarNewListings.run({ limit: 25 }, fakeContext({ bazaar: fixtureMarket([{ day: '2025-05-30', items: DAY1 }]) }));
    expect(out.baseline).toBeNull();
    expect(out.total).toBe(4);
  });
});
