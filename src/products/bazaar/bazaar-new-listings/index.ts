/** bazaar-new-listings: listings of the latest snapshot that the previous one did not have. */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { SnapshotRef, byKey, compare, latestSnapshots, snapshotRef, usd, usdField } from '../market.ts';

export const bazaarNewListings = product({
  id: 'bazaar-new-listings',
  title: 'Bazaar new listings',
  description:
    'Returns the listings that first appeared in the latest daily bazaar snapshot (absent from the previous one), newest `lastUpdated` first. On the very first snapshot every listing is new (`baseline` null).',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    limit: z.coerce.number().int().min(1).max(100).default(25).describe('Most listings to return'),
  }),
  inputExample: { limit: 25 },
  output: z.object({
    snapshot: SnapshotRef.describe('The latest snapshot'),
    baseline: SnapshotRef.nullable().describe('The previous snapshot compared against (null: this is the first snapshot)'),
    total: z.int().describe('New listings in all (before the limit)'),
    listings: z
      .array(
        z.object({
          key: z.string().describe('Listing key'),
          resource: z.string().describe('Resource URL'),
          type: z.string().describe('`http` or `mcp`'),
          description: z.string().describe('Its description'),
          pay_to: z.string().describe('Pay-to address'),
          network: z.string().describe('Network of its first accept'),
          price_usd: usdField('Price'),
          category: z.string().describe('Derived category'),
          last_updated: z.string().nullable().describe('`lastUpdated` as the list reports it'),
        }),
      )
      .describe('New listings, newest lastUpdated first, then by key'),
  }),
  outputExample: {
    snapshot: { id: 2, day: '2025-05-31' },
    baseline: { id: 1, day: '2025-05-30' },
    total: 1,
    listings: [{ key: 'https://prices.invalid/token/price', resource: 'https://prices.invalid/token/price', type: 'http', description: 'Token price quote', pay_to: '0x2222222222222222222222222222222222222222', network: 'eip155:8453', price_usd: 0.004, category: 'market-data', last_updated: '2025-05-31T10:00:00.000Z' }],
  },
  run: async (input, ctx) => {
    const [latest, previous] = await latestSnapshots(ctx, 2);
    const now = await ctx.bazaar!.listings(latest!.id);
    const known = previous ? byKey(await ctx.bazaar!.listings(previous.id)) : new Map();
    const fresh = now.filter((l) => !known.has(l.key)).sort((a, b) => compare(b.lastUpdated ?? '', a.lastUpdated ?? '') || compare(a.key, b.key));
    return {
      snapshot: snapshotRef(latest!),
      baseline: previous ? snapshotRef(previous) : null,
      total: fresh.length,
      listings: fresh.slice(0, input.limit).map((l) => ({
        key: l.key,
        resource: l.resource,
        type: l.type,
        description: l.description,
        pay_to: l.payTo,
        network: l.network,
        price_usd: usd(l.priceUsd),
        category: l.category,
        last_updated: l.lastUpdated,
      })),
    };
  },
});
