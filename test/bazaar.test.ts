import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPublicClient, createWalletClient, http, parseSignature, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { authorizationTypes } from '@x402/evm';
import { DEV_ROLES, devChain, usdcAbi } from '../src/devchain/contracts.ts';
import { ghostBidAudit } from '../src/products/bazaar/ghost-bid-audit/index.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { takeSnapshot } from '../src/bazaar/snapshotter.ts';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { item, SELLER_A, SELLER_B } from '../src/products/bazaar/fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import type { ObservatoryReport } from '../src/telemetry/report.ts';
import type { ToolBlocks } from '../src/telemetry/tool-usage.ts';
import { agentPreflightBundle } from '../src/products/agent/agent-preflight-bundle/index.ts';
import { agentReturnContext } from '../src/products/agent/agent-return-context/index.ts';
import { bazaarCategoryHeat } from '../src/products/bazaar/bazaar-category-heat/index.ts';
import { bazaarListingLint } from '../src/products/bazaar/bazaar-listing-lint/index.ts';
import { bazaarMarketReport } from '../src/products/bazaar/bazaar-market-report/index.ts';
import { bazaarNewListings } from '../src/products/bazaar/bazaar-new-listings/index.ts';
import { bazaarPriceStats } from '../src/products/bazaar/bazaar-price-stats/index.ts';
import { bazaarSellerRank } from '../src/products/bazaar/bazaar-seller-rank/index.ts';
import { bazaarTrending } from '../src/products/bazaar/bazaar-trending/index.ts';
import { listingTriage } from '../src/products/bazaar/listing-triage/index.ts';
import { repriceRegret } from '../src/products/bazaar/reprice-regret/index.ts';
import { paymentHeader, quote, settlementOf, signPayment } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// The bazaar end to end: a fixture discovery list on loopback (paginated, with malformed and
// duplicate items, and an oversized page) snapshotted by the service through its safe fetcher on
// two days; the products paid with the official clients (@x402/fetch over HTTP, the MCP SDK over
// MCP), their figures against hand-computed ones; the feed's price by view; and a ghost-bid audit
// whose settlement evidence is a payment made on the dev chain and read back from the block index.

let chain: DevChain;
let service: RunningService;
let discovery: Server;
let mode: 'day1' | 'day2' | 'huge' | 'reprice-old' | 'reprice-new' = 'day1';
const DAY_MS = 86_400_000;

const own = () => item({ resource: 'https://percall.invalid/api/v1/paid/bazaar-delta', payTo: chain.payTo.toLowerCase(), amount: '4000', network: chain.network, asset: chain.usdc, description: 'Diff of the two latest bazaar snapshots' });
const weather = (amount: string, lastUpdated = '2025-05-30T00:00:00.000Z') => item({ resource: 'https://weather.invalid/api/forecast', payTo: SELLER_A, amount, description: 'Weather forecast for a city', lastUpdated });
const wallet = () => item({ resource: 'https://chain.invalid/wallet/balance', payTo: SELLER_B, amount: '2000', description: 'Wallet token balance on Base' });
const prices = () => item({ resource: 'https://prices.invalid/token/price', payTo: SELLER_B, amount: '4000', description: 'Token price quote' });

// A seller on the dev chain whose price doubles between two snapshots; its settlements are made on anvil.
const REPRICER = '0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e';
const REPRICED_URL = 'https://repricer.invalid/api/quote';
const repricer = (amount: string) => item({ resource: REPRICED_URL, payTo: REPRICER, amount, network: chain.network, asset: chain.usdc, description: 'Stock quote for a ticker' });

function items(): unknown[] {
  if (mode === 'huge') return [{ ...wallet(), description: 'x'.repeat(40_000) }];
  if (mode === 'reprice-old') return [weather('20000'), own(), prices(), repricer('3000')];
  if (mode === 'reprice-new') return [weather('20000'), own(), prices(), repricer('6000')];
  if (mode === 'day1') return [weather('10000'), own(), wallet(), weather('10000', '2025-01-01T00:00:00.000Z'), { resource: 5 }, { resource: 'https://empty.invalid/', x402Version: 2, accepts: [] }];
  return [weather('20000'), own(), prices()];
}

const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const paidJson = async (path: string, init: RequestInit = {}) => {
  const response = await pay()(`${service.url}${path}`, init);
  expect(response.status, await response.clone().text()).toBe(200);
  expect(settlementOf(response)).toMatchObject({ success: true });
  return response.json() as Promise<Record<string, unknown>>;
};
const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
/** Pays one call of a product at its declared route (GET: input as query parameters). */
const paidCall = (product: { http?: { method: string; path: string } }, input: Record<string, unknown> = {}) => {
  const { method, path } = product.http!;
  if (method === 'POST') return paidJson(path, post(input));
  const query = new URLSearchParams(Object.entries(input).map(([k, v]) => [k, String(v)])).toString();
  return paidJson(query ? `${path}?${query}` : path);
};
const observatory = async () => (await (await fetch(`${service.url}/observatory/report.json`)).json()) as ObservatoryReport & { tools: ToolBlocks };


beforeAll(async () => {
  discovery = createServer((req, res) => {
    const url = new URL(req.url!, 'http://127.0.0.1');
    const all = items();
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ x402Version: 2, items: all.slice(offset, offset + limit), pagination: { limit, offset, total: all.length } }));
  });
  await new Promise<void>((resolve) => discovery.listen(0, '127.0.0.1', resolve));
  chain = await startTestChain();
  const listUrl = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}/discovery/resources`;
  service = await startTestService({
    chain,
    env: { BAZAAR_DISCOVERY_URLS: listUrl, BAZAAR_PAGE_SIZE: '2', BAZAAR_MAX_PAGE_BYTES: '20000', PERCALL_FETCH_ALLOW_LOOPBACK: '1', INDEX_CHAINS: 'base' },
  });
  // The snapshot the service takes at start (today, day-1 data) is superseded below.
  const store = service.percall.store.bazaarSnapshots();
  for (let i = 0; i < 100 && !(await store.runs(5)).some((r) => r.state !== 'running'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  discovery?.close();
});

describe('Bazaar snapshots and products, end to end', () => {
  it('publishes its own catalogue as a discovery list in the facilitators\' shape', async () => {
    const list = (await (await fetch(`${service.url}/discovery/resources?limit=2&type=http`)).json()) as { x402Version: number; items: Record<string, unknown>[]; pagination: { limit: number; offset: number; total: number } };
    expect(list.x402Version).toBe(2);
    expect(list.pagination).toMatchObject({ limit: 2, offset: 0 });
    expect(list.pagination.total).toBeGreaterThan(10);
    expect(Object.keys(list.items[0]!)).toEqual(expect.arrayContaining(['resource', 'type', 'x402Version', 'accepts', 'lastUpdated', 'metadata', 'extensions']));
    expect((list.items[0]!.accepts as { network: string }[])[0]!.network).toBe(chain.network);
    const mcp = (await (await fetch(`${service.url}/discovery/resources?type=mcp&limit=1000`)).json()) as { items: { resource: string; extensions: { bazaar: { info: { input: { toolName: string } } } } }[] };
    expect(mcp.items.map((i) => i.extensions.bazaar.info.input.toolName)).toContain('bazaar_pulse');
    expect((await fetch(`${service.url}/discovery/resources?network=!!!`)).status).toBe(400);
  });

  it('snapshots the lists page by page: malformed items counted and skipped, duplicates kept once, an oversized page fails the run', async () => {
    const bazaar = service.percall.bazaar!;
    const store = service.percall.store.bazaarSnapshots();
    const yesterday = await takeSnapshot({ store, sources: bazaar.sources, limits: { pageSize: 2, maxPages: 100, maxListings: 1000, timeoutMs: 10_000 }, now: new Date(Date.now() - DAY_MS) });
    expect(yesterday).toMatchObject({ kind: 'complete', listings: 3, stats: { malformed: 2, duplicates: 1, pages: 3 } });
    mode = 'huge';
    const huge = await bazaar.runOnce();
    expect(huge).toMatchObject({ kind: 'failed' });
    expect((huge as { detail: string }).detail).toMatch(/larger|too large|bytes/i);
    mode = 'day2';
    expect(await bazaar.runOnce()).toMatchObject({ kind: 'complete', listings: 3, stats: { malformed: 0, duplicates: 0 } });
    const [today, before] = await store.snapshots(2);
    expect(before!.id).toBe((yesterday as { snapshotId: number }).snapshotId);
    expect(today!.day).toBe(new Date().toISOString().slice(0, 10));
  });

  it('bazaar-delta paid over HTTP: added, removed and repriced as computed by hand', async () => {
    const out = await paidJson('/api/v1/paid/bazaar-delta');
    expect(out.counts).toEqual({ added: 1, removed: 1, repriced: 1, schema_changed: 0 });
    expect((out.added as { key: string }[]).map((l) => l.key)).toEqual(['https://prices.invalid/token/price']);
    expect((out.removed as { key: string }[]).map((l) => l.key)).toEqual(['https://chain.invalid/wallet/balance']);
    expect(out.repriced).toEqual([{ key: 'https://weather.invalid/api/forecast', resource: 'https://weather.invalid/api/forecast', pay_to: SELLER_A, from_price_usd: 0.01, to_price_usd: 0.02, change_pct: 100 }]);
  });

  it('the feed is priced by its view: scout_digest quotes 0.005, and a payment for the cheaper view does not buy it', async () => {
    const path = `${service.url}/api/v1/paid/bazaar-category-heat-feed`;
    const standard = await quote(path, post({}));
    const scout = await quote(path, post({ view: 'scout_digest' }));
    expect(standard.accepts[0]!.amount).toBe('1079');
    expect(scout.accepts[0]!.amount).toBe('5000');
    const cheap = await signPayment(chain.buyer.privateKey, standard);
    const before = await balances(chain);
    const refused = await fetch(path, { ...post({ view: 'scout_digest' }), headers: { 'content-type': 'application/json', ...paymentHeader(cheap) } });
    expect(refused.status).toBe(402);
    expect(await balances(chain)).toEqual(before);
    const first = await paidJson('/api/v1/paid/bazaar-category-heat-feed', post({}));
    expect((first.entries as unknown[]).length).toBe(2);
    const digest = await paidJson('/api/v1/paid/bazaar-category-heat-feed', post({ view: 'scout_digest' }));
    expect((digest.entries as { digest: string }[])[1]!.digest).toMatch(/3 listings; hottest/);
    expect(before.buyer - (await balances(chain)).buyer).toBe(1079n + 5000n);
    const resumed = await paidJson('/api/v1/paid/bazaar-category-heat-feed', post({ cursor: first.next_cursor }));
    expect(resumed.entries).toEqual([]);
    // The same cursor again: a reuse (nothing new, the same cursor back).
    const again = await paidJson('/api/v1/paid/bazaar-category-heat-feed', post({ cursor: first.next_cursor }));
    expect(again.next_cursor).toBe(first.next_cursor);
  });

  it('x402.json and openapi.json publish the scout_digest price beside the default one, with its own accepts', async () => {
    const x402 = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as { resources: { id: string; price: string; pricesByInput?: unknown }[]; tools: { name: string; price: string; pricesByInput?: unknown }[] };
    const scout = { field: 'view', value: 'scout_digest', price: '0.005', amount: '5000', accepts: expect.arrayContaining([expect.objectContaining({ scheme: 'exact', network: chain.network, amount: '5000' })]) };
    expect(x402.resources.find((r) => r.id === 'bazaar-category-heat-feed')).toMatchObject({ price: '0.001079', pricesByInput: [scout] });
    expect(x402.tools.find((t) => t.name === 'bazaar_category_heat_feed')).toMatchObject({ price: '0.001079', pricesByInput: [scout] });
    expect(x402.resources.find((r) => r.id === 'bazaar-delta')!.pricesByInput).toBeUndefined();
    const openapi = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string; 'x-payment-info': Record<string, unknown> }>> };
    const operation = openapi.paths['/api/v1/paid/bazaar-category-heat-feed']!.post!;
    expect(operation['x-payment-info']).toMatchObject({ price: '0.001079', amount: '1079', pricesByInput: [scout] });
    expect(operation.summary).toContain('0.005 USD when `view` is `scout_digest`');
  });

  it("the observatory's feed block counts those polls: versions, cursor reuses, intervals, wallets, repeat calls", async () => {
    const [today, yesterday] = await service.percall.store.bazaarSnapshots().snapshots(2);
    const block = async () => (await observatory()).tools.bazaar_category_heat_feed;
    await expect.poll(async () => (await block()).settled_calls, { timeout: 10_000, interval: 250 }).toBe(4);
    const feed = await block();
    expect(feed.payers).toBe(1);
    expect(feed.feeds).toHaveLength(1);
    const [entry] = feed.feeds;
    // Four polls by one wallet: two first polls (no cursor), then one cursor presented twice.
    expect(entry).toMatchObject({
      feed_version: `bazaar-category-heat/v1/${yesterday!.day}`,
      since_snapshot: today!.id,
      polls: 4,
      cursor_reuses: 1,
      interval_count: 3,
      settled_wallets: 1,
      settled_calls: 4,
      repeat_calls: 3,
    });
    expect(entry!.average_poll_interval_seconds).toBeCloseTo(entry!.interval_seconds_total / 3, 3);
    expect(Date.parse(entry!.last_polled_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('bazaar_pulse and the feed over MCP, tools listed first', async () => {
    const client = new Client({ name: 'bazaar-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const { tools } = await client.listTools();
    for (const name of ['bazaar_pulse', 'bazaar_category_heat_feed', 'ghost_bid_audit', 'agent_preflight_bundle']) expect(tools.find((t) => t.name === name), name).toBeDefined();
    type ToolResult = { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
    const unpaid = (await client.callTool({ name: 'bazaar_pulse', arguments: {} })) as ToolResult;
    const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
    const paid = (await client.callTool({ name: 'bazaar_pulse', arguments: {}, _meta: { 'x402/payment': payment } })) as ToolResult;
    expect(paid._meta?.['x402/payment-response'] as SettleResponse).toMatchObject({ success: true });
    expect((paid.structuredContent as { totals: unknown }).totals).toMatchObject({ listings: 3, sellers: 3, networks: 2 });
    const scout = (await client.callTool({ name: 'bazaar_category_heat_feed', arguments: { view: 'scout_digest' } })) as ToolResult;
    expect((scout.structuredContent as PaymentRequired).accepts[0]!.amount).toBe('5000');
    await client.close();
  });

  it('ghost-bid-audit: the bazaar-delta payment on the dev chain is the settlement evidence of its listing', async () => {
    const index = service.index!;
    const settled = async () => {
      const outcome = await index.query('base', `SELECT count(*) FROM erc20_transfers WHERE "to" = '${chain.payTo.toLowerCase()}' AND value = 4000`);
      return outcome.kind === 'ok' ? Number(outcome.result.rows[0]![0]) : -1;
    };
    await expect.poll(settled, { timeout: 10_000, interval: 200 }).toBe(1);
    const audit = await paidJson('/api/v1/paid/ghost-bid-audit', post({ resource_url: 'https://percall.invalid/api/v1/paid/bazaar-delta', window_days: 7 }));
    expect(audit).toMatchObject({ quoted_days: 2, settled_calls: 1, days_with_settlements: 1, ghost_ratio: 0.5, ghost: false });
    expect(audit.evidence).toMatchObject({ settlements: expect.stringContaining(`chain index, ${chain.network}`) });
    const ghost = await paidJson('/api/v1/paid/ghost-bid-audit', post({ resource_url: 'https://weather.invalid/api/forecast', window_days: 7 }));
    // Weather is quoted on Base mainnet, which the dev index does not cover: no evidence, never a made-up 0.
    expect(ghost).toMatchObject({ settled_calls: null, ghost: null });
    expect((await fetch(`${service.url}/api/v1/reprice-regret/example`)).status).toBe(200);
  });

  it('an unknown listing or seller is named in the 402 already; paid anyway, it is 422 before verification and never charged', async () => {
    const nowhere = 'https://nowhere.invalid/api/x';
    const cases = [
      [ghostBidAudit, { resource_url: nowhere, window_days: 7 }, 'resource_url'],
      [repriceRegret, { seller_payto: '0x00000000000000000000000000000000000000aa' }, 'seller_payto'],
      [bazaarListingLint, { resource_url: nowhere }, 'resource_url'],
      [listingTriage, { resource_url: nowhere }, 'resource_url'],
    ] as const;
    const before = await balances(chain);
    for (const [product, input, field] of cases) {
      const { method, path } = product.http!;
      const url = method === 'GET' ? `${service.url}${path}?${new URLSearchParams(input as Record<string, string>)}` : `${service.url}${path}`;
      const init = method === 'GET' ? {} : post(input);
      expect((await quote(url, init)).error, product.id).toMatch(new RegExp(`^unknown_listing: ${field}: `));
      const response = await pay()(url, init);
      expect(response.status, product.id).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(JSON.stringify(await response.json())).toContain(field);
    }
    expect(await balances(chain)).toEqual(before);
  });

  it('every other bazaar and agent product, paid once over HTTP, with figures computed by hand', async () => {
    // Yesterday: weather (A, 0.01, other), own (payTo, 0.004, payments), wallet (B, 0.002); today: weather at 0.02, own, prices (B, 0.004, market-data).
    const [today, yesterday] = await service.percall.store.bazaarSnapshots().snapshots(2);
    const ref = (s: { id: number; day: string }) => ({ id: s.id, day: s.day });
    const fresh = await paidCall(bazaarNewListings);
    expect(fresh).toMatchObject({ snapshot: ref(today!), baseline: ref(yesterday!), total: 1, listings: [{ key: 'https://prices.invalid/token/price', price_usd: 0.004, category: 'market-data' }] });
    const trending = await paidCall(bazaarTrending);
    expect(trending.trending).toEqual([expect.objectContaining({ service: 'https://prices.invalid', signal: 'new', listings: 1, listings_before: 0 })]);
    // Today's prices 0.004, 0.004, 0.02: nearest-rank median 0.004, p75 0.02, mean 0.009333.
    const stats = await paidCall(bazaarPriceStats);
    expect(stats.schemes).toEqual([{ scheme: 'exact', count: 3, min: 0.004, p10: 0.004, p25: 0.004, median: 0.004, p75: 0.02, p90: 0.02, max: 0.02, mean: 0.009333 }]);
    // The seller the dev index covers ranks first on its settled calls (this file's payments to it).
    const rank = (await paidCall(bazaarSellerRank)) as { sellers: { rank: number; pay_to: string; settled_calls_30d: number | null }[] };
    expect(rank.sellers.map((s) => s.pay_to)).toEqual([chain.payTo.toLowerCase(), SELLER_A, SELLER_B]);
    expect(rank.sellers[0]!.settled_calls_30d).toBeGreaterThan(0);
    expect(rank.sellers[1]!.settled_calls_30d).toBeNull();
    const heat = (await paidCall(bazaarCategoryHeat)) as { categories: { category: string; listings: number; heat: number | null }[] };
    expect(heat.categories).toHaveLength(9);
    expect(heat.categories[0]).toMatchObject({ category: 'market-data', listings: 1, heat: 100 });
    const report = await paidCall(bazaarMarketReport);
    expect(report).toMatchObject({ snapshot_ids: [today!.id, yesterday!.id], totals: { listings: 3, sellers: 3, networks: 2, median_price_usd: 0.004 } });
    const lint = (await paidCall(bazaarListingLint, { resource_url: 'https://weather.invalid/api/forecast' })) as { score: number; findings: { rule: string }[] };
    expect(lint.findings.map((f) => f.rule)).toEqual(['no_input_schema', 'no_output_schema', 'no_output_example', 'stale', 'unreachable_402']);
    expect(lint.score).toBe(100 - 20 - 15 - 10 - 5 - 20);
    const triage = await paidCall(listingTriage, { resource_url: 'https://weather.invalid/api/forecast' });
    expect(triage).toMatchObject({ verdict: 'changed', snapshots_present: 2, price_changes: [{ day: today!.day, from_price_usd: 0.01, to_price_usd: 0.02 }] });
    const context = await paidCall(agentReturnContext, { include: ['delta'] });
    expect(context).toMatchObject({ latest: ref(today!), since: null, changed: true, snapshot_ids: [today!.id], evidence_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    const bundle = (await paidCall(agentPreflightBundle, { utilities: [{ name: 'server_time' }, { name: 'bazaar_pulse' }] })) as { results: Record<string, { totals?: unknown }> };
    expect(Object.keys(bundle.results)).toEqual(['server_time', 'bazaar_pulse']);
    expect(bundle.results.bazaar_pulse!.totals).toMatchObject({ listings: 3, sellers: 3 });
  });

  it('every bazaar tool paid once over MCP, tools listed first: each answers its output schema and is charged its MCP price', async () => {
    const client = new Client({ name: 'bazaar-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    await client.listTools();
    const listing = { resource_url: 'https://weather.invalid/api/forecast' };
    const calls: [string, Record<string, unknown>][] = [
      ['bazaar_delta', {}],
      ['bazaar_new_listings', {}],
      ['bazaar_trending', {}],
      ['bazaar_price_stats', {}],
      ['bazaar_seller_rank', {}],
      ['bazaar_category_heat', {}],
      ['bazaar_market_report', {}],
      ['bazaar_category_heat_feed', {}],
      ['bazaar_listing_lint', listing],
      ['listing_triage', listing],
      ['ghost_bid_audit', listing],
      ['reprice_regret', listing],
    ];
    try {
      for (const [tool, args] of calls) {
        const product = service.percall.catalogue.byToolName(tool)!;
        const result = await payTool(client, chain, tool, args, usdToAtomic(product.mcp!.price));
        expect(result.isError, `${tool}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
        expect(product.output!.safeParse(result.structuredContent).success, tool).toBe(true);
      }
    } finally {
      await client.close();
    }
  });

  it('reprice_regret across a price change settled on the dev chain: calls before and after, paid over HTTP, then in the observatory', async () => {
    const bazaar = service.percall.bazaar!;
    const index = service.index!;
    const callsBefore = (await observatory()).tools.reprice_regret.settled_calls;
    mode = 'reprice-old';
    expect(await bazaar.runOnce()).toMatchObject({ kind: 'complete', listings: 4 });
    // Two calls settled at the old price (0.003) today; then the chain and this process move on a day,
    // where the seller asks 0.006 and sells once.
    await settleOnChain(REPRICER, 3000n);
    await settleOnChain(REPRICER, 3000n);
    await travel(DAY_MS);
    try {
      const day = new Date().toISOString().slice(0, 10);
      mode = 'reprice-new';
      expect(await bazaar.runOnce()).toMatchObject({ kind: 'complete', listings: 4 });
      await settleOnChain(REPRICER, 6000n);
      const indexed = async () => {
        const outcome = await index.query('base', `SELECT count(*) FROM erc20_transfers WHERE "to" = '${REPRICER}'`);
        return outcome.kind === 'ok' ? Number(outcome.result.rows[0]![0]) : -1;
      };
      await expect.poll(indexed, { timeout: 10_000, interval: 200 }).toBe(3);
      const out = await paidCall(repriceRegret, { resource_url: REPRICED_URL, window_days: 7 });
      // Window: the 7 days to now; the change was first seen today. Before: 2 calls in 7 days at 0.003;
      // after: 1 call in 1 day at 0.006; regret = 2/7 × 0.003 − 0.006 = −0.005143 USD a day (a gain).
      expect(out.listings).toEqual([
        {
          key: REPRICED_URL,
          pay_to: REPRICER,
          price_change: { day, from_price_usd: 0.003, to_price_usd: 0.006 },
          before: { days: 7, price_usd: 0.003, settled_calls: 2, calls_per_day: 0.286, revenue_usd_per_day: 0.000857 },
          after: { days: 1, price_usd: 0.006, settled_calls: 1, calls_per_day: 1, revenue_usd_per_day: 0.006 },
          regret_usd_per_day: -0.005143,
          verdict: 'gain',
        },
      ]);
      expect(out.evidence).toMatchObject({ settlements: expect.stringContaining(`chain index, ${chain.network}`) });
      const block = async () => (await observatory()).tools.reprice_regret;
      await expect.poll(async () => (await block()).settled_calls, { timeout: 10_000, interval: 250 }).toBe(callsBefore + 1);
      expect(await block()).toMatchObject({ payers: 1 });
      expect((await block()).query_log[0]).toMatchObject({ resource_url: REPRICED_URL, seller_payto: null, window_days: 7, page: 1 });
    } finally {
      vi.useRealTimers();
    }
  });
});

/** An x402-style settlement made as a facilitator makes it: the buyer's EIP-3009 authorization, submitted by another account. */
async function settleOnChain(to: Hex, value: bigint): Promise<void> {
  const viemChain = devChain(chain.rpcUrl, chain.chainId);
  const publicClient = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl), pollingInterval: 50 });
  const submitter = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.spare.privateKey), chain: viemChain, transport: http(chain.rpcUrl), pollingInterval: 50 });
  const message = { from: chain.buyer.address, to, value, validAfter: 0n, validBefore: (await publicClient.getBlock()).timestamp + 3600n, nonce: toHex(randomBytes(32)) };
  const signature = await privateKeyToAccount(chain.buyer.privateKey).signTypedData({
    domain: { name: chain.usdcName, version: chain.usdcVersion, chainId: chain.chainId, verifyingContract: chain.usdc },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  const { r, s, yParity } = parseSignature(signature);
  const hash = await submitter.writeContract({
    address: chain.usdc,
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, 27 + yParity, r, s],
  });
  expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
}

/** Moves the dev chain and this process's clock (Date only: timers stay real) forward together. */
async function travel(ms: number): Promise<void> {
  const rpc = (method: string, params: unknown[]) =>
    fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  await rpc('evm_increaseTime', [ms / 1000]);
  await rpc('evm_mine', []);
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + ms);
}
