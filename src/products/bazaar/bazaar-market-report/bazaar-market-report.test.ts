import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { bazaarMarketReport } from './index.ts';

describe('bazaar-market-report', () => {
  it('puts every figure together, with commentary from them and the snapshot ids', async () => {
    const out = await bazaarMarketReport.run({}, fakeContext({ bazaar: twoDays() }));
    expect(bazaarMarketReport.output.parse(out)).toEqual(out);
    expect(out.snapshot_ids).toEqual([2, 1]);
    expect(out.delta).toEqual({ added: 2, removed: 1, repriced: 1, schema_changed: 0 });
    // Listings per seller on day 2: A 2, C 2, B 1 of 5 → shares 40, 40, 20 → HHI 1600 + 1600 + 400.
    expect(out.concentration).toEqual({ top10_share_pct: 100, hhi: 3600 });
    expect(out.category_heat).toHaveLength(9);
    expect(out.commentary[0]).toBe('5 listings from 3 sellers across 1 network; median price 0.03 USD.');
    expect(out.commentary).toContain('Since 2025-05-30: 2 added, 1 removed, 1 repriced, 0 with changed schemas.');
  });

  it('one category', async () => {
    const out = await bazaarMarketReport.run({ category: 'inference' }, fakeContext({ bazaar: twoDays() }));
    expect(out.totals.listings).toBe(2);
    expect(out.category_heat).toHaveLength(1);
  });
});
