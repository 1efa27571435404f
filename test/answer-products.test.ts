// The answer products end to end on the dev chain: a SearXNG double and the pages it finds served
// on loopback (the safe fetcher reaches them only with PERCALL_FETCH_ALLOW_LOOPBACK=1), the
// OpenAI-wire double as the inference upstream. Each product paid once over HTTP (@x402/fetch) or
// MCP; a model answer citing a passage it was not given is 502, never charged; the free preview door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import { Catalogue, withUpstreams } from '../src/catalogue/index.ts';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { registerResearchAnswerRoutes } from '../src/http/research-answer-routes.ts';
import { usdToAtomic } from '../src/money.ts';
import type { AnswerOutput } from '../src/products/research/answer-engine.ts';
import { SITE_PAGES, siteResults } from '../src/products/research/answer.fixture.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

const API_KEY = 'sk-test-upstream-key-answer-products';
const QUESTION = 'What is HTTP status code 402 used for?';

let chain: DevChain;
let service: RunningService;
let upstream: OpenAiDouble;
let site: Awaited<ReturnType<typeof localSite>>;
/** Paths the site served, in order (SearXNG queries and pages). */
const served: string[] = [];
/** The passage number the model double cites. */
let cite = 1;

beforeAll(async () => {
  site = await localSite((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    served.push(url.pathname);
    if (url.pathname === '/search') {
      if (url.searchParams.get('format') !== 'json') return void res.writeHead(403).end('Forbidden');
      const results = siteResults(site.url).map((r, i) => ({ url: r.url, title: r.title, content: r.snippet, engine: 'duckduckgo', engines: ['duckduckgo'], positions: [i + 1], score: 1, category: 'general' }));
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: url.searchParams.get('q'), number_of_results: 0, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] }));
    }
    const page = SITE_PAGES.find((p) => p.path === url.pathname);
    if (!page) return void res.writeHead(404).end('not here');
    res.writeHead(page.status, { 'content-type': page.status === 200 ? 'text/html; charset=utf-8' : 'text/plain' }).end(page.html);
  });
  upstream = await startOpenAiDouble(API_KEY);
  upstream.reply = () => JSON.stringify({ statements: [{ text: 'HTTP 402 tells the client that a payment is required before the resource is served.', citations: [cite] }] });
  chain = await startTestChain();
  service = await startTestService({ chain, env: { SEARXNG_URL: site.url, PERCALL_FETCH_ALLOW_LOOPBACK: '1', INFERENCE_API_URL: upstream.url, INFERENCE_API_KEY: API_KEY, INFERENCE_TIMEOUT_MS: '2000' } });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
  upstream?.close();
  site?.close();
});

const price = (id: string, surface: 'http' | 'mcp' = 'http') => usdToAtomic(service.percall.catalogue.products.find((p) => p.id === id)![surface]!.price);
const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) as const;
const pages = (paths: string[]) => paths.filter((p) => p !== '/search');

describe('research-answer and answer-with-sources', () => {
  it('research-answer over HTTP: paid 0.01, written by the model from the fetched pages, every citation a page really fetched', async () => {
    const before = await balances(chain);
    const from = served.length;
    const response = await pay()(`${service.url}/api/v1/paid/research-answer`, post({ question: QUESTION }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as AnswerOutput;
    expect(body).toMatchObject({ question: QUESTION, method: 'llm', model: 'openai/gpt-4.1-mini', no_answer: null, search: { provider: 'SearXNG', results: 4 } });
    expect(body.answer).toBe('HTTP 402 tells the client that a payment is required before the resource is served. [1]');
    expect(body.citations).toEqual([{ number: 1, url: `${site.url}/http/status/402`, title: '402 Payment Required | Example Docs', source: '127.0.0.1', quote: expect.stringContaining('402 Payment Required status code') }]);
    // Three pages read: the failing one was replaced by the next result.
    expect(pages(served.slice(from))).toEqual(expect.arrayContaining(['/http/status/402', '/x402/how-it-works', '/http/status/broken', '/http/status/404']));
    expect(body.pages.filter((p) => p.read)).toHaveLength(3);
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('research-answer'));
  });

  it('answer_with_sources over MCP: paid 0.65, the answer with its citations', async () => {
    const client = new Client({ name: 'answer-products-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'answer_with_sources')?.outputSchema).toBeDefined();
    cite = 2;
    try {
      const result = await payTool(client, chain, 'answer_with_sources', { question: 'How does x402 use the HTTP 402 status code for payments?' }, price('answer-with-sources', 'mcp'));
      expect(result.isError).toBeFalsy();
      const answer = result.structuredContent as AnswerOutput;
      expect(answer.method).toBe('llm');
      expect(answer.citations).toHaveLength(1);
      expect(answer.pages.map((p) => p.url)).toContain(answer.citations[0]!.url);
      expect(answer.statements).toEqual([{ text: expect.any(String), citations: [1] }]);
    } finally {
      cite = 1;
      await client.close();
    }
  });

  it('the other doors: answer-with-sources over HTTP and research_answer over MCP, each paid its price', async () => {
    const before = await balances(chain);
    const response = await pay()(`${service.url}/api/v1/paid/answer-with-sources`, post({ question: QUESTION }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as AnswerOutput;
    expect(body).toMatchObject({ method: 'llm', no_answer: null });
    expect(body.pages.map((p) => p.url)).toContain(body.citations[0]!.url);
    expect(before.buyer - (await balances(chain)).buyer).toBe(price('answer-with-sources'));
    const client = new Client({ name: 'answer-products-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    try {
      await client.listTools();
      const result = await payTool(client, chain, 'research_answer', { question: QUESTION }, price('research-answer', 'mcp'));
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as AnswerOutput).citations[0]!.url).toBe(`${site.url}/http/status/402`);
    } finally {
      await client.close();
    }
  });

  it('a model answer citing a passage it was not given fails twice over: 502, never charged', async () => {
    cite = 42;
    try {
      const before = await balances(chain);
      const asked = upstream.requests.length;
      const response = await pay()(`${service.url}/api/v1/paid/answer-with-sources`, post({ question: QUESTION }));
      expect(response.status).toBe(502);
      expect(await response.text()).not.toContain(API_KEY);
      expect(upstream.requests.length - asked).toBe(2);
      expect(await balances(chain)).toEqual(before);
    } finally {
      cite = 1;
    }
  });

  it('a blank question is refused before payment, naming `question`', async () => {
    const blank = await fetch(`${service.url}/api/v1/paid/research-answer`, post({ question: '  ' }));
    expect(blank.status).toBe(402);
    expect(JSON.parse(await blank.text()).error).toMatch(/question/);
  });

  it('the free preview door: the format and a real captured answer, never charged', async () => {
    const before = await balances(chain);
    const response = await fetch(`${service.url}/api/v1/research-answer/preview`);
    expect(response.status).toBe(200);
    expect(response.headers.get('payment-required')).toBeNull();
    const preview = (await response.json()) as { method: string; example: AnswerOutput; output_schema: { properties: Record<string, unknown> }; reads: { pages: number } };
    expect(preview.method).toBe('llm');
    expect(preview.example.citations.length).toBeGreaterThan(0);
    expect(Object.keys(preview.output_schema.properties)).toEqual(expect.arrayContaining(['answer', 'citations', 'statements', 'no_answer']));
    expect(preview.reads.pages).toBe(3);
    expect(await balances(chain)).toEqual(before);
  });
});

describe('without a web-search provider', () => {
  it('neither product is on sale, and the preview door answers 501 as the route does', async () => {
    const catalogue = new Catalogue(withUpstreams(ALL_PRODUCTS, new Set(['llm'])));
    for (const id of ['research-answer', 'answer-with-sources']) {
      const product = catalogue.products.find((p) => p.id === id)!;
      expect(product.status === 'unavailable' && product.reason, id).toMatch(/BRAVE_SEARCH_API_KEY or SEARXNG_URL/);
    }
    const app = new Hono();
    registerResearchAnswerRoutes(app, catalogue, true);
    const response = await app.request('/api/v1/research-answer/preview');
    expect(response.status).toBe(501);
  });
});
