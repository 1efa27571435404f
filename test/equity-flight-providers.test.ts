import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { EQUITY_FLIGHT_KEYS, equityFlightDouble } from '../src/providers/equity-flight-double.fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { serveApp } from './helpers/local-site.ts';
import { balances, capturingLogger, startTestChain, startTestService } from './helpers/service.ts';

// us-equity-snapshot (Alpha Vantage) and award-flight-search (Seats.aero) paid end to end with the
// official clients (@x402/fetch over HTTP, the MCP SDK client over MCP), each provider a local double
// speaking its documented wire format; then a service without their keys: not on sale.

const double = equityFlightDouble();
// Award space on a day after today, whatever today is (the fixture's own records are dated 2025).
const departure = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
double.seatsAeroRecords.push({ ...double.seatsAeroRecords[1]!, ID: 'e2eFixtureVirginFuture', Date: departure });
const KEYLESS = { GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off' };
let providerServer: Awaited<ReturnType<typeof serveApp>>;
let chain: DevChain;
let service: RunningService;
const logs = capturingLogger();

beforeAll(async () => {
  providerServer = await serveApp(double.app);
  const providersUrl = providerServer.url;
  chain = await startTestChain();
  service = await startTestService({ chain, log: logs.log, env: { ...double.env(providersUrl), ...KEYLESS, LOG_LEVEL: 'trace' } });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  await providerServer?.close();
});

const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);
const post = (path: string, body: unknown) => pay()(`${service.url}/api/v1/paid/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('with Alpha Vantage and Seats.aero configured (local doubles)', () => {
  it('us-equity-snapshot over HTTP: paid once, the quote and company as Alpha Vantage gave them, the key nowhere', async () => {
    const before = await balances(chain);
    const response = await post('us-equity-snapshot', { symbol: 'IBM' });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ symbol: 'IBM', name: 'International Business Machines', price: 259.06, change_pct: -0.3884, market_cap: 240763355000, latest_trading_day: '2025-05-30', source: { provider: 'Alpha Vantage' } });
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('us-equity-snapshot'));
    expect(body + logs.lines.join('\n')).not.toContain(EQUITY_FLIGHT_KEYS.alphavantage);
  });

  it('award-flight-search over HTTP: paid once, options citing their Seats.aero record', async () => {
    const before = await balances(chain);
    const response = await post('award-flight-search', { origin: 'JFK', destination: 'LHR', date: departure, cabin: 'business' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ date: departure, options: [{ id: 'e2eFixtureVirginFuture', programme: 'virginatlantic', miles: 47500, taxes: { amount: 1012.4, currency: 'USD' } }], source: { provider: 'Seats.aero' } });
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('award-flight-search'));
    expect(logs.lines.join('\n')).not.toContain(EQUITY_FLIGHT_KEYS.seatsaero);
  });

  it('us_equity_snapshot and award_flight_search over MCP: paid once each', async () => {
    const client = new Client({ name: 'equity-flight-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const { tools } = await client.listTools();
    for (const name of ['us_equity_snapshot', 'award_flight_search']) expect(tools.find((t) => t.name === name)?.outputSchema, name).toBeDefined();
    const quote = await payTool(client, chain, 'us_equity_snapshot', { symbol: 'SPY' }, price('us-equity-snapshot', 'mcp'));
    expect(quote.isError).toBeFalsy();
    expect(quote.structuredContent).toMatchObject({ symbol: 'SPY', price: 589.39, name: null, market_cap: null });
    const awards = await payTool(client, chain, 'award_flight_search', { origin: 'JFK', destination: 'LHR', date: departure }, price('award-flight-search', 'mcp'));
    expect(awards.isError).toBeFalsy();
    // Every cabin when none is asked: the record's economy, premium economy and business space.
    expect((awards.structuredContent as { options: { id: string; cabin: string }[] }).options.map((o) => `${o.id} ${o.cabin}`)).toEqual(['economy', 'premium_economy', 'business'].map((c) => `e2eFixtureVirginFuture ${c}`));
    await client.close();
  });

  it('an unknown symbol is 404 naming the field, a past date 422 before payment; nothing charged', async () => {
    const before = await balances(chain);
    const unknown = await post('us-equity-snapshot', { symbol: 'NOPE' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ errors: [{ field: 'symbol' }] });
    const past = await post('award-flight-search', { origin: 'JFK', destination: 'LHR', date: '2020-01-01' });
    expect(past.status).toBe(422);
    expect(JSON.stringify(await past.json())).toContain('date');
    expect(await balances(chain)).toEqual(before);
  });

  it('Alpha Vantage rate-limiting in a 200 answer is 503, never charged, its text never passed on', async () => {
    double.failWith.alphavantage = 'note';
    try {
      const before = await balances(chain);
      const response = await post('us-equity-snapshot', { symbol: 'MSFT' });
      expect(response.status).toBe(503);
      expect(await response.text()).not.toContain('secret-provider-text');
      expect(await balances(chain)).toEqual(before);
    } finally {
      delete double.failWith.alphavantage;
    }
  });
});

describe('without their keys', () => {
  let bare: RunningService;
  beforeAll(async () => {
    bare = await startTestService({ chain, env: KEYLESS });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('are not on sale: 501 without a quote, absent from discovery and tools', async () => {
    for (const path of ['us-equity-snapshot', 'award-flight-search']) {
      const response = await fetch(`${bare.url}/api/v1/paid/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status, path).toBe(501);
      expect(response.headers.get('payment-required')).toBeNull();
    }
    const ids = ((await (await fetch(`${bare.url}/.well-known/x402.json`)).json()) as { resources: { id: string }[] }).resources.map((r) => r.id);
    expect(ids).not.toContain('us-equity-snapshot');
    expect(ids).not.toContain('award-flight-search');
    const client = new Client({ name: 'bare', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`)));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).not.toContain('us_equity_snapshot');
    expect(tools).not.toContain('award_flight_search');
    await client.close();
  });
});
