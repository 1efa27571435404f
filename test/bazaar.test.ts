import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { takeSnapshot } from '../src/bazaar/snapshotter.ts';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { item, SELLER_A, SELLER_B } from '../src/products/bazaar/fixture.ts';
import type { RunningService } from '../src/runtime.ts';
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
let mode: 'day1' | 'day2' | 'huge' = 'day1';
const DAY_MS = 86_400_000;

const own = () => item({ resource: 'https://percall.invalid/api/v1/paid/bazaar-delta', payTo: chain.payTo.toLowerCase(), amount: '4000', network: chain.network, asset: chain.usdc, description: 'Diff of the two latest bazaar snapshots' });
const weather = (amount: string, lastUpdated = '2025-05-30T00:00:00.000Z') => item({ resource: 'https://weather.invalid/api/forecast', payTo: SELLER_A, amount, description: 'Weather forecast for a city', lastUpdated });
const wallet = () => item({ resource: 'https://chain.invalid/wallet/balance', payTo: SELLER_B, amount: '2000', description: 'Wallet token balance on Base' });
const prices = () => item({ resource: 'https://prices.invalid/token/price', payTo: SELLER_B, amount: '4000', description: 'Token price quote' });

function items(): unknown[] {
  if (mode === 'huge') return [{ ...wallet(), description: 'x'.repeat(40_000) }];
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
});
