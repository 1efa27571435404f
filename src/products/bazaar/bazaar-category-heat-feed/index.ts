/**
 * bazaar-category-heat-feed: a cursor feed of category heat, one entry per complete snapshot. The
 * feed version is `bazaar-category-heat/v1/<date>`, <date> the day of the oldest snapshot kept (the
 * feed's epoch); a cursor carries its version and the last snapshot it has seen, so a poll returns
 * the entries since, and a cursor of another version (another epoch or format) is refused. Two
 * views, priced apart: `standard` and the richer `scout_digest` (the kit's price by input).
 */
import { z } from 'zod';
import { ProductInputError, READ, product, type BazaarSnapshot, type ProductContext } from '../../kit/index.ts';
import { categoryHeat } from '../figures.ts';
import { byKey, compare, latestSnapshots, usd } from '../market.ts';

/** Snapshots a feed looks back over at most (its epoch is the oldest of them). */
const FEED_HISTORY = 3_650;
/** Entries per poll at most; `has_more` says when more wait. */
const MAX_ENTRIES = 30;
export const FEED_PREFIX = 'bazaar-category-heat/v1/';

const Category = z.object({
  category: z.string().describe('Category (one of 9)'),
  listings: z.int().describe('Listings at this snapshot'),
  heat: z.number().nullable().describe('Listing change in percent since the snapshot before (null for the first)'),
  new_listings: z.int().nullable().optional().describe('scout_digest: listings new at this snapshot'),
  removed_listings: z.int().nullable().optional().describe('scout_digest: listings gone at this snapshot'),
  median_price_usd: z.number().nullable().optional().describe('scout_digest: median price, USD'),
  median_price_change_pct: z.number().nullable().optional().describe('scout_digest: median price change, percent'),
  top_new: z.array(z.object({ key: z.string().describe('Listing key'), price_usd: z.number().nullable().describe('Price, USD') })).optional().describe('scout_digest: up to 3 new listings, cheapest first'),
});

export const FeedOutput = z.object({
  feed_version: z.string().describe('`bazaar-category-heat/v1/<date>`, <date> the feed\'s epoch (its oldest snapshot)'),
  view: z.enum(['standard', 'scout_digest']).describe('The view returned'),
  since_snapshot: z.int().nullable().describe('The last snapshot the cursor had seen (null: first poll)'),
  entries: z
    .array(z.object({ snapshot_id: z.int().describe('Snapshot id'), day: z.string().describe('Its UTC day'), categories: z.array(Category).describe('The 9 categories, hottest first'), digest: z.string().optional().describe('scout_digest: one sentence on the snapshot') }))
    .describe('Entries since the cursor, oldest first, at most 30'),
  next_cursor: z.string().describe('Cursor to send on the next poll'),
  has_more: z.boolean().describe('More entries wait: poll again with next_cursor'),
});

/** Feed version, and the last snapshot seen: its id, and its day (entries are ordered by day). */
interface Cursor {
  v: string;
  s: number;
  d: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof value.v === 'string' && Number.isSafeInteger(value.s) && value.s! >= 0 && typeof value.d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value.d)) return value as Cursor;
  } catch {
    // answered below
  }
  throw new ProductInputError('not a cursor of this feed (send back next_cursor as returned)', 400, 'cursor', 'invalid_cursor');
}

/** The feed's snapshots oldest first, and its version. */
export async function feedSnapshots(ctx: ProductContext): Promise<{ version: string; snapshots: BazaarSnapshot[] }> {
  const snapshots = (await latestSnapshots(ctx, FEED_HISTORY)).reverse();
  return { version: `${FEED_PREFIX}${snapshots[0]!.day}`, snapshots };
}

export const bazaarCategoryHeatFeed = product({
  id: 'bazaar-category-heat-feed',
  title: 'Bazaar category heat feed',
  description:
    'Polls the category-heat feed (version `bazaar-category-heat/v1/<date>`): returns one entry per daily snapshot since your cursor (the 9 categories with listings and heat) and the next cursor. The `scout_digest` view adds new and removed listings, prices, the top new listings and a digest per entry, and is priced 0.005 USD.',
  price: '0.001079',
  priceByInput: { field: 'view', prices: { scout_digest: '0.005' } },
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    cursor: z.string().max(512).optional().describe('Cursor returned by the previous poll; omit on the first poll'),
    view: z.enum(['standard', 'scout_digest']).default('standard').describe('Feed view; `scout_digest` costs 0.005 USD'),
  }),
  inputExample: { view: 'standard' },
  output: FeedOutput,
  outputExample: {
    feed_version: 'bazaar-category-heat/v1/2025-05-30',
    view: 'standard',
    since_snapshot: 1,
    entries: [{ snapshot_id: 2, day: '2025-05-31', categories: [{ category: 'inference', listings: 2, heat: 100 }] }],
    next_cursor: encodeCursor({ v: 'bazaar-category-heat/v1/2025-05-30', s: 2, d: '2025-05-31' }),
    has_more: false,
  },
  run: async (input, ctx) => {
    const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const { version, snapshots } = await feedSnapshots(ctx);
    if (cursor && cursor.v !== version) {
      throw new ProductInputError(`the cursor is of feed version ${cursor.v}, the feed is now ${version}: start again without a cursor`, 422, 'cursor', 'stale_feed_version');
    }
    const since = cursor?.s ?? null;
    const pending = snapshots.filter((s) => cursor === undefined || s.day > cursor.d);
    const batch = pending.slice(0, MAX_ENTRIES);
    const entries = [];
    for (const snapshot of batch) {
      const position = snapshots.indexOf(snapshot);
      const previous = position > 0 ? snapshots[position - 1]! : undefined;
      const [now, before] = await Promise.all([ctx.bazaar!.listings(snapshot.id), previous ? ctx.bazaar!.listings(previous.id) : Promise.resolve(null)]);
      const heat = categoryHeat(before, now);
      if (input.view === 'standard') {
        entries.push({ snapshot_id: snapshot.id, day: snapshot.day, categories: heat.map((c) => ({ category: c.category, listings: c.listings, heat: c.heat })) });
        continue;
      }
      const known = before ? byKey(before) : new Map();
      const categories = heat.map((c) => ({
        category: c.category,
        listings: c.listings,
        heat: c.heat,
        new_listings: c.new_listings,
        removed_listings: c.removed_listings,
        median_price_usd: c.median_price_usd,
        median_price_change_pct: c.median_price_change_pct,
        top_new: now
          .filter((l) => l.category === c.category && !known.has(l.key))
          .sort((a, b) => (a.priceUsd ?? Infinity) - (b.priceUsd ?? Infinity) || compare(a.key, b.key))
          .slice(0, 3)
          .map((l) => ({ key: l.key, price_usd: usd(l.priceUsd) })),
      }));
      const hottest = heat[0]!;
      const digest = previous
        ? `${snapshot.day}: ${now.length} listings; hottest ${hottest.category} (heat ${hottest.heat}, ${hottest.new_listings ?? 0} new).`
        : `${snapshot.day}: first snapshot of the feed, ${now.length} listings.`;
      entries.push({ snapshot_id: snapshot.id, day: snapshot.day, categories, digest });
    }
    const last = batch.at(-1);
    const next = last ? { v: version, s: last.id, d: last.day } : cursor ? { ...cursor, v: version } : { v: version, s: 0, d: '0000-00-00' };
    return { feed_version: version, view: input.view, since_snapshot: since, entries, next_cursor: encodeCursor(next), has_more: pending.length > batch.length };
  },
});
