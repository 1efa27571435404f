/**
 * Settled calls of the tools with a block of their own in the observatory report (tables of
 * migration 12): one row per served paid call, written by any instance, aggregated when the report
 * is read. Payers and cursors are kept to count distinct wallets, intervals and reuses; only counts
 * and the listings asked about (public Bazaar listings) are ever published.
 */

/** One served poll of the category-heat feed. */
export interface FeedPoll {
  payer: string;
  selfTest: boolean;
  feedVersion: string;
  /** The snapshot the poll's cursor had seen (null: a first poll, without cursor). */
  sinceSnapshot: number | null;
  /** Digest of the cursor presented (null: none). */
  cursorDigest: string | null;
  at: Date;
}

/** One served reprice_regret call. */
export interface RepriceQuery {
  payer: string;
  selfTest: boolean;
  resourceUrl: string | null;
  sellerPayTo: string | null;
  windowDays: number;
  page: number;
  at: Date;
}

/** The figures of one feed version, as the report shows them. */
export interface FeedUsage {
  feedVersion: string;
  sinceSnapshot: number | null;
  polls: number;
  cursorReuses: number;
  intervalCount: number;
  intervalSecondsTotal: number;
  lastPolledAt: Date;
  settledWallets: number;
  settledCalls: number;
}

export interface RepriceUsage {
  settledCalls: number;
  payers: number;
  /** The most recent queries, newest first. */
  queries: Omit<RepriceQuery, 'payer' | 'selfTest'>[];
}

export interface ToolUsageSnapshot {
  /** Settled polls and paying wallets of every feed version (self-tests excluded). */
  feedTotals: { settledCalls: number; payers: number };
  feeds: FeedUsage[];
  reprice: RepriceUsage;
}

export interface ToolUsageStore {
  recordFeedPoll(poll: FeedPoll): Promise<void>;
  recordRepriceQuery(query: RepriceQuery): Promise<void>;
  /** Feed versions (the `feeds` most recently polled) and the reprice_regret figures with its `queries` latest queries. */
  snapshot(limits: { feeds: number; queries: number }): Promise<ToolUsageSnapshot>;
}

type Query = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

export class SqlToolUsage implements ToolUsageStore {
  constructor(private readonly db: { query: Query }) {}

  async recordFeedPoll(p: FeedPoll): Promise<void> {
    await this.db.query(`INSERT INTO feed_polls (feed_version, payer, self_test, since_snapshot, cursor_digest, polled_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
      p.feedVersion,
      p.payer.toLowerCase(),
      p.selfTest,
      p.sinceSnapshot,
      p.cursorDigest,
      p.at,
    ]);
  }

  async recordRepriceQuery(q: RepriceQuery): Promise<void> {
    await this.db.query(`INSERT INTO reprice_queries (payer, self_test, resource_url, seller_pay_to, window_days, page, queried_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      q.payer.toLowerCase(),
      q.selfTest,
      q.resourceUrl,
      q.sellerPayTo,
      q.windowDays,
      q.page,
      q.at,
    ]);
  }

  async snapshot(limits: { feeds: number; queries: number }): Promise<ToolUsageSnapshot> {
    // Intervals: between one wallet's consecutive polls of a version. A reuse: a poll presenting a
    // cursor some earlier poll of the version already presented (the same entries served again).
    const feeds = await this.db.query<{
      feed_version: string;
      polls: string;
      cursor_reuses: string;
      interval_count: string;
      interval_seconds_total: string | number | null;
      last_polled_at: Date | string;
      settled_wallets: string;
      settled_calls: string;
      since_snapshot: string | number | null;
    }>(
      `WITH p AS (
         SELECT feed_version, payer, self_test, since_snapshot, polled_at,
                extract(epoch FROM polled_at - lag(polled_at) OVER (PARTITION BY feed_version, payer ORDER BY polled_at, id)) AS interval_s,
                cursor_digest IS NOT NULL AND row_number() OVER (PARTITION BY feed_version, cursor_digest ORDER BY polled_at, id) > 1 AS reused,
                row_number() OVER (PARTITION BY feed_version ORDER BY polled_at DESC, id DESC) AS recency
         FROM feed_polls)
       SELECT feed_version,
              count(*)::text AS polls,
              count(*) FILTER (WHERE reused)::text AS cursor_reuses,
              count(interval_s)::text AS interval_count,
              coalesce(sum(interval_s), 0)::float8 AS interval_seconds_total,
              max(polled_at) AS last_polled_at,
              count(DISTINCT payer) FILTER (WHERE NOT self_test)::text AS settled_wallets,
              count(*) FILTER (WHERE NOT self_test)::text AS settled_calls,
              max(since_snapshot) FILTER (WHERE recency = 1) AS since_snapshot
       FROM p GROUP BY feed_version ORDER BY max(polled_at) DESC, feed_version LIMIT $1`,
      [limits.feeds],
    );
    const [feedTotals] = await this.db.query<{ calls: string; payers: string }>(
      `SELECT count(*)::text AS calls, count(DISTINCT payer)::text AS payers FROM feed_polls WHERE NOT self_test`,
    );
    const [totals] = await this.db.query<{ calls: string; payers: string }>(
      `SELECT count(*)::text AS calls, count(DISTINCT payer)::text AS payers FROM reprice_queries WHERE NOT self_test`,
    );
    const queries = await this.db.query<{ resource_url: string | null; seller_pay_to: string | null; window_days: number; page: number; queried_at: Date | string }>(
      `SELECT resource_url, seller_pay_to, window_days, page, queried_at FROM reprice_queries WHERE NOT self_test ORDER BY queried_at DESC, id DESC LIMIT $1`,
      [limits.queries],
    );
    return {
      feedTotals: { settledCalls: Number(feedTotals?.calls ?? 0), payers: Number(feedTotals?.payers ?? 0) },
      feeds: feeds.map((f) => ({
        feedVersion: f.feed_version,
        sinceSnapshot: f.since_snapshot === null ? null : Number(f.since_snapshot),
        polls: Number(f.polls),
        cursorReuses: Number(f.cursor_reuses),
        intervalCount: Number(f.interval_count),
        intervalSecondsTotal: Number(f.interval_seconds_total ?? 0),
        lastPolledAt: new Date(f.last_polled_at),
        settledWallets: Number(f.settled_wallets),
        settledCalls: Number(f.settled_calls),
      })),
      reprice: {
        settledCalls: Number(totals?.calls ?? 0),
        payers: Number(totals?.payers ?? 0),
        queries: queries.map((q) => ({
          resourceUrl: q.resource_url,
          sellerPayTo: q.seller_pay_to,
          windowDays: Number(q.window_days),
          page: Number(q.page),
          at: new Date(q.queried_at),
        })),
      },
    };
  }
}
