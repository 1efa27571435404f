/**
 * Takes one Bazaar snapshot: every configured discovery list, page by page (`limit`/`offset`, as the
 * x402 bazaar spec's `GET /discovery/resources`), normalized, deduplicated, and written as one
 * complete snapshot of the UTC day. Every list is hostile input: pages are fetched through the safe
 * fetcher (public addresses only, each page bounded in bytes and time), the run is bounded in pages,
 * listings and total time, a malformed item is counted and skipped, and a page that is not a
 * discovery list (or a source that fails, or a bound that is hit) fails the run: nothing partial is
 * ever published as complete, and the previous complete snapshot stays the latest.
 */
import type { BazaarSnapshotStore, SnapshotStats } from '../store/bazaar-snapshots.ts';
import { normalizeItem, type Listing } from './listing.ts';

/** One discovery list: its name (the URL, or `self`) and a way to read one page of it. */
export interface DiscoverySource {
  name: string;
  page(limit: number, offset: number, signal: AbortSignal): Promise<unknown>;
}

export interface SnapshotLimits {
  /** Items asked per page (`limit`). */
  pageSize: number;
  /** Pages per run, over all sources. */
  maxPages: number;
  /** Listings per snapshot after deduplication. */
  maxListings: number;
  /** Time limit of the whole run. */
  timeoutMs: number;
}

export interface SnapshotProgress {
  source: string;
  pages: number;
  items: number;
  /** Items the current source says it holds (`pagination.total`), when it says so. */
  total: number | null;
  malformed: number;
  duplicates: number;
}

export type SnapshotOutcome =
  | { kind: 'complete'; snapshotId: number; day: string; listings: number; stats: SnapshotStats }
  | { kind: 'failed'; snapshotId: number; day: string; detail: string; stats: SnapshotStats };

/** A run stopped because a list broke a bound or was not a discovery list. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

export async function takeSnapshot(options: {
  store: BazaarSnapshotStore;
  sources: readonly DiscoverySource[];
  limits: SnapshotLimits;
  now: Date;
  onProgress?: (progress: SnapshotProgress) => void;
  /** Stops the run between pages (the service is shutting down). */
  signal?: AbortSignal;
}): Promise<SnapshotOutcome> {
  const { store, sources, limits } = options;
  const day = options.now.toISOString().slice(0, 10);
  const id = await store.begin(day, sources.map((s) => s.name));
  const stats: SnapshotStats = { malformed: 0, duplicates: 0, pages: 0 };
  const byKey = new Map<string, Listing>();
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    for (const source of sources) {
      let offset = 0;
      let items = 0;
      for (;;) {
        if (stats.pages >= limits.maxPages) throw new SnapshotError(`more than ${limits.maxPages} pages (BAZAAR_MAX_PAGES)`);
        if (options.signal?.aborted) throw new SnapshotError('stopped: the service is shutting down');
        if (signal.aborted) throw new SnapshotError(`not done within ${limits.timeoutMs} ms (BAZAAR_SNAPSHOT_TIMEOUT_MS)`);
        const page = readPage(await source.page(limits.pageSize, offset, signal), source.name);
        stats.pages++;
        for (const item of page.items) {
          const normalized = normalizeItem(item, source.name);
          if ('malformed' in normalized) {
            stats.malformed++;
            continue;
          }
          const listing = normalized.listing;
          const known = byKey.get(listing.key);
          if (known) {
            stats.duplicates++;
            if ((listing.lastUpdated ?? '') <= (known.lastUpdated ?? '')) continue;
          }
          byKey.set(listing.key, listing);
          if (byKey.size > limits.maxListings) throw new SnapshotError(`more than ${limits.maxListings} listings (BAZAAR_MAX_LISTINGS)`);
        }
        items += page.items.length;
        offset += page.items.length;
        options.onProgress?.({ source: source.name, pages: stats.pages, items, total: page.total, malformed: stats.malformed, duplicates: stats.duplicates });
        const done = page.items.length === 0 || page.items.length < Math.min(limits.pageSize, page.limit ?? limits.pageSize) || (page.total !== null && offset >= page.total);
        if (done) break;
      }
    }
    const listings = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    await store.complete(id, listings, stats);
    return { kind: 'complete', snapshotId: id, day, listings: listings.length, stats };
  } catch (error) {
    const detail = error instanceof SnapshotError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    await store.fail(id, detail, stats).catch(() => undefined);
    return { kind: 'failed', snapshotId: id, day, detail, stats };
  }
}

/** A page's items and pagination, or why it is not a discovery list page. */
function readPage(body: unknown, source: string): { items: unknown[]; total: number | null; limit: number | null } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new SnapshotError(`${source}: the answer is not a discovery list (not a JSON object)`);
  const { items, pagination } = body as { items?: unknown; pagination?: unknown };
  if (!Array.isArray(items)) throw new SnapshotError(`${source}: the answer is not a discovery list (no items array)`);
  const p = pagination !== null && typeof pagination === 'object' ? (pagination as Record<string, unknown>) : {};
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
  return { items, total: int(p.total), limit: int(p.limit) };
}
