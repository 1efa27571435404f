/**
 * The per-tool blocks of the observatory report: the category-heat feed's polls per feed version,
 * and reprice_regret's settled calls, payers and query log. A gate hook records each served paid
 * call of these tools in the shared store (so every instance and restart adds to the same figures);
 * the report reads them back. Self-test calls (the operator's own wallets) are polls but never
 * settled calls, wallets, payers or logged queries.
 */
import { createHash } from 'node:crypto';
import { describeError, type Logger } from '../log.ts';
import type { GateHook } from '../payments/gate.ts';
import type { ToolUsageSnapshot, ToolUsageStore } from '../store/tool-usage.ts';

const FEED = 'bazaar-category-heat-feed';
const REPRICE = 'reprice-regret';
/** Feed versions and logged queries the report shows at most. */
export const REPORT_LIMITS = { feeds: 10, queries: 20 } as const;

export interface FeedBlockEntry {
  feed_version: string;
  since_snapshot: number | null;
  polls: number;
  cursor_reuses: number;
  interval_count: number;
  interval_seconds_total: number;
  last_polled_at: string;
  settled_wallets: number;
  settled_calls: number;
  repeat_calls: number;
  average_poll_interval_seconds: number | null;
}

export interface ToolBlocks {
  bazaar_category_heat_feed: { settled_calls: number; payers: number; feeds: FeedBlockEntry[] };
  reprice_regret: {
    settled_calls: number;
    payers: number;
    query_log: { queried_at: string; resource_url: string | null; seller_payto: string | null; window_days: number; page: number }[];
  };
}

const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {});

/** Records the served paid calls of the tools with a block; a failed write is logged, never fails the call. */
export function toolUsageHook(store: ToolUsageStore, options: { selfTestWallets: ReadonlySet<string>; log: Logger; clock?: () => Date }): GateHook {
  const clock = options.clock ?? (() => new Date());
  return (call, result) => {
    if (result.status !== 'served' || result.replay || (call.product !== FEED && call.product !== REPRICE)) return;
    const payer = (result.settlement.payer ?? 'unknown').toLowerCase();
    const selfTest = options.selfTestWallets.has(payer);
    const input = record(call.input);
    const output = record(result.output);
    const writing =
      call.product === FEED
        ? store.recordFeedPoll({
            payer,
            selfTest,
            feedVersion: String(output.feed_version),
            sinceSnapshot: typeof output.since_snapshot === 'number' ? output.since_snapshot : null,
            cursorDigest: typeof input.cursor === 'string' ? createHash('sha256').update(input.cursor).digest('hex') : null,
            at: clock(),
          })
        : store.recordRepriceQuery({
            payer,
            selfTest,
            // As the answer names them: listings and sellers of the latest snapshot (others are refused before payment).
            resourceUrl: typeof output.resource_url === 'string' ? output.resource_url : null,
            sellerPayTo: typeof output.seller_payto === 'string' ? output.seller_payto : null,
            windowDays: Number(input.window_days),
            page: Number(input.page),
            at: clock(),
          });
    writing.catch((error: unknown) => options.log.warn({ err: describeError(error), product: call.product }, 'tool usage not recorded'));
  };
}

/** The blocks as the report publishes them (zeros before any call). */
export function toolBlocks(usage: ToolUsageSnapshot | undefined): ToolBlocks {
  const feeds = (usage?.feeds ?? []).map(
    (f): FeedBlockEntry => ({
      feed_version: f.feedVersion,
      since_snapshot: f.sinceSnapshot,
      polls: f.polls,
      cursor_reuses: f.cursorReuses,
      interval_count: f.intervalCount,
      interval_seconds_total: Math.round(f.intervalSecondsTotal * 1000) / 1000,
      last_polled_at: f.lastPolledAt.toISOString(),
      settled_wallets: f.settledWallets,
      settled_calls: f.settledCalls,
      repeat_calls: f.settledCalls - f.settledWallets,
      average_poll_interval_seconds: f.intervalCount === 0 ? null : Math.round((f.intervalSecondsTotal / f.intervalCount) * 1000) / 1000,
    }),
  );
  const reprice = usage?.reprice;
  return {
    bazaar_category_heat_feed: { settled_calls: usage?.feedTotals.settledCalls ?? 0, payers: usage?.feedTotals.payers ?? 0, feeds },
    reprice_regret: {
      settled_calls: reprice?.settledCalls ?? 0,
      payers: reprice?.payers ?? 0,
      query_log: (reprice?.queries ?? []).map((q) => ({ queried_at: q.at.toISOString(), resource_url: q.resourceUrl, seller_payto: q.sellerPayTo, window_days: q.windowDays, page: q.page })),
    },
  };
}

const count = { type: 'integer', minimum: 0 } as const;

/** JSON Schema of the `tools` member of the report. */
export const TOOL_BLOCKS_SCHEMA = {
  type: 'object',
  description: 'Per-tool blocks, keyed by MCP tool name: settled calls and payers exclude self-test calls',
  additionalProperties: false,
  required: ['bazaar_category_heat_feed', 'reprice_regret'],
  properties: {
    bazaar_category_heat_feed: {
      type: 'object',
      additionalProperties: false,
      required: ['settled_calls', 'payers', 'feeds'],
      properties: {
        settled_calls: count,
        payers: count,
        feeds: {
          type: 'array',
          maxItems: REPORT_LIMITS.feeds,
          description: 'One entry per feed version, most recently polled first',
          items: {
            type: 'object',
            additionalProperties: false,
            required: [
              'feed_version',
              'since_snapshot',
              'polls',
              'cursor_reuses',
              'interval_count',
              'interval_seconds_total',
              'last_polled_at',
              'settled_wallets',
              'settled_calls',
              'repeat_calls',
              'average_poll_interval_seconds',
            ],
            properties: {
              feed_version: { type: 'string', pattern: '^bazaar-category-heat/v1/[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
              since_snapshot: { type: ['integer', 'null'], description: 'The snapshot the latest poll\'s cursor had seen (null: it had no cursor)' },
              polls: { ...count, description: 'Served paid polls, self-tests included' },
              cursor_reuses: { ...count, description: 'Polls presenting a cursor an earlier poll of this version already presented' },
              interval_count: { ...count, description: 'Intervals between one wallet\'s consecutive polls' },
              interval_seconds_total: { type: 'number', minimum: 0 },
              last_polled_at: { type: 'string', format: 'date-time' },
              settled_wallets: { ...count, description: 'Distinct paying wallets (self-tests excluded)' },
              settled_calls: { ...count, description: 'Settled polls (self-tests excluded)' },
              repeat_calls: { ...count, description: 'Settled polls after a wallet\'s first: settled_calls − settled_wallets' },
              average_poll_interval_seconds: { type: ['number', 'null'], minimum: 0, description: 'interval_seconds_total / interval_count (null: no interval yet)' },
            },
          },
        },
      },
    },
    reprice_regret: {
      type: 'object',
      additionalProperties: false,
      required: ['settled_calls', 'payers', 'query_log'],
      properties: {
        settled_calls: count,
        payers: count,
        query_log: {
          type: 'array',
          maxItems: REPORT_LIMITS.queries,
          description: 'The latest settled queries, newest first (listings and sellers of the latest snapshot only)',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['queried_at', 'resource_url', 'seller_payto', 'window_days', 'page'],
            properties: {
              queried_at: { type: 'string', format: 'date-time' },
              resource_url: { type: ['string', 'null'] },
              seller_payto: { type: ['string', 'null'] },
              window_days: { type: 'integer', minimum: 7, maximum: 90 },
              page: { type: 'integer', minimum: 1 },
            },
          },
        },
      },
    },
  },
} as const;
