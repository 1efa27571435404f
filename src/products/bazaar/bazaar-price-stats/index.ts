/** bazaar-price-stats: price quantiles per payment scheme over the latest snapshot. */
import { z } from 'zod';
import { ProductInputError, READ, product } from '../../kit/index.ts';
import { priceStats } from '../figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef } from '../market.ts';

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const price = (what: string) => z.number().describe(`${what}, USD`);

export const PriceStatsEntry = z.object({
  scheme: z.string().describe('x402 scheme (exact, upto, …)'),
  count: z.int().describe('Accepts priced in a USD stablecoin with this scheme'),
  min: price('Lowest price'),
  p10: price('10th percentile (nearest rank)'),
  p25: price('25th percentile (nearest rank)'),
  median: price('Median (nearest rank)'),
  p75: price('75th percentile (nearest rank)'),
  p90: price('90th percentile (nearest rank)'),
  max: price('Highest price'),
  mean: price('Mean'),
});

export const bazaarPriceStats = product({
  id: 'bazaar-price-stats',
  title: 'Bazaar price statistics',
  description:
    'Returns price statistics of bazaar listings from the latest snapshot, per payment scheme (count, min, percentiles by nearest rank, median, mean, max in USD), optionally for one network. Accepts in assets other than a known USD stablecoin are left out.',
  method: 'GET',
  price: '0.002',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    network: z.string().optional().describe('CAIP-2 network filter, e.g. "eip155:8453" (default: all networks)'),
  }),
  inputExample: { network: 'eip155:8453' },
  output: z.object({
    snapshot: SnapshotRef.describe('The snapshot the statistics rest on'),
    network: z.string().nullable().describe('The network filter (null: all networks)'),
    schemes: z.array(PriceStatsEntry).describe('Per scheme, most accepts first'),
  }),
  outputExample: {
    snapshot: { id: 2, day: '2025-05-31' },
    network: 'eip155:8453',
    schemes: [{ scheme: 'exact', count: 5, min: 0.004, p10: 0.004, p25: 0.02, median: 0.03, p75: 0.05, p90: 0.1, max: 0.1, mean: 0.0408 }],
  },
  run: async (input, ctx) => {
    if (input.network !== undefined && !CAIP2.test(input.network)) throw new ProductInputError('expected a CAIP-2 network id, e.g. eip155:8453', 400, 'network');
    const [latest] = await latestSnapshots(ctx, 1);
    return { snapshot: snapshotRef(latest!), network: input.network ?? null, schemes: priceStats(await ctx.bazaar!.listings(latest!.id), input.network) };
  },
});
