import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { bazaarPriceStats } from './index.ts';

describe('bazaar-price-stats', () => {
  it('gives nearest-rank quantiles per scheme', async () => {
    const out = await bazaarPriceStats.run({ network: 'eip155:8453' }, fakeContext({ bazaar: twoDays() }));
    expect(bazaarPriceStats.output.parse(out)).toEqual(out);
    // 0.004 0.02 0.03 0.05 0.10: p10 rank 1, p25 rank 2, median rank 3, p75 rank 4, p90 rank 5; mean 0.204 / 5.
    expect(out.schemes).toEqual([{ scheme: 'exact', count: 5, min: 0.004, p10: 0.004, p25: 0.02, median: 0.03, p75: 0.05, p90: 0.1, max: 0.1, mean: 0.0408 }]);
  });

  it('filters by network; a malformed network is the caller\'s 400', async () => {
    expect((await bazaarPriceStats.run({ network: 'eip155:1' }, fakeContext({ bazaar: twoDays() }))).schemes).toEqual([]);
    await expect(bazaarPriceStats.run({ network: '!!!' }, fakeContext({ bazaar: twoDays() }))).rejects.toMatchObject({ status: 400, field: 'network' });
  });
});
