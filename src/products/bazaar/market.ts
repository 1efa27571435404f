/**
 * What the bazaar products share: the snapshots they rest on (503 with Retry-After until there are
 * enough), listing lookups, and the figures they compute from listings. Figures:
 *
 * - prices are the USD price of a listing's cheapest accept in a known USD stablecoin (USDC);
 *   listings priced in anything else count as listings but not in price figures;
 * - quantiles (median included) use the nearest-rank method: the value at rank ceil(q·n) of the
 *   sorted prices; no price, null;
 * - a seller is a pay-to address; a service is a resource's origin (scheme, host and port).
 */
import { z } from 'zod';
import { ProductInputError, UpstreamError, type BazaarMarket, type BazaarSnapshot, type Listing, type ProductContext } from '../kit/index.ts';

/** Seconds a caller should wait when there is no snapshot yet: a snapshot run takes minutes. */
const RETRY_NO_SNAPSHOT_S = 300;

/** What the snapshots are read from: a paid call's context, or a precheck's before payment. */
type MarketContext = Pick<ProductContext, 'bazaar'>;

export function marketOf(ctx: MarketContext): BazaarMarket {
  if (!ctx.bazaar) throw new UpstreamError('this instance takes no Bazaar snapshots', 503, undefined, RETRY_NO_SNAPSHOT_S);
  return ctx.bazaar;
}

/** The `count` latest complete snapshots, newest first; 503 with Retry-After while there are fewer than `needed`. */
export async function latestSnapshots(ctx: MarketContext, count: number, needed = 1): Promise<BazaarSnapshot[]> {
  const snapshots = await marketOf(ctx).snapshots(count);
  if (snapshots.length < needed) {
    const what = needed === 1 ? 'no complete Bazaar snapshot yet' : `fewer than ${needed} complete Bazaar snapshots yet (${snapshots.length})`;
    throw new UpstreamError(`${what}; snapshots are taken daily (BAZAAR_SNAPSHOT_INTERVAL_MS)`, 503, undefined, RETRY_NO_SNAPSHOT_S);
  }
  return snapshots;
}

/** A snapshot as answers cite it. */
export const SnapshotRef = z.object({
  id: z.int().describe('Snapshot id'),
  day: z.string().describe('UTC day the snapshot stands for, YYYY-MM-DD'),
});
export const snapshotRef = (s: BazaarSnapshot) => ({ id: s.id, day: s.day });

/** The listing a caller named: its key (`resource`, or `resource#toolName` for an MCP tool) or its resource URL. */
export function findListing(listings: readonly Listing[], named: string, field = 'resource_url'): Listing {
  const exact = listings.find((l) => l.key === named);
  if (exact) return exact;
  const same = listings.filter((l) => l.resource === named);
  if (same.length === 1) return same[0]!;
  if (same.length > 1) throw new ProductInputError(`${named} names ${same.length} MCP tools; add #toolName (one of ${same.map((l) => l.toolName).join(', ')})`, 422, field, 'ambiguous_listing');
  throw new ProductInputError(`no listing ${named} in the latest Bazaar snapshot`, 422, field, 'unknown_listing');
}

/** The latest complete snapshot and its listings. */
export async function latestListings(ctx: MarketContext): Promise<{ snapshot: BazaarSnapshot; listings: Listing[] }> {
  const [snapshot] = await latestSnapshots(ctx, 1);
  return { snapshot: snapshot!, listings: await marketOf(ctx).listings(snapshot!.id) };
}

/**
 * Before payment: a listing named by `resource_url` must be in the latest snapshot, so the 402
 * already refuses an unknown one and nobody pays for it. With no snapshot yet it cannot tell (the
 * paid call answers 503, never charged).
 */
export async function precheckListing(resourceUrl: string, ctx: MarketContext): Promise<void> {
  findListing((await latestListings(ctx)).listings, resourceUrl);
}

/** Nearest-rank quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export function median(values: readonly number[]): number | null {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/** USD rounded to 6 decimals (atomic USDC), as every answer gives prices. */
export function usd(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1e6) / 1e6;
}

/** A percentage with one decimal; null when the base is zero or unknown. */
export function pct(now: number | null, before: number | null): number | null {
  if (now === null || before === null || before === 0) return null;
  return Math.round(((now - before) / before) * 1000) / 10;
}

export function prices(listings: readonly Listing[]): number[] {
  return listings.map((l) => l.priceUsd).filter((p): p is number => p !== null);
}

/** The service a listing belongs to: its resource's origin. */
export function serviceOf(listing: Listing): string {
  try {
    return new URL(listing.resource).origin;
  } catch {
    return listing.resource;
  }
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Sum of the reported 30-day calls, null when no listing reports any. */
export function reportedCalls(listings: readonly Listing[]): number | null {
  const reported = listings.map((l) => l.calls30d).filter((c): c is number => c !== null);
  return reported.length === 0 ? null : reported.reduce((a, b) => a + b, 0);
}

export const byKey = (listings: readonly Listing[]) => new Map(listings.map((l) => [l.key, l] as const));

/** Compares strings for sorting, stable across runtimes. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const usdField = (what: string) => z.number().nullable().describe(`${what}, USD (null when no listing is priced in a USD stablecoin)`);
