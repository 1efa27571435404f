/**
 * A short-lived cache of identical provider requests: the same request within `ttlMs` is answered
 * from memory, and identical requests in flight at once share one upstream call. Bounded in entries
 * (the oldest go first). Only successful answers are kept.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { expires: number; value: T }>();
  private readonly inFlight = new Map<string, Promise<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value, or `load()`'s; `hit` says which. `ttlMs` overrides the cache's own for this entry. */
  async get(key: string, load: () => Promise<T>, ttlMs = this.ttlMs): Promise<{ value: T; hit: boolean }> {
    const entry = this.entries.get(key);
    if (entry && entry.expires > this.now()) return { value: entry.value, hit: true };
    if (entry) this.entries.delete(key);
    const pending = this.inFlight.get(key);
    if (pending) return { value: await pending, hit: true };
    const loading = load();
    if (ttlMs <= 0) return { value: await loading, hit: false };
    this.inFlight.set(key, loading);
    try {
      const value = await loading;
      this.entries.set(key, { expires: this.now() + ttlMs, value });
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      return { value, hit: false };
    } finally {
      this.inFlight.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
