/**
 * The snapshots as products read them (the kit's BazaarMarket) over the store. A complete snapshot
 * never changes, so the listings of the few most recently read ones are kept in memory.
 */
import type { BazaarMarket, BazaarSnapshot } from '../products/kit/bazaar-market.ts';
import type { BazaarSnapshotStore } from '../store/bazaar-snapshots.ts';
import type { Listing } from './listing.ts';

const CACHED_SNAPSHOTS = 8;

export function storeMarket(store: BazaarSnapshotStore): BazaarMarket {
  const cache = new Map<number, Promise<Listing[]>>();
  return {
    snapshots: async (limit) =>
      (await store.snapshots(limit)).map(
        (s): BazaarSnapshot => ({ id: s.id, day: s.day, completedAt: (s.completedAt ?? s.startedAt).toISOString(), sources: s.sources, listings: s.listings, malformed: s.malformed, duplicates: s.duplicates }),
      ),
    listings: (snapshotId) => {
      let listings = cache.get(snapshotId);
      if (listings) {
        cache.delete(snapshotId);
      } else {
        listings = store.listings(snapshotId);
        listings.catch(() => cache.delete(snapshotId));
      }
      cache.set(snapshotId, listings);
      while (cache.size > CACHED_SNAPSHOTS) cache.delete(cache.keys().next().value!);
      return listings;
    },
    history: (key) => store.history(key),
  };
}
