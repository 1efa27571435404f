/** bazaar-trending: services trending across the last week of daily snapshots. */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { TRENDING_RULE, trending } from '../figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef } from '../market.ts';

/** Snapshots a trend is measured over (a week of daily snapshots). */
export const TRENDING_WINDOW = 7;

export const TrendingEntry = z.object({
  service: z.string().describe('Resource origin'),
  signal: z.enum(['calls', 'listings', 'new']).describe('What makes it trend: reported calls grew, listings grew, or it is new in the window'),
  listings: z.int().describe('Its listings in the latest snapshot'),
  listings_before: z.int().describe('Its listings in the oldest snapshot of the window'),
  listing_growth: z.int().describe('listings − listings_before'),
  reported_calls_30d: z.int().nullable().describe('30-day calls the lists report now'),
  reported_calls_30d_before: z.int().nullable().describe('30-day calls the lists reported at the window start'),
  calls_growth: z.int().nullable().describe('Growth of the reported 30-day calls'),
  calls_growth_pct: z.number().nullable().describe('Growth of the reported 30-day calls in percent'),
});

export const bazaarTrending = product({
  id: 'bazaar-trending',
  title: 'Bazaar trending',
  description: 'Returns the bazaar services trending across the daily snapshots of the last week, with the signal that makes each one trend (reported calls, listings, or new) and the rule.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({}),
  inputExample: {},
  output: z.object({
    window: z.object({ from: SnapshotRef.describe('Oldest snapshot of the window'), to: SnapshotRef.describe('Latest snapshot'), snapshots: z.int().describe('Snapshots in the window') }).describe('The snapshots compared'),
    trending: z.array(TrendingEntry).describe('Trending services, top 25'),
    rule: z.string().describe('The ranking rule'),
  }),
  outputExample: {
    window: { from: { id: 1, day: '2025-05-30' }, to: { id: 2, day: '2025-05-31' }, snapshots: 2 },
    trending: [{ service: 'https://ai.invalid', signal: 'calls', listings: 2, listings_before: 1, listing_growth: 1, reported_calls_30d: 70, reported_calls_30d_before: 40, calls_growth: 30, calls_growth_pct: 75 }],
    rule: TRENDING_RULE,
  },
  run: async (_input, ctx) => {
    const window = await latestSnapshots(ctx, TRENDING_WINDOW);
    const latest = window[0]!;
    const oldest = window.at(-1)!;
    const [then, now] = await Promise.all([ctx.bazaar!.listings(oldest.id), ctx.bazaar!.listings(latest.id)]);
    return { window: { from: snapshotRef(oldest), to: snapshotRef(latest), snapshots: window.length }, trending: trending(then, now), rule: TRENDING_RULE };
  },
});
