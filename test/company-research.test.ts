import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { EXAMPLE_LEI, providerDouble } from '../src/providers/provider-double.fixture.ts';
import { EDGAR_USER_AGENT, EXAMPLE_CIK } from '../src/providers/filings/edgar-double.fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { serveApp } from './helpers/local-site.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// company-research paid end to end with the official clients (@x402/fetch over HTTP, the MCP SDK
// client over MCP), SEC EDGAR, GLEIF and web search being the local double on loopback; then a
// service without SEC_USER_AGENT, where it is not on sale.

const double = providerDouble();
let providerServer: Awaited<ReturnType<typeof serveApp>>;
let chain: DevChain;
let service: RunningService;

beforeAll(async () => {
  providerServer = await serveApp(double.app);
  const providersUrl = providerServer.url;
  chain = await startTestChain();
  service = await startTestService({ chain, env: double.env(providersUrl) });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  await providerServer?.close();
});

const price = (surface: 'http' | 'mcp') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === 'company-research')![surface]!.price);
const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('company-research with SEC EDGAR configured', () => {
  it('over HTTP: paid once, a cited report from EDGAR and GLEIF, the contact User-Agent sent to SEC', async () => {
    const before = await balances(chain);
    const response = await createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] })(`${service.url}/api/v1/paid/company-research`, post({ company: 'EXGL' }));
    expect(response.status).toBe(200);
    const report = (await response.json()) as { company: unknown; financials: unknown[]; filings: { index_url: string }[]; citations: { url: string }[] };
    expect(report.company).toMatchObject({ cik: EXAMPLE_CIK, lei: EXAMPLE_LEI, matched_by: 'ticker' });
    expect(report.financials).toHaveLength(5);
    expect(report.filings[0]!.index_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sec-www\/Archives\/edgar\/data\/9999999\//);
    expect(report.citations.map((c) => c.url)).toContain(`${new URL(report.filings[0]!.index_url).origin}/sec-data/submissions/CIK${EXAMPLE_CIK}.json`);
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('http'));
    expect(double.requests.filter((r) => r.provider === 'sec').every((r) => r.headers['user-agent'] === EDGAR_USER_AGENT)).toBe(true);
  });

  it('over MCP: company_research paid once; an unknown company is 404 naming `company`, never charged', async () => {
    const client = new Client({ name: 'company-research-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    expect((await client.listTools()).tools.find((t) => t.name === 'company_research')?.outputSchema).toBeDefined();
    const result = await payTool(client, chain, 'company_research', { company: 'Example Global' }, price('mcp'));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ company: { name: 'Example Global, Inc.', matched_by: 'name' }, risks: [{ rule: 'net_loss' }] });
    await client.close();

    const before = await balances(chain);
    const response = await createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] })(`${service.url}/api/v1/paid/company-research`, post({ company: 'No Such Company Anywhere' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ errors: [{ field: 'company' }] });
    expect(await balances(chain)).toEqual(before);
  });
});

describe('without SEC_USER_AGENT', () => {
  let bare: RunningService;
  beforeAll(async () => {
    bare = await startTestService({ chain, env: { SEC_USER_AGENT: '' } });
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('is not on sale: 501 without a quote, absent from discovery and tools', async () => {
    const response = await fetch(`${bare.url}/api/v1/paid/company-research`, post({ company: 'EXGL' }));
    expect(response.status).toBe(501);
    expect(response.headers.get('payment-required')).toBeNull();
    const catalogue = (await (await fetch(`${bare.url}/.well-known/x402.json`)).json()) as { resources: { id: string }[] };
    expect(catalogue.resources.map((r) => r.id)).not.toContain('company-research');
    const client = new Client({ name: 'bare', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`)));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('company_research');
    await client.close();
  });
});
