import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import { withUpstreams } from '../src/catalogue/index.ts';
import { INFERENCE_MODELS } from '../src/catalogue/models.ts';
import { DOMAINS } from '../src/catalogue/registry.ts';
import { catalogueSnapshot } from '../src/catalogue/snapshot.ts';
import type { Product } from '../src/catalogue/types.ts';

const PAID = '/api/v1/paid/';

/** Tool ↔ route pairs that do not follow snake_case ↔ kebab-case. */
const KNOWN_PAIRS: Record<string, string> = {
  server_time: 'time',
  extract_keywords: 'keyword-extract',
  browser_evidence: 'evidence/browser',
  fetch_x402_content: 'fetch-x402',
  compile_payment_policy: 'compile-policy',
  rewrite_text: 'rewrite',
  summarize_text: 'summarize',
  classify_text: 'classify',
};

const MPP_TOOLS = ['endpoint_task_evaluation', 'mpp_route', 'solana_ops_context', 'mpp_admission_gate'];

/** Products whose HTTP route and MCP tool are priced apart (the tables say so); every other pair has one price. */
const PRICED_APART = ['token-metrics', 'wallet-analyze', 'bazaar-pulse', 'trading-signals'];

const products = ALL_PRODUCTS as readonly Product[];
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const byId = (id: string) => {
  const p = products.find((x) => x.id === id);
  if (!p) throw new Error(`no product ${id}`);
  return p;
};

describe('catalogue', () => {
  it('has unique kebab-case ids and at least one surface per product', () => {
    const ids = products.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of products) {
      expect(p.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(p.http ?? p.mcp, p.id).toBeDefined();
      expect(p.title.length, p.id).toBeGreaterThan(0);
      expect(p.description.length, p.id).toBeGreaterThan(20);
    }
  });

  it('is the committed snapshot: ids, routes, tools, prices per surface, modes, rails, status, requires', async () => {
    // A change here is a change of what is sold: review test/catalogue.snapshot.json, then `npx vitest run test/catalogue.test.ts -u`.
    const snapshot = `[\n${catalogueSnapshot(DOMAINS).map((p) => `  ${JSON.stringify(p)}`).join(',\n')}\n]\n`;
    await expect(snapshot).toMatchFileSnapshot('./catalogue.snapshot.json');
    expect(DOMAINS.flatMap((d) => d.products)).toEqual(products);
  });

  it('declares every tool and every paid HTTP path exactly once', () => {
    const tools = products.flatMap((p) => (p.mcp ? [p.mcp.tool] : []));
    expect(new Set(tools).size).toBe(tools.length);
    const paths = products.flatMap((p) => (p.http ? [p.http.path] : []));
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('skips the non-paid-prefix challenge paths', () => {
    for (const p of products) {
      if (p.http) expect(p.http.path.startsWith(PAID), p.id).toBe(true);
    }
  });

  it('merges each tool with its route when they are the same capability', () => {
    for (const p of products) {
      if (!p.mcp || !p.http) continue;
      const expected = KNOWN_PAIRS[p.mcp.tool] ?? p.mcp.tool.replaceAll('_', '-');
      expect(p.http.path, p.mcp.tool).toBe(PAID + expected);
    }
    // A tool whose route exists must be merged with it.
    const paths = new Set(products.flatMap((p) => (p.http ? [p.http.path] : [])));
    for (const p of products) {
      if (p.mcp && !p.http) {
        const candidate = PAID + (KNOWN_PAIRS[p.mcp.tool] ?? p.mcp.tool.replaceAll('_', '-'));
        expect(paths.has(candidate), p.mcp.tool).toBe(false);
      }
    }
  });

  it('uses prices that parse as USD with at most 6 decimals, as in the tables', () => {
    const usd = /^(0|[1-9]\d*)(\.\d{1,6})?$/;
    for (const p of products) {
      for (const price of [p.http?.price, p.mcp?.price]) {
        if (price === undefined) continue;
        expect(price, p.id).toMatch(usd);
        expect(Number(price), p.id).toBeGreaterThan(0);
      }
      if (p.mode.kind === 'upto') expect(p.mode.maximumAuthorization, p.id).toMatch(usd);
    }
    // Otherwise a route and its tool have one price.
    const apart = products.filter((p) => p.http && p.mcp && p.http.price !== p.mcp.price).map((p) => p.id);
    expect(apart.sort()).toEqual([...PRICED_APART].sort());
  });

  it('sets mode and rails as described', () => {
    for (const p of products) {
      if (p.id === 'inference' || p.id === 'chat-completion') expect(p.mode).toEqual({ kind: 'upto', maximumAuthorization: '1.00' });
      else expect(p.mode, p.id).toEqual({ kind: 'fixed' });
      const mpp = p.mcp !== undefined && MPP_TOOLS.includes(p.mcp.tool);
      expect(p.rails, p.id).toEqual({ x402: ['evm', 'solana'], mpp });
    }
  });

  it('publishes the output schemas the tables name', () => {
    const withOutput = ['time', 'echo', 'analytics-query', 'web-extract', 'crypto-price', 'bazaar-pulse', 'trading-signals', 'endpoint-task-evaluation'];
    for (const id of withOutput) {
      const p = byId(id);
      expect(p.outputSchema, id).toBeDefined();
      expect(p.outputExample, id).toBeDefined();
    }
  });

  it('rejects malformed input on documented shapes', () => {
    expect(byId('web-extract').input.safeParse({ url: 'not a url' }).success).toBe(false);
    expect(byId('wallet-analyze').input.safeParse({ wallet_address: '0x123' }).success).toBe(false);
    expect(byId('wallet-analyze').input.safeParse({ wallet_address: '0x' + 'a'.repeat(40), chain: 'solana' }).success).toBe(false);
    expect(byId('wallet-spy').input.parse({ address: '0x' + 'a'.repeat(40) })).toEqual({ address: '0x' + 'a'.repeat(40), chain: 'base' });
    expect(byId('trading-signals').input.parse({ token: 'AERO' })).toEqual({ token: 'AERO', chain: 'base' });
    expect(byId('market-intel').input.parse({ project: 'Uniswap' })).toEqual({ project: 'Uniswap', chain: 'ethereum' });
    expect(byId('inference').input.safeParse({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }).success).toBe(false);
    expect(byId('classify-text').input.safeParse({ text: 'x', labels: ['only-one'] }).success).toBe(false);
    expect(byId('reprice-regret').input.parse({ seller_payto: '0x' + 'b'.repeat(40) })).toMatchObject({ window_days: 30 });
    expect(byId('reprice-regret').input.safeParse({ window_days: 6 }).success).toBe(false);
    expect(byId('batch-url-json').input.safeParse({ urls: Array(11).fill('https://example.com/') }).success).toBe(false);
    expect(byId('batch-url-json').input.safeParse({ urls: ['http://example.com/'] }).success).toBe(false);
    // Unknown keys are stripped, not rejected.
    expect(byId('sentiment').input.parse({ query: 'ETH', extra: 1 })).toEqual({ query: 'ETH', query_type: 'auto', mode: 'lexicon' });
  });

  it('offers the six-model inference catalogue as the model enum', () => {
    expect(INFERENCE_MODELS).toHaveLength(6);
    expect(new Set(INFERENCE_MODELS.map((m) => m.provider)).size).toBe(6);
    const js = z.toJSONSchema(byId('inference').input, { io: 'input' }) as unknown as { properties: { model: { enum: string[] } } };
    expect(js.properties.model.enum).toEqual(INFERENCE_MODELS.map((m) => m.id));
  });

  it('declares free tiers and free doors', () => {
    expect(byId('route-task').freeTier?.perWalletPerDay).toBe(3);
    expect(byId('fetch-x402-content').freeTier?.perWalletPerDay).toBe(1);
    expect(byId('agent-route').freeTier).toBeDefined();
    expect(byId('mpp-route').freeTier).toBeDefined();
    const doors = products.flatMap((p) => (p.freeDoors ?? []).map((d) => `${d.method} ${d.path}`)).sort();
    expect(doors).toEqual(
      [
        'GET /api/v1/payer-profile/example',
        'GET /api/v1/payer-profile/classes',
        'GET /api/v1/reprice-regret/example',
        'GET /api/v1/research-answer/preview',
        'POST /api/v1/run-python/validate',
        'GET /api/v1/run-python/example',
        'GET /api/v1/analytics-query/executions/{execution_id}',
        'GET /api/v1/analytics-query/queries',
      ].sort(),
    );
  });

  it('sells the chain products only where their chain is configured, and a `chain` only among those configured', () => {
    const none = withUpstreams(products, new Set());
    for (const id of ['base-block-number', 'proxy-implementation', 'solana-priority-fee']) expect(none.find((p) => p.id === id)!.status, id).toBe('unavailable');
    const sold = withUpstreams(products, new Set(['evm', 'evm:base']), ['base']);
    const proxy = sold.find((p) => p.id === 'proxy-implementation')!;
    expect(proxy.status).toBe('available');
    expect(sold.find((p) => p.id === 'solana-ops-context')!.status).toBe('unavailable');
    const refused = proxy.input.safeParse({ address: '0x' + 'a'.repeat(40), chain: 'ethereum' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]).toMatchObject({ path: ['chain'], params: { status: 422, code: 'chain_not_configured' } });
    expect(proxy.input.safeParse({ address: '0x' + 'a'.repeat(40) }).success).toBe(true);
    // The published schema is the declaration's.
    expect(z.toJSONSchema(proxy.input, { io: 'input' })).toEqual(z.toJSONSchema(byId('proxy-implementation').input, { io: 'input' }));
  });

  it('sells the inference products only where an upstream is configured', () => {
    const sold = withUpstreams(products, new Set());
    for (const id of ['inference', 'chat-completion']) {
      const product = sold.find((p) => p.id === id)!;
      expect(product.status).toBe('unavailable');
      expect(product.status === 'unavailable' && product.reason).toMatch(/INFERENCE_API_KEY/);
    }
    expect(withUpstreams(products, new Set(['llm'])).find((p) => p.id === 'inference')!.status).toBe('available');
  });

  it('sells exactly the implemented products', () => {
    const bazaar = ['bazaar-pulse', 'bazaar-delta', 'bazaar-new-listings', 'bazaar-trending', 'bazaar-price-stats', 'bazaar-seller-rank', 'bazaar-category-heat', 'bazaar-market-report', 'bazaar-category-heat-feed', 'bazaar-listing-lint', 'listing-triage', 'reprice-regret', 'ghost-bid-audit', 'agent-return-context', 'agent-preflight-bundle'];
    const text = ['sentiment', 'classify-text', 'extract-json', 'extract-keywords', 'rewrite-text', 'summarize-text'];
    const payments = ['settlement-verify', 'x402-receipt-lookup', 'x402-facilitator-health', 'b402-preflight', 'mpp-admission-gate', 'payer-profile', 'compile-payment-policy', 'service-gateway', 'fetch-x402-content'];
    const chain = ['base-block-number', 'base-gas-price', 'base-transfer-search-rpc', 'base-tx-status', 'base-usdc-balance', 'base-usdc-transfer-check', 'proxy-implementation', 'solana-ops-context', 'solana-priority-fee', 'base-transfer-search', 'base-wallet-profile', 'wallet-analyze', 'wallet-spy', 'token-metrics', 'token-flow-activity'];
    expect(products.filter((p) => p.status === 'available').map((p) => p.id).sort()).toEqual(['agent-readiness-audit', 'agent-route', 'batch-extract', 'batch-url-json', 'browser-evidence', 'chat-completion', 'echo', 'endpoint-task-evaluation', 'inference', 'mpp-route', 'purchase-web-extraction-sample', 'purchase-website-decision-packet', 'route-task', 'run-python', 'time', 'web-extract', 'x401-batch-extract', 'x402-endpoint-verify', ...chain, 'analytics-query', 'people-record-normalize', 'people-search', 'profile-search', 'people-enrich', 'lei-resolve', 'company-research', 'crypto-price', 'trading-signals', 'market-intel', 'us-equity-snapshot', 'award-flight-search', 'web-search', 'tweets-search', 'research-answer', 'answer-with-sources', ...bazaar, ...text, ...payments].sort());
  });

  it('sells run-python only where a Python sandbox starts', () => {
    expect(withUpstreams(products, new Set()).find((p) => p.id === 'run-python')!.status).toBe('unavailable');
    expect(withUpstreams(products, new Set(['python'])).find((p) => p.id === 'run-python')!.status).toBe('available');
  });

  it("sells the operator's paying products only with its wallet, and the gateway only with its allowlist too", () => {
    const status = (upstreams: ('operator' | 'gateway')[]) => ['service-gateway', 'fetch-x402-content'].map((id) => withUpstreams(products, new Set(upstreams)).find((p) => p.id === id)!.status);
    expect(status([])).toEqual(['unavailable', 'unavailable']);
    expect(status(['operator'])).toEqual(['unavailable', 'available']);
    expect(status(['operator', 'gateway'])).toEqual(['available', 'available']);
  });

  it('sells analytics-query only where a block index runs', () => {
    expect(withUpstreams(products, new Set()).find((p) => p.id === 'analytics-query')!.status).toBe('unavailable');
    expect(withUpstreams(products, new Set(['index'])).find((p) => p.id === 'analytics-query')!.status).toBe('available');
  });

  it('sells the index-backed products only with the index, for the chains it indexes', () => {
    for (const id of ['base-transfer-search', 'wallet-analyze', 'wallet-spy', 'token-metrics', 'token-flow-activity']) {
      expect(withUpstreams(products, new Set(['evm', 'evm:base'])).find((p) => p.id === id)!.status, id).toBe('unavailable');
    }
    expect(withUpstreams(products, new Set(['index'])).find((p) => p.id === 'base-wallet-profile')!.status).toBe('unavailable'); // and a Base RPC
    const spy = withUpstreams(products, new Set(['index']), [], ['base']).find((p) => p.id === 'wallet-spy')!;
    const refused = spy.input.safeParse({ address: `0x${'ab'.repeat(20)}`, chain: 'ethereum' });
    expect(refused.error?.issues[0]).toMatchObject({ path: ['chain'], params: { status: 422, code: 'chain_not_configured' } });
    expect(spy.input.safeParse({ address: `0x${'ab'.repeat(20)}`, chain: 'base' }).success).toBe(true);
  });
});

/** Every source file under a directory, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The files a source file imports by relative path, resolved. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => resolve(dirname(file), m[1]!));
}

describe.each(DOMAINS.flatMap((d) => d.products.map((product) => ({ id: product.id, domain: d.name, product }))))('product $id (conformance)', ({ domain, product: p }) => {
  it('has an input schema that converts to JSON Schema (input side) and an inputExample that parses', () => {
    expect(z.toJSONSchema(p.input, { io: 'input' }).type).toBe('object');
    expect(p.inputExample).toBeDefined();
    const r = p.input.safeParse(p.inputExample);
    expect(r.success, r.error?.message).toBe(true);
  });

  if (p.http?.method === 'GET') it('accepts its GET query parameters as strings', () => {
    const asQuery = Object.fromEntries(Object.entries(p.inputExample ?? {}).map(([k, v]) => [k, String(v)]));
    const r = p.input.safeParse(asQuery);
    expect(r.success, r.error?.message).toBe(true);
  });

  if (p.output !== undefined || p.outputSchema !== undefined) it('has an output example that matches its output schema, published as its JSON Schema', () => {
    if (p.output) {
      const r = p.output.safeParse(p.outputExample);
      expect(r.success, r.error?.message).toBe(true);
    }
    if (p.outputSchema) {
      expect(p.output, 'a published output schema comes from the zod output').toBeDefined();
      expect(p.outputSchema).toEqual(z.toJSONSchema(p.output!));
      const r = z.fromJSONSchema(p.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(p.outputExample);
      expect(r.success, r.error?.message).toBe(true);
    }
  });

  if (p.status === 'available') it('is on sale from its own folder, with a colocated unit test and an output schema', () => {
    const folder = join(SRC, 'products', domain, p.id);
    expect(existsSync(join(folder, 'index.ts')), `${relative(SRC, folder)}/index.ts`).toBe(true);
    expect(existsSync(join(folder, `${p.id}.test.ts`)), `${relative(SRC, folder)}/${p.id}.test.ts`).toBe(true);
    expect(p.output).toBeDefined();
  });
});

describe('the product layout', () => {
  const products = join(SRC, 'products');
  const kit = join(products, 'kit');

  it('products never import the catalogue or the doors (the catalogue imports products)', () => {
    const outside = ['catalogue', 'http', 'mcp', 'payments', 'checkout', 'discovery', 'telemetry', 'store', 'identity'].map((d) => join(SRC, d));
    for (const file of sourceFiles(products)) {
      for (const target of relativeImports(file)) {
        expect(outside.some((dir) => target.startsWith(dir + '/')), `${relative(SRC, file)} imports ${relative(SRC, target)}`).toBe(false);
      }
    }
  });

  it('the kit imports only itself and providers', () => {
    for (const file of sourceFiles(kit)) {
      for (const target of relativeImports(file)) {
        expect(target.startsWith(kit + '/') || target.startsWith(join(SRC, 'providers') + '/'), `${relative(SRC, file)} imports ${relative(SRC, target)}`).toBe(true);
      }
    }
  });

  it('every domain of the registry is a folder with a product or a planned.ts', () => {
    for (const d of DOMAINS) {
      const folder = join(products, d.name);
      expect(existsSync(folder), d.name).toBe(true);
      for (const p of d.products.filter((x) => x.status === 'unavailable')) {
        expect(readFileSync(join(folder, 'planned.ts'), 'utf8'), p.id).toContain(`id: '${p.id}'`);
      }
    }
  });
});
