import { validate, compileErrors } from '@readme/openapi-parser';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import { Catalogue, priceFor } from '../src/catalogue/index.ts';
import { usdToAtomic } from '../src/money.ts';
import { INFERENCE_MODELS } from '../src/catalogue/models.ts';
import { FIXED, X402_BOTH, available, unavailable, type Product } from '../src/catalogue/types.ts';
import { buildAgentCard } from '../src/discovery/agent-card.ts';
import { paymentTerms, type DiscoveryContext } from '../src/discovery/context.ts';
import { buildLlmsFullTxt, buildLlmsTxt } from '../src/discovery/llms.ts';
import { buildOpenApi } from '../src/discovery/openapi.ts';
import { buildX402Catalogue } from '../src/discovery/x402-catalogue.ts';
import { registerFreeRoutes } from '../src/http/free-routes.ts';
import type { PaymentOffer } from '../src/payments/x402-rail.ts';

const treeNode: z.ZodType<{ name: string; children?: unknown[] }> = z.object({
  name: z.string(),
  get children() {
    return z.array(treeNode).optional();
  },
});

const PRODUCTS: Product[] = [
  available({
    id: 'quote',
    title: 'Quote',
    description: 'Returns the price of one symbol.',
    category: 'market',
    http: { method: 'GET', path: '/api/v1/paid/quote', price: '0.004' },
    mcp: { tool: 'quote_tool', price: '0.002' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      symbol: z.string().min(1).describe('Ticker symbol'),
      currency: z.enum(['usd', 'eur']).default('usd'),
    }),
    inputExample: { symbol: 'ETH' },
    outputSchema: z.toJSONSchema(z.object({ symbol: z.string(), price: z.number() })),
    outputExample: { symbol: 'ETH', price: 3000 },
    run: async (input) => ({ symbol: input.symbol, price: 1 }),
  }),
  available({
    id: 'summarize',
    title: 'Summarize',
    description: 'Summarizes a text.',
    category: 'text',
    http: { method: 'POST', path: '/api/v1/paid/summarize', price: '0.05' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({ text: z.string().min(1), style: z.enum(['bullets', 'paragraph']).optional(), tree: treeNode.optional() }),
    inputExample: { text: 'Hello world' },
    run: async () => ({ summary: 'x' }),
  }),
  available({
    id: 'chat',
    title: 'Chat',
    description: 'One chat completion.',
    category: 'inference',
    http: { method: 'POST', path: '/api/v1/paid/chat', price: '0.01' },
    mcp: { tool: 'chat', price: '0.01' },
    mode: { kind: 'upto', maximumAuthorization: '1.00' },
    rails: X402_BOTH,
    input: z.object({ model: z.string(), messages: z.array(z.object({ role: z.string(), content: z.string() })).min(1) }),
    run: async () => ({}),
  }),
  available({
    id: 'tool-only',
    title: 'Tool only',
    description: 'Sold only as an MCP tool.',
    category: 'agent',
    mcp: { tool: 'tool_only', price: '0.005' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({}),
    run: async () => ({}),
  }),
  unavailable({
    id: 'secret-sauce',
    title: 'Secret sauce',
    description: 'Not built yet.',
    category: 'research',
    http: { method: 'POST', path: '/api/v1/paid/secret-sauce', price: '0.65' },
    mcp: { tool: 'secret_sauce', price: '0.65' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({ question: z.string() }),
  }),
];

const OFFER: PaymentOffer = {
  family: 'evm',
  network: 'eip155:31337',
  asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  assetName: 'USD Coin',
  assetVersion: '2',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  maxTimeoutSeconds: 300,
  minimumAmount: 0n,
};

function makeCtx(products: readonly Product[] = PRODUCTS): DiscoveryContext {
  return {
    baseUrl: 'http://127.0.0.1:4021',
    siteUrl: 'http://127.0.0.1:4021',
    serviceName: 'percall',
    version: '0.1.0',
    catalogue: new Catalogue(products),
    offers: [OFFER],
    accepts: (product, surface) =>
      product.rails.x402.includes('evm')
        ? [{ scheme: 'exact', network: OFFER.network, asset: OFFER.asset, payTo: OFFER.payTo, amount: usdToAtomic(priceFor(product, surface)).toString(), maxTimeoutSeconds: 300, extra: {} }]
        : [],
    models: INFERENCE_MODELS,
    startedAt: new Date(Date.now() - 5_000),
  };
}

async function expectValidOpenApi(doc: Record<string, unknown>): Promise<void> {
  const result = await validate(structuredClone(doc) as never);
  if (!result.valid) throw new Error(compileErrors(result));
  expect(result.valid).toBe(true);
}

type Operation = Record<string, any>;

describe('openapi.json', () => {
  const ctx = makeCtx();
  const doc = buildOpenApi(ctx) as Record<string, any>;

  it('validates as OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
    expect(doc.servers).toEqual([{ url: ctx.baseUrl }]);
    await expectValidOpenApi(doc);
  });

  it('lists exactly the available paid HTTP routes with their prices', () => {
    const paid = Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/paid/'));
    expect(paid.sort()).toEqual(['/api/v1/paid/chat', '/api/v1/paid/quote', '/api/v1/paid/summarize']);
    expect(JSON.stringify(doc)).not.toContain('secret-sauce');

    const quote: Operation = doc.paths['/api/v1/paid/quote'].get;
    expect(doc.paths['/api/v1/paid/quote'].post).toBeUndefined();
    expect(quote.operationId).toBe('quote');
    expect(quote.tags).toEqual(['market']);
    expect(quote['x-payment-info']).toMatchObject({
      price: '0.004',
      amount: '4000',
      mode: 'fixed',
      networks: ['eip155:31337'],
      asset: OFFER.asset,
      payTo: OFFER.payTo,
      mcpTool: 'quote_tool',
    });
    const params = quote.parameters.filter((p: Operation) => p.in === 'query');
    expect(params.map((p: Operation) => [p.name, p.required])).toEqual([
      ['symbol', true],
      ['currency', false],
    ]);
    expect(quote.responses['200'].content['application/json'].example).toEqual({ symbol: 'ETH', price: 3000 });
    expect(quote.responses['200'].content['application/json'].schema.$schema).toBeUndefined();
    expect(quote.responses['402'].headers['PAYMENT-REQUIRED']).toBeDefined();
    expect(quote.responses['402'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PaymentRequired' });

    const summarize: Operation = doc.paths['/api/v1/paid/summarize'].post;
    expect(summarize['x-payment-info']).toMatchObject({ price: '0.05', amount: '50000', mode: 'fixed' });
    expect(summarize['x-payment-info'].mcpTool).toBeUndefined();
    const body = summarize.requestBody.content['application/json'];
    expect(summarize.requestBody.required).toBe(true);
    expect(body.schema.required).toEqual(['text']);
    expect(body.schema.$schema).toBeUndefined();
    expect(body.example).toEqual({ text: 'Hello world' });
    for (const status of ['200', '400', '402', '413']) expect(summarize.responses[status]).toBeDefined();

    const chat: Operation = doc.paths['/api/v1/paid/chat'].post;
    expect(chat['x-payment-info']).toMatchObject({ price: '0.01', amount: '10000', mode: 'upto', maximumAuthorization: '1.00', maximumAuthorizationAmount: '1000000' });
  });

  it('includes the free endpoints and shared components', () => {
    for (const path of [
      '/health',
      '/api/v1/models',
      '/llms.txt',
      '/llms-full.txt',
      '/openapi.json',
      '/.well-known/agent.json',
      '/.well-known/agent-card.json',
      '/.well-known/x402.json',
    ]) {
      expect(doc.paths[path]?.get?.responses?.['200'], path).toBeDefined();
    }
    expect(doc.components.schemas.Problem).toBeDefined();
    expect(doc.components.schemas.PaymentRequired).toBeDefined();
    expect(JSON.stringify(doc)).not.toContain('"$schema"');
  });
});

describe('x402.json', () => {
  const ctx = makeCtx();
  const catalogue = buildX402Catalogue(ctx);

  it('lists exactly the available HTTP routes and MCP tools with their own prices', () => {
    expect(catalogue.x402Version).toBe(2);
    expect(catalogue.networks).toEqual(['eip155:31337']);
    expect(catalogue.payTo).toBe(OFFER.payTo);
    expect(catalogue.resources.map((r) => [r.method, r.path, r.price, r.amount, r.mode])).toEqual([
      ['GET', '/api/v1/paid/quote', '0.004', '4000', 'fixed'],
      ['POST', '/api/v1/paid/summarize', '0.05', '50000', 'fixed'],
      ['POST', '/api/v1/paid/chat', '0.01', '10000', 'upto'],
    ]);
    const chat = catalogue.resources.find((r) => r.path === '/api/v1/paid/chat')!;
    expect(chat.maximumAuthorization).toBe('1.00');
    expect(chat.url).toBe('http://127.0.0.1:4021/api/v1/paid/chat');
    expect(chat.tool).toBe('chat');
    expect(chat.inputSchema.$schema).toBeUndefined();
    expect(chat.networks).toEqual(['eip155:31337']);
    expect(chat.asset).toBe(OFFER.asset);
    expect(catalogue.tools.map((t) => [t.name, t.price])).toEqual([
      ['quote_tool', '0.002'],
      ['chat', '0.01'],
      ['tool_only', '0.005'],
    ]);
    expect(JSON.stringify(catalogue)).not.toContain('secret');
  });
});

describe('llms.txt and llms-full.txt', () => {
  const ctx = makeCtx();
  const llms = buildLlmsTxt(ctx);
  const full = buildLlmsFullTxt(ctx);

  it('lists exactly the available products with their prices', () => {
    expect(llms.startsWith('# percall\n\n> ')).toBe(true);
    const routes = llms.split('\n').filter((line) => line.startsWith('- [GET /api/v1/paid') || line.startsWith('- [POST /api/v1/paid'));
    expect(routes).toHaveLength(3);
    expect(llms).toContain('- [GET /api/v1/paid/quote](http://127.0.0.1:4021/api/v1/paid/quote): 0.004 USD.');
    expect(llms).toContain('- [POST /api/v1/paid/summarize](http://127.0.0.1:4021/api/v1/paid/summarize): 0.05 USD.');
    expect(llms).toContain('[POST /api/v1/paid/chat](http://127.0.0.1:4021/api/v1/paid/chat): 0.01 USD (mode upto, maximum 1.00 USD)');
    expect(llms).toContain('- `quote_tool`: 0.002 USD.');
    expect(llms).toContain('http://127.0.0.1:4021/mcp');
    expect(llms).toContain('PAYMENT-SIGNATURE');
    expect(llms).toContain('eip155:31337');
    for (const doc of ['/openapi.json', '/.well-known/x402.json', '/.well-known/agent-card.json', '/llms-full.txt']) expect(llms).toContain(doc);
    expect(llms).not.toContain('secret');
    expect(full).not.toContain('secret');
  });

  it('the full document adds schemas, examples and error behaviour per product', () => {
    expect(full).toContain(llms.split('## Optional')[0]!.trim().split('\n## Free endpoints')[0]!);
    expect(full).toContain('### Quote (`quote`)');
    expect(full).toContain('### Tool only (`tool-only`)');
    expect(full).toContain('MCP tool: `quote_tool`, 0.002 USD');
    expect(full).toContain('"symbol": "ETH"');
    expect(full).toContain('Retry-After');
    expect(full).toContain('501');
  });
});

describe('agent card', () => {
  it('has one skill per available product and the x402 block', () => {
    const ctx = makeCtx();
    const card = buildAgentCard(ctx);
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.url).toBe(ctx.baseUrl);
    expect(card.provider).toBeUndefined();
    expect(card.skills.map((s) => s.id)).toEqual(['quote', 'summarize', 'chat', 'tool-only']);
    expect(card.skills[0]!.description).toContain('0.004 USD');
    expect(card.skills[0]!.description).toContain('0.002 USD');
    expect(card.x402).toMatchObject({ x402Version: 2, networks: ['eip155:31337'], payTo: OFFER.payTo, catalogue: `${ctx.siteUrl}/.well-known/x402.json` });
    expect(card.additionalInterfaces).toContainEqual({ url: 'http://127.0.0.1:4021/mcp', transport: 'MCP' });
  });
});

describe('paymentTerms', () => {
  it('gives no payment option for a product without an EVM rail', () => {
    const ctx = makeCtx();
    const product = ctx.catalogue.available('http')[0]!;
    expect(paymentTerms({ ...product, rails: { x402: ['solana'], mpp: false } }, 'http', ctx)).toMatchObject({ networks: [], rails: [], accepts: [] });
  });
});

describe('free routes', () => {
  const ctx = makeCtx();
  const app = new Hono();
  registerFreeRoutes(app, ctx);

  it('serves health and models', async () => {
    const health = await app.request('/health');
    expect(health.status).toBe(200);
    const body = (await health.json()) as { status: string; uptime: number };
    expect(body.status).toBe('ok');
    expect(typeof body.uptime).toBe('number');
    expect(body.uptime).toBeGreaterThanOrEqual(4);

    const models = await app.request('/api/v1/models');
    expect(await models.json()).toEqual({ models: INFERENCE_MODELS, count: INFERENCE_MODELS.length });
  });

  it('serves every document with its content type and cache policy, also for HEAD', async () => {
    const documents: [string, string][] = [
      ['/openapi.json', 'application/json'],
      ['/llms.txt', 'text/plain; charset=utf-8'],
      ['/llms-full.txt', 'text/plain; charset=utf-8'],
      ['/.well-known/agent.json', 'application/json'],
      ['/.well-known/agent-card.json', 'application/json'],
      ['/.well-known/x402.json', 'application/json'],
    ];
    for (const [path, type] of documents) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain(type);
      expect(res.headers.get('cache-control'), path).toBe('public, max-age=300');
      expect((await res.text()).length, path).toBeGreaterThan(100);
      const head = await app.request(path, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(await head.text(), path).toBe('');
    }
    const a = await (await app.request('/.well-known/agent.json')).json();
    const b = await (await app.request('/.well-known/agent-card.json')).json();
    expect(a).toEqual(b);
    expect(await (await app.request('/.well-known/x402.json')).json()).toEqual(JSON.parse(JSON.stringify(buildX402Catalogue(ctx))));
  });
});

describe('the full catalogue', () => {
  const ctx = makeCtx(ALL_PRODUCTS);

  it('produces a valid OpenAPI 3.1 document', async () => {
    await expectValidOpenApi(buildOpenApi(ctx));
  });

  it('lists every available product, and only those, in every document', () => {
    const openapi = buildOpenApi(ctx) as { paths: Record<string, Record<string, unknown>> };
    const x402 = buildX402Catalogue(ctx);
    const llms = buildLlmsTxt(ctx);
    const card = buildAgentCard(ctx);
    const httpAvailable = ctx.catalogue.available('http');
    expect(x402.resources.map((r) => r.path)).toEqual(httpAvailable.map((p) => p.http!.path));
    expect(x402.tools.map((t) => t.name)).toEqual(ctx.catalogue.available('mcp').map((p) => p.mcp!.tool));
    expect(card.skills).toHaveLength(ctx.catalogue.available().length);
    for (const product of httpAvailable) {
      const op = openapi.paths[product.http!.path]?.[product.http!.method.toLowerCase()] as Operation | undefined;
      expect(op?.['x-payment-info']?.price, product.id).toBe(product.http!.price);
      expect(llms).toContain(`[${product.http!.method} ${product.http!.path}]`);
    }
    for (const product of ALL_PRODUCTS.filter((p) => p.status !== 'available' && p.http)) {
      expect(openapi.paths[product.http!.path], product.id).toBeUndefined();
      expect(llms).not.toContain(`${product.http!.path}]`);
    }
  });

  it('stays valid OpenAPI once every declared product is available', async () => {
    const all = ALL_PRODUCTS.map((p): Product => (p.status === 'available' ? p : { ...p, status: 'available', run: async () => ({}) }));
    const everything = makeCtx(all);
    await expectValidOpenApi(buildOpenApi(everything));
    expect(buildX402Catalogue(everything).resources).toHaveLength(all.filter((p) => p.http).length);
    expect(buildAgentCard(everything).skills).toHaveLength(all.length);
    expect(buildLlmsFullTxt(everything)).toContain('## Products');
  });

  it('builds llms-full.txt for every product', () => {
    const full = buildLlmsFullTxt(ctx);
    for (const product of ctx.catalogue.available()) expect(full).toContain(`(\`${product.id}\`)`);
  });
});
