import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { DOUBLE_KEYS, EXAMPLE_LEI, providerDouble } from '../src/providers/provider-double.fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { serveApp } from './helpers/local-site.ts';
import { balances, capturingLogger, startTestChain, startTestService } from './helpers/service.ts';

// The third-party data products paid end to end with the official clients (@x402/fetch over HTTP,
// the MCP SDK client over MCP), each provider being a local double speaking its documented wire
// format; then the same service without providers: those products are not on sale.

const ADMIN_TOKEN = 'admin-token-for-data-providers-test';
const double = providerDouble();
let providerServer: Awaited<ReturnType<typeof serveApp>>;
let providersUrl: string;
let chain: DevChain;
let service: RunningService;
const logs = capturingLogger();

beforeAll(async () => {
  providerServer = await serveApp(double.app);
  providersUrl = providerServer.url;
  chain = await startTestChain();
  service = await startTestService({ chain, log: logs.log, env: { ...double.env(providersUrl), ADMIN_TOKEN, LOG_LEVEL: 'trace' } });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  await providerServer?.close();
});

const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);

async function mcp(): Promise<Client> {
  const client = new Client({ name: 'data-providers-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
  const { tools } = await client.listTools();
  for (const name of ['lei_resolve', 'tweets_search', 'web_search', 'crypto_price', 'people_record_normalize']) expect(tools.find((t) => t.name === name)?.outputSchema, name).toBeDefined();
  return client;
}

const paidTool = (client: Client, tool: string, args: Record<string, unknown>, id: string) => payTool(client, chain, tool, args, price(id, 'mcp'));

describe('data products with their providers configured (local doubles)', () => {
  it('crypto-price over HTTP (GET): paid once, the price CoinGecko gave', async () => {
    const before = await balances(chain);
    const response = await pay()(`${service.url}/api/v1/paid/crypto-price?symbol=eth`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ symbol: 'ETH', price: 2534.12, change_24h: -1.84, coin_id: 'ethereum', source: 'CoinGecko' });
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('crypto-price'));
  });

  it('web-search over HTTP (POST): paid once, results normalised, the key sent only to Brave', async () => {
    const before = await balances(chain);
    const response = await pay()(`${service.url}/api/v1/paid/web-search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'x402 spec', limit: 2 }) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { provider: string; results: { url: string }[] };
    expect(body.provider).toBe('Brave Search');
    expect(body.results.map((r) => r.url)).toEqual(['https://www.x402.org/', 'https://github.com/coinbase/x402']);
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('web-search'));
    expect(double.requests.filter((r) => r.provider === 'brave').at(-1)!.headers['x-subscription-token']).toBe(DOUBLE_KEYS.brave);
    expect(logs.lines.join('\n')).not.toContain(DOUBLE_KEYS.brave);
  });

  it('people-record-normalize over HTTP: local, paid once', async () => {
    const response = await pay()(`${service.url}/api/v1/paid/people-record-normalize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ record: { name: 'DOE, jane', phone: '+44 20 7946 0018' } }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ normalized: { name: { full: 'Jane Doe' }, phones: [{ e164: '+442079460018' }] } });
  });

  it('lei_resolve and tweets_search over MCP: paid once each', async () => {
    const client = await mcp();
    const lei = await paidTool(client, 'lei_resolve', { query: EXAMPLE_LEI }, 'lei-resolve');
    expect(lei.isError).toBeFalsy();
    expect(lei.structuredContent).toMatchObject({ match: 'lei', records: [{ lei: EXAMPLE_LEI, legal_name: 'Example Global, Inc.', parents: { direct: null, ultimate: null } }] });
    const posts = await paidTool(client, 'tweets_search', { query: 'x402', limit: 2 }, 'tweets-search');
    expect(posts.isError).toBeFalsy();
    expect((posts.structuredContent as { posts: unknown[] }).posts).toHaveLength(2);
    await client.close();
  });

  it('bad input is refused before payment, naming the field', async () => {
    const blank = await fetch(`${service.url}/api/v1/paid/web-search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '   ' }) });
    expect(blank.status).toBe(402);
    expect(JSON.parse(await blank.text()).error).toMatch(/query/);
  });

  it('an unknown symbol is 422 naming the field, and nothing is charged', async () => {
    const before = await balances(chain);
    const response = await pay()(`${service.url}/api/v1/paid/crypto-price?symbol=NOPE`);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ errors: [{ field: 'symbol' }] });
    expect(await balances(chain)).toEqual(before);
  });

  it('a keyless provider\'s outage is 502 over HTTP and MCP, never charged, its text never passed on', async () => {
    double.failWith.coingecko = 500;
    double.failWith.gleif = 500;
    try {
      const before = await balances(chain);
      const response = await pay()(`${service.url}/api/v1/paid/crypto-price?symbol=BTC`);
      expect(response.status).toBe(502);
      expect(await response.text()).not.toContain('secret-provider-text');
      const client = await mcp();
      const result = await paidTool(client, 'lei_resolve', { query: 'Outage Holdings' }, 'lei-resolve');
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).not.toContain('secret-provider-text');
      await client.close();
      expect(await balances(chain)).toEqual(before);
    } finally {
      delete double.failWith.coingecko;
      delete double.failWith.gleif;
    }
  });

  it('/metrics shows each provider\'s requests, cache hits, budget and failures', async () => {
    await pay()(`${service.url}/api/v1/paid/crypto-price?symbol=ETH`); // the same request again: from the cache
    const text = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(text).toMatch(/percall_provider_requests\{provider="coingecko"\} \d+/);
    expect(text).toMatch(/percall_provider_cache_hits\{provider="coingecko"\} [1-9]/);
    expect(text).toContain('percall_provider_budget_per_minute{provider="gleif"} 50');
    expect(text).toMatch(/percall_provider_failures\{provider="gleif",reason="http_error"\} [1-9]/);
    expect(text).not.toContain(DOUBLE_KEYS.x);
  });
});

describe('without their providers', () => {
  let bare: RunningService;
  beforeAll(async () => {
    bare = await startTestService({ chain, env: { GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off' } });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('are not on sale: 501 without a quote, absent from discovery and tools; the local normalizer stays', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/paid/crypto-price?symbol=ETH'],
      ['POST', '/api/v1/paid/web-search'],
      ['GET', '/api/v1/paid/tweets-search?query=x402'],
    ] as const) {
      const response = await fetch(`${bare.url}${path}`, { method, ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{"query":"x"}' } : {}) });
      expect(response.status, path).toBe(501);
      expect(response.headers.get('payment-required')).toBeNull();
    }
    const catalogue = (await (await fetch(`${bare.url}/.well-known/x402.json`)).json()) as { resources: { id: string }[] };
    const ids = catalogue.resources.map((r) => r.id);
    for (const id of ['crypto-price', 'web-search', 'tweets-search', 'lei-resolve']) expect(ids).not.toContain(id);
    expect(ids).toContain('people-record-normalize');
    const client = new Client({ name: 'bare', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`)));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).not.toContain('lei_resolve');
    expect(tools).toContain('people_record_normalize');
    await client.close();
  });

  it('GLEIF and CoinGecko are on sale by default (keyless public providers)', () => {
    const defaults = service.percall.catalogue.available().map((p) => p.id);
    expect(defaults).toEqual(expect.arrayContaining(['lei-resolve', 'crypto-price', 'people-record-normalize']));
  });
});
