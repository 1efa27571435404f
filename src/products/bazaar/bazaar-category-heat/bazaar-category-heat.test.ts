import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { bazaarCategoryHeat } from './index.ts';

describe('bazaar-category-heat', () => {
  it('gives exactly 9 categories, hottest first', async () => {
    const out = await bazaarCategoryHeat.run({}, fakeContext({ bazaar: twoDays() }));
    expect(bazaarCategoryHeat.output.parse(out)).toEqual(out);
    expect(out.categories).toHaveLength(9);
    const heat = Object.fromEntries(out.categories.map((c) => [c.category, [c.listings_before, c.listings, c.heat]]));
    // inference 1 → 2 (+100 %), market-data 0 → 1 (100), onchain-data 1 → 0 (−100 %), web-data and other unchanged.
    expect(heat).toMatchObject({ inference: [1, 2, 100], 'market-data': [0, 1, 100], 'onchain-data': [1, 0, -100], 'web-data': [1, 1, 0], other: [1, 1, 0], payments: [0, 0, 0] });
    expect(out.categories.slice(0, 2).map((c) => c.category)).toEqual(['inference', 'market-data']);
    expect(out.categories.at(-1)!.category).toBe('onchain-data');
  });

  it('one category; an unknown one is 422 naming the field', async () => {
    const out = await bazaarCategoryHeat.run({ category: 'inference' }, fakeContext({ bazaar: twoDays() }));
    expect(out.categories.map((c) => [c.category, c.median_price_usd, c.median_price_change_pct])).toEqual([['inference', 0.05, 0]]);
    await expect(bazaarCategoryHeat.run({ category: 'weather' }, fakeContext({ bazaar: twoDays() }))).rejects.toMatchObject({ status: 422, field: 'category' });
  });
});
