import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { pricedForInput } from '../../kit/index.ts';
import { DAY1, DAY2, fixtureMarket, twoDays } from '../fixture.ts';
import { bazaarCategoryHeatFeed, encodeCursor } from './index.ts';

describe('bazaar-category-heat-feed', () => {
  it('first poll: every entry; resume: only what came since; reuse: the same entries again', async () => {
    const ctx = fakeContext({ bazaar: twoDays() });
    const first = await bazaarCategoryHeatFeed.run({ view: 'standard' }, ctx);
    expect(bazaarCategoryHeatFeed.output.parse(first)).toEqual(first);
    expect(first.feed_version).toBe('bazaar-category-heat/v1/2025-05-30');
    expect(first.entries.map((e) => e.snapshot_id)).toEqual([1, 2]);
    expect(first.entries[0]!.categories.every((c) => c.heat === null)).toBe(true);
    expect(first.entries[1]!.categories[0]).toEqual({ category: 'inference', listings: 2, heat: 100 });
    const resumed = await bazaarCategoryHeatFeed.run({ view: 'standard', cursor: first.next_cursor }, ctx);
    expect(resumed).toMatchObject({ since_snapshot: 2, entries: [], next_cursor: first.next_cursor });
    const third = fixtureMarket([{ day: '2025-05-30', items: DAY1 }, { day: '2025-05-31', items: DAY2 }, { day: '2025-06-01', items: DAY2.slice(0, 3) }]);
    const next = await bazaarCategoryHeatFeed.run({ view: 'standard', cursor: first.next_cursor }, fakeContext({ bazaar: third }));
    expect(next.entries.map((e) => e.snapshot_id)).toEqual([3]);
    const reused = await bazaarCategoryHeatFeed.run({ view: 'standard', cursor: first.next_cursor }, fakeContext({ bazaar: third }));
    expect(reused.entries).toEqual(next.entries);
  });

  it('scout_digest adds the digest and the top new listings', async () => {
    const out = await bazaarCategoryHeatFeed.run({ view: 'scout_digest', cursor: encodeCursor({ v: 'bazaar-category-heat/v1/2025-05-30', s: 1, d: '2025-05-30' }) }, fakeContext({ bazaar: twoDays() }));
    expect(bazaarCategoryHeatFeed.output.parse(out)).toEqual(out);
    expect(out.entries[0]!.digest).toBe('2025-05-31: 5 listings; hottest inference (heat 100, 1 new).');
    expect(out.entries[0]!.categories.find((c) => c.category === 'market-data')!.top_new).toEqual([{ key: 'https://prices.invalid/token/price', price_usd: 0.004 }]);
  });

  it('refuses a malformed cursor (400) and one of another feed version (422)', async () => {
    const ctx = fakeContext({ bazaar: twoDays() });
    await expect(bazaarCategoryHeatFeed.run({ view: 'standard', cursor: 'nope' }, ctx)).rejects.toMatchObject({ status: 400, field: 'cursor' });
    await expect(bazaarCategoryHeatFeed.run({ view: 'standard', cursor: encodeCursor({ v: 'bazaar-category-heat/v1/2024-01-01', s: 1, d: '2024-01-01' }) }, ctx)).rejects.toMatchObject({ status: 422, field: 'cursor', code: 'stale_feed_version' });
  });

  it('is priced by its view: scout_digest at 0.005, standard at 0.001079', () => {
    expect(pricedForInput(bazaarCategoryHeatFeed as never, { view: 'scout_digest' })).toMatchObject({ priceTier: 'scout_digest', http: { price: '0.005' }, mcp: { price: '0.005' } });
    expect(pricedForInput(bazaarCategoryHeatFeed as never, { view: 'standard' })).toBe(bazaarCategoryHeatFeed);
  });
});
