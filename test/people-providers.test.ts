import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { PDL_DOUBLE_KEY, pdlDouble } from '../src/providers/people/pdl-double.fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { serveApp } from './helpers/local-site.ts';
import { balances, capturingLogger, startTestChain, startTestService } from './helpers/service.ts';

// The People Data Labs products paid end to end with the official clients (@x402/fetch over HTTP,
// the MCP SDK client over MCP) against a local double speaking PDL's documented wire format; then a
// service without PDL_API_KEY, where they are not on sale.

const PEOPLE = [
  { id: 'people-search', tool: 'people_search', path: '/api/v1/paid/people-search' },
  { id: 'profile-search', tool: 'profile_search', path: '/api/v1/paid/profile-search' },
  { id: 'people-enrich', tool: 'people_enrich', path: '/api/v1/paid/people-enrich' },
] as const;
const double = pdlDouble();
let pdlServer: Awaited<ReturnType<typeof serveApp>>;
let chain: DevChain;
let service: RunningService;
const logs = capturingLogger();

beforeAll(async () => {
  pdlServer = await serveApp(double.app);
  chain = await startTestChain();
  const pdlUrl = pdlServer.url;
  service = await startTestService({ chain, log: logs.log, env: { ...double.env(pdlUrl), GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off', LOG_LEVEL: 'trace' } });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  await pdlServer?.close();
});

const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);
const post = (fetcher: typeof fetch, path: string, body: unknown) => fetcher(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('people products with People Data Labs configured (local double)', () => {
  it('each is paid once over HTTP and answers PDL\'s records with their ids; the key reaches only PDL', async () => {
    const inputs = { 'people-search': { name: 'Jane Doe', company: 'Example Corp', limit: 2 }, 'profile-search': { query: 'staff engineer payments Berlin', limit: 2 }, 'people-enrich': { email: 'jane.doe@example.com' } };
    const answers: Record<string, unknown> = {};
    for (const { id, path } of PEOPLE) {
      const before = await balances(chain);
      const response = await post(pay(), path, inputs[id]);
      expect(response.status, id).toBe(200);
      answers[id] = await response.json();
      expect(before.buyer - (await balances(chain)).buyer, id).toBe(price(id));
    }
    expect(answers['people-search']).toMatchObject({ total_matches: 2, people: [{ source: { provider: 'peopledatalabs', record_id: 'qXmpl3JaneDoeLondon0001_0000' } }, { company: 'Example Payments Gmbh' }] });
    expect(answers['profile-search']).toMatchObject({ profiles: [{ platform: 'linkedin', name: 'Jane Doe' }, { platform: 'github', name: 'Richard Miles' }] });
    expect(answers['people-enrich']).toMatchObject({ matched_on: ['email'], likelihood: 9, person: { name: 'Jane Doe', company: 'Example Corp' } });
    expect(JSON.stringify(answers)).not.toContain('jane.doe@example.com');
    expect(double.requests.every((r) => r.headers['x-api-key'] === PDL_DOUBLE_KEY)).toBe(true);
    expect(logs.lines.join('\n')).not.toContain(PDL_DOUBLE_KEY);
  });

  it('each is paid once over MCP with its output schema', async () => {
    const client = new Client({ name: 'people-providers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const { tools } = await client.listTools();
    const args = { people_search: { name: 'Richard Miles' }, profile_search: { query: 'head of engineering London' }, people_enrich: { profile_url: 'https://linkedin.com/in/janedoe-berlin-example' } };
    for (const { id, tool } of PEOPLE) {
      expect(tools.find((t) => t.name === tool)?.outputSchema, tool).toBeDefined();
      const result = await payTool(client, chain, tool, args[tool], price(id, 'mcp'));
      expect(result.isError, tool).toBeFalsy();
    }
    await client.close();
  });

  it('enrich: missing identifiers are named before payment; no match is 404, not charged', async () => {
    const unpaid = await post(fetch, '/api/v1/paid/people-enrich', { name: 'Jane Doe' });
    expect(unpaid.status).toBe(402);
    expect(JSON.parse(await unpaid.text()).error).toMatch(/company/);
    const before = await balances(chain);
    const response = await post(pay(), '/api/v1/paid/people-enrich', { email: 'nobody@example.com' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ errors: [{ field: 'email' }] });
    expect(await balances(chain)).toEqual(before);
  });
});

describe('without PDL_API_KEY', () => {
  let bare: RunningService;
  beforeAll(async () => {
    bare = await startTestService({ chain, env: { GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off' } });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('they are not on sale: 501 without a quote, absent from discovery and tools', async () => {
    for (const { path } of PEOPLE) {
      const response = await fetch(`${bare.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Jane Doe","query":"x","email":"a@example.com"}' });
      expect(response.status, path).toBe(501);
      expect(response.headers.get('payment-required')).toBeNull();
    }
    const ids = ((await (await fetch(`${bare.url}/.well-known/x402.json`)).json()) as { resources: { id: string }[] }).resources.map((r) => r.id);
    for (const { id } of PEOPLE) expect(ids).not.toContain(id);
    const client = new Client({ name: 'bare', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`)));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const { tool } of PEOPLE) expect(tools).not.toContain(tool);
    await client.close();
  });
});
