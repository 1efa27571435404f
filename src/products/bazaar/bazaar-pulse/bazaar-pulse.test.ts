import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { bazaarPulse } from './index.ts';

describe('bazaar-pulse', () => {
  it('sums the latest snapshot: listings, sellers, services, networks, median price and ranked services', async () => {
    const out = await bazaarPulse.run({}, fakeContext({ bazaar: twoDays() }));
    expect(bazaarPulse.output.parse(out)).toEqual(out);
    expect(out.snapshot).toMatchObject({ id: 2, day: '2025-05-31' });
    // Day 2 prices: 0.02, 0.05, 0.03, 0.004, 0.10 → sorted 0.004 0.02 0.03 0.05 0.10, nearest-rank median 0.03.
    expect(out.totals).toEqual({ listings: 5, sellers: 3, services: 4, networks: 1, median_price_usd: 0.03, priced_listings: 5, reported_calls_30d: 175 });
    expect(out.top_services.map((s) => [s.service, s.reported_calls_30d])).toEqual([
      ['https://weather.invalid', 90],
      ['https://ai.invalid', 70],
      ['https://scrape.invalid', 12],
      ['https://prices.invalid', 3],
    ]);
    expect(out.networks).toEqual([{ network: 'eip155:8453', listings: 5, sellers: 3, median_price_usd: 0.03 }]);
  });

  it('answers 503 with Retry-After while there is no snapshot', async () => {
    await expect(bazaarPulse.run({}, fakeContext({ bazaar: { snapshots: async () => [], listings: async () => [], history: async () => [] } }))).rejects.toMatchObject({ status: 503, retryAfterSeconds: 300 });
  });
});
