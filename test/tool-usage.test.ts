import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import type { SqlStore } from '../src/store/sql-store.ts';
import type { FeedPoll, RepriceQuery, ToolUsageStore } from '../src/store/tool-usage.ts';
import { REPORT_SCHEMA } from '../src/telemetry/report-schema.ts';
import { REPORT_LIMITS, toolBlocks, toolUsageHook } from '../src/telemetry/tool-usage.ts';
import { freshDatabase, postgresRequired } from './helpers/postgres.ts';
import { silentLog, storeTemplate } from './helpers/service.ts';

// The observatory's per-tool blocks: known polls and queries written to the store (by two
// instances on PostgreSQL, and across a restart of the embedded store), the figures checked by hand.

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const SELF = '0x00000000000000000000000000000000000000c3';
const V1 = 'bazaar-category-heat/v1/2026-11-01';
const V0 = 'bazaar-category-heat/v1/2026-10-01';

const poll = (payer: string, seconds: number, cursor: string | null, since: number | null, feedVersion = V1): FeedPoll => ({
  payer,
  selfTest: payer === SELF,
  feedVersion,
  sinceSnapshot: since,
  cursorDigest: cursor,
  at: at(seconds),
});
const query = (payer: string, seconds: number, what: Partial<RepriceQuery>): RepriceQuery => ({
  payer,
  selfTest: payer === SELF,
  resourceUrl: null,
  sellerPayTo: null,
  windowDays: 30,
  page: 1,
  at: at(seconds),
  ...what,
});

/** Writes the known traffic, alternating between the given stores (instances). */
async function record(stores: ToolUsageStore[]): Promise<void> {
  const polls = [
    poll(A, -5000, null, null, V0),
    poll(A, 0, null, null),
    poll(A, 60, 'c1', 7),
    poll(B, 100, 'c1', 7), // a reuse
    poll(A, 180, 'c1', 7), // a reuse
    poll(SELF, 200, 'c2', 8),
  ];
  for (const [i, p] of polls.entries()) await stores[i % stores.length]!.recordFeedPoll(p);
  const queries = [
    query(A, 10, { resourceUrl: 'https://weather.invalid/api/forecast', windowDays: 7 }),
    query(B, 20, { sellerPayTo: '0x1111111111111111111111111111111111111111' }),
    query(A, 30, { sellerPayTo: '0x1111111111111111111111111111111111111111', page: 2 }),
    query(SELF, 40, { resourceUrl: 'https://weather.invalid/api/forecast' }),
  ];
  for (const [i, q] of queries.entries()) await stores[i % stores.length]!.recordRepriceQuery(q);
}

function expectKnownFigures(blocks: ReturnType<typeof toolBlocks>): void {
  // V1: A polls at 0, 60, 180 (two intervals: 60 s and 120 s); B once; the self-test once (a poll,
  // never a settled call or wallet). Cursor c1 presented three times: two reuses.
  expect(blocks.bazaar_category_heat_feed).toEqual({
    settled_calls: 5,
    payers: 2,
    feeds: [
      {
        feed_version: V1,
        since_snapshot: 8,
        polls: 5,
        cursor_reuses: 2,
        interval_count: 2,
        interval_seconds_total: 180,
        last_polled_at: at(200).toISOString(),
        settled_wallets: 2,
        settled_calls: 4,
        repeat_calls: 2,
        average_poll_interval_seconds: 90,
      },
      {
        feed_version: V0,
        since_snapshot: null,
        polls: 1,
        cursor_reuses: 0,
        interval_count: 0,
        interval_seconds_total: 0,
        last_polled_at: at(-5000).toISOString(),
        settled_wallets: 1,
        settled_calls: 1,
        repeat_calls: 0,
        average_poll_interval_seconds: null,
      },
    ],
  });
  expect(blocks.reprice_regret).toEqual({
    settled_calls: 3,
    payers: 2,
    query_log: [
      { queried_at: at(30).toISOString(), resource_url: null, seller_payto: '0x1111111111111111111111111111111111111111', window_days: 30, page: 2 },
      { queried_at: at(20).toISOString(), resource_url: null, seller_payto: '0x1111111111111111111111111111111111111111', window_days: 30, page: 1 },
      { queried_at: at(10).toISOString(), resource_url: 'https://weather.invalid/api/forecast', seller_payto: null, window_days: 7, page: 1 },
    ],
  });
  const validate = addFormats.default(new Ajv2020({ strict: true, allErrors: true })).compile(REPORT_SCHEMA.properties.tools);
  expect(validate(blocks), JSON.stringify(validate.errors)).toBe(true);
}

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const done of cleanup.reverse()) await done();
});

describe('per-tool observatory blocks', () => {
  it('are zeros before any call, and valid', () => {
    const blocks = toolBlocks(undefined);
    expect(blocks).toEqual({ bazaar_category_heat_feed: { settled_calls: 0, payers: 0, feeds: [] }, reprice_regret: { settled_calls: 0, payers: 0, query_log: [] } });
    const validate = addFormats.default(new Ajv2020({ strict: true, allErrors: true })).compile(REPORT_SCHEMA.properties.tools);
    expect(validate(blocks), JSON.stringify(validate.errors)).toBe(true);
  });

  it('survive a restart of the embedded store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'percall-tool-usage-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const template = storeTemplate();
    const first = await openEmbeddedStore(dir, template ? { template } : {});
    await record([first.toolUsage()]);
    await first.close();
    const again = await openEmbeddedStore(dir);
    cleanup.push(() => again.close());
    expectKnownFigures(toolBlocks(await again.toolUsage().snapshot(REPORT_LIMITS)));
  });

  it('add up over two instances sharing PostgreSQL', async (ctx) => {
    const db = await freshDatabase();
    if (!db) {
      if (postgresRequired) throw new Error('PostgreSQL required');
      ctx.skip();
      return;
    }
    const open = (): SqlStore => openPostgresStore({ url: db.url, poolSize: 2, statementTimeoutMs: 10_000 });
    const [one, two] = [open(), open()];
    cleanup.push(() => db.drop(), () => one.close(), () => two.close());
    await one.ensureSchema();
    await record([one.toolUsage(), two.toolUsage()]);
    expectKnownFigures(toolBlocks(await two.toolUsage().snapshot(REPORT_LIMITS)));
  });

  it("the gate hook records served calls of the two tools only: the cursor as a digest, self-tests flagged, replays ignored", async () => {
    const polls: FeedPoll[] = [];
    const queries: RepriceQuery[] = [];
    const store: ToolUsageStore = {
      recordFeedPoll: async (p) => void polls.push(p),
      recordRepriceQuery: async (q) => void queries.push(q),
      snapshot: async () => {
        throw new Error('unused');
      },
    };
    const hook = toolUsageHook(store, { selfTestWallets: new Set([SELF]), log: silentLog, clock: () => at(0) });
    const settlement = (payer: string) => ({ success: true, transaction: '0x1', network: 'eip155:31337', payer }) as never;
    const served = (output: unknown, payer = A) => ({ status: 'served' as const, output, settlement: settlement(payer), paymentKey: 'k' });
    const call = (product: string, input: unknown) => ({ endpoint: 'x', signedAmount: '1079', product, input });
    hook(call('bazaar-category-heat-feed', { view: 'standard', cursor: 'abc' }), served({ feed_version: V1, since_snapshot: 7 }, SELF.toUpperCase().replace('0X', '0x')));
    hook(call('bazaar-category-heat-feed', { view: 'standard' }), { ...served({ feed_version: V1, since_snapshot: null }), replay: true });
    hook(call('bazaar-category-heat-feed', { view: 'standard' }), { status: 'product_failed', error: new Error('x') });
    hook(call('bazaar-delta', {}), served({}));
    hook(call('reprice-regret', { resource_url: 'https://weather.invalid/api/forecast', window_days: 7, page: 1 }), served({ resource_url: 'https://weather.invalid/api/forecast', seller_payto: null }));
    await Promise.resolve();
    expect(polls).toEqual([{ payer: SELF, selfTest: true, feedVersion: V1, sinceSnapshot: 7, cursorDigest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', at: at(0) }]);
    expect(queries).toEqual([{ payer: A, selfTest: false, resourceUrl: 'https://weather.invalid/api/forecast', sellerPayTo: null, windowDays: 7, page: 1, at: at(0) }]);
  });
});
