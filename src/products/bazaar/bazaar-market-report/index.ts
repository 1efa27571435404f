/** bazaar-market-report: every bazaar figure in one report, with commentary built from them. */
import { z } from 'zod';
import { CATEGORIES } from '../../../bazaar/classify.ts';
import { ProductInputError, READ, product, type Listing } from '../../kit/index.ts';
import { HEAT_RULE, SELLER_RANK_RULE, TOP_SERVICES_RULE, TRENDING_RULE, categoryHeat, deltaFigures, priceStats, pulseFigures, sellerRank, trending } from '../figures.ts';
import { SnapshotRef, groupBy, latestSnapshots, snapshotRef } from '../market.ts';
import { sellerSettlements, settlementEvidence } from '../settlements.ts';
import { TRENDING_WINDOW } from '../bazaar-trending/index.ts';

const DAY_MS = 86_400_000;

/** Seller concentration by listings: the top 10 sellers' share and the Herfindahl–Hirschman index (0–10,000). */
function concentration(listings: readonly Listing[]) {
  const shares = [...groupBy(listings, (l) => l.payTo).values()].map((g) => g.length / Math.max(1, listings.length)).sort((a, b) => b - a);
  return {
    top10_share_pct: Math.round(shares.slice(0, 10).reduce((a, b) => a + b, 0) * 1000) / 10,
    hhi: Math.round(shares.reduce((a, s) => a + (s * 100) ** 2, 0)),
  };
}

export const bazaarMarketReport = product({
  id: 'bazaar-market-report',
  title: 'Bazaar market report',
  description:
    'Returns a market report on the x402 bazaar: totals, networks, price distribution per scheme, seller concentration and the top sellers (with settlement evidence), category heat, the latest delta, trending services, and commentary built only from those figures, with the snapshot ids it rests on.',
  method: 'GET',
  price: '0.50',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    category: z.string().optional().describe(`Only this service category (default: the whole bazaar): ${CATEGORIES.join(', ')}`),
  }),
  inputExample: {},
  output: z.object({
    as_of: z.string().describe('Completion time of the latest snapshot'),
    category: z.string().nullable().describe('The category reported on (null: the whole bazaar)'),
    snapshot_ids: z.array(z.int()).describe('Every snapshot the report rests on, newest first'),
    snapshot: SnapshotRef.describe('The latest snapshot'),
    totals: z.record(z.string(), z.number().nullable()).describe('As bazaar-pulse: listings, sellers, services, networks, median_price_usd, priced_listings, reported_calls_30d'),
    networks: z.array(z.record(z.string(), z.unknown())).describe('As bazaar-pulse: per network listings, sellers, median price'),
    top_services: z.array(z.record(z.string(), z.unknown())).describe('As bazaar-pulse (rule in rules.top_services)'),
    price_stats: z.array(z.record(z.string(), z.unknown())).describe('As bazaar-price-stats, all networks'),
    concentration: z.object({ top10_share_pct: z.number().describe("Top 10 sellers' share of listings, percent"), hhi: z.int().describe('Herfindahl–Hirschman index of listings by seller, 0–10,000') }).describe('Seller concentration'),
    top_sellers: z.array(z.record(z.string(), z.unknown())).describe('As bazaar-seller-rank, top 10'),
    category_heat: z.array(z.record(z.string(), z.unknown())).describe('As bazaar-category-heat'),
    delta: z.record(z.string(), z.unknown()).nullable().describe('Counts of bazaar-delta between the two latest snapshots (null: one snapshot only)'),
    trending: z.array(z.record(z.string(), z.unknown())).describe('As bazaar-trending, top 5'),
    commentary: z.array(z.string()).describe('Sentences built from the figures above, nothing else'),
    rules: z.record(z.string(), z.string()).describe('The rules behind each ranking'),
    evidence: z.object({ listings: z.string().describe('What listing figures rest on'), settlements: z.string().describe('What settlement figures rest on') }).describe('Evidence of each figure'),
  }),
  outputExample: {
    as_of: '2025-05-31T00:05:00.000Z',
    category: null,
    snapshot_ids: [2, 1],
    snapshot: { id: 2, day: '2025-05-31' },
    totals: { listings: 5, sellers: 3, services: 4, networks: 1, median_price_usd: 0.03, priced_listings: 5, reported_calls_30d: 175 },
    networks: [{ network: 'eip155:8453', listings: 5, sellers: 3, median_price_usd: 0.03 }],
    top_services: [{ rank: 1, service: 'https://weather.invalid', listings: 1, sellers: 1, median_price_usd: 0.02, reported_calls_30d: 90 }],
    price_stats: [{ scheme: 'exact', count: 5, min: 0.004, p10: 0.004, p25: 0.02, median: 0.03, p75: 0.05, p90: 0.1, max: 0.1, mean: 0.0408 }],
    concentration: { top10_share_pct: 100, hhi: 3600 },
    top_sellers: [{ rank: 1, pay_to: '0x1111111111111111111111111111111111111111', listings: 2, reported_calls_30d: 160, settled_calls_30d: null }],
    category_heat: [{ category: 'inference', listings: 2, heat: 100 }],
    delta: { added: 2, removed: 1, repriced: 1, schema_changed: 0 },
    trending: [{ service: 'https://ai.invalid', signal: 'calls', calls_growth: 30 }],
    commentary: ['5 listings from 3 sellers across 1 network; median price 0.03 USD.'],
    rules: { top_services: TOP_SERVICES_RULE, sellers: SELLER_RANK_RULE, heat: HEAT_RULE, trending: TRENDING_RULE },
    evidence: { listings: 'snapshots 2 (2025-05-31), 1 (2025-05-30)', settlements: 'none: this instance indexes no Base chain (INDEX_CHAINS), so no settlement figure is given' },
  },
  run: async (input, ctx) => {
    if (input.category !== undefined && !(CATEGORIES as readonly string[]).includes(input.category)) {
      throw new ProductInputError(`unknown category ${input.category}: one of ${CATEGORIES.join(', ')}`, 422, 'category', 'unknown_category');
    }
    const window = await latestSnapshots(ctx, TRENDING_WINDOW);
    const [latest, previous] = window;
    const oldest = window.at(-1)!;
    const only = (list: Listing[]) => (input.category === undefined ? list : list.filter((l) => l.category === input.category));
    const now = only(await ctx.bazaar!.listings(latest!.id));
    const before = previous ? only(await ctx.bazaar!.listings(previous.id)) : null;
    const first = only(await ctx.bazaar!.listings(oldest.id));
    const pulse = pulseFigures(now);
    const settled = await sellerSettlements(ctx, now, new Date(ctx.now.getTime() - 30 * DAY_MS), ctx.now);
    const sellers = sellerRank(now, settled).slice(0, 10);
    const heat = categoryHeat(before, now).filter((c) => input.category === undefined || c.category === input.category);
    const delta = before ? deltaFigures(before, now).counts : null;
    const trend = trending(first, now).slice(0, 5);
    const conc = concentration(now);
    const t = pulse.totals;
    const commentary = [
      `${t.listings} listings from ${t.sellers} sellers across ${t.networks} network${t.networks === 1 ? '' : 's'}; median price ${t.median_price_usd ?? 'n/a'} USD.`,
      `The top 10 sellers hold ${conc.top10_share_pct}% of listings (HHI ${conc.hhi}).`,
      ...(delta ? [`Since ${previous!.day}: ${delta.added} added, ${delta.removed} removed, ${delta.repriced} repriced, ${delta.schema_changed} with changed schemas.`] : [`Only one snapshot so far (${latest!.day}): no change to report yet.`]),
      ...(heat[0] && heat[0].heat !== null ? [`Hottest category: ${heat[0].category} (heat ${heat[0].heat}, ${heat[0].listings} listings).`] : []),
      ...(trend[0] ? [`Trending: ${trend[0].service} (${trend[0].signal}).`] : []),
      ...(settled ? [`Settled on ${settled.network} over 30 days for the top seller: ${sellers[0]?.settled_calls_30d ?? 0} calls.`] : []),
    ];
    return {
      as_of: latest!.completedAt,
      category: input.category ?? null,
      snapshot_ids: window.map((s) => s.id),
      snapshot: snapshotRef(latest!),
      totals: pulse.totals,
      networks: pulse.networks,
      top_services: pulse.top_services,
      price_stats: priceStats(now),
      concentration: conc,
      top_sellers: sellers,
      category_heat: heat,
      delta,
      trending: trend,
      commentary,
      rules: { top_services: TOP_SERVICES_RULE, sellers: SELLER_RANK_RULE, heat: HEAT_RULE, trending: TRENDING_RULE },
      evidence: { listings: `snapshots ${window.map((s) => `${s.id} (${s.day})`).join(', ')}`, settlements: settlementEvidence(settled) },
    };
  },
});
