import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import { withUpstreams } from '../src/catalogue/index.ts';
import { INFERENCE_MODELS } from '../src/catalogue/models.ts';
import type { AvailableProduct, Product, ProductContext } from '../src/catalogue/types.ts';

/** Every tool of the service description's tool table. */
const TOOLS = [
  'server_time', 'echo', 'web_extract', 'sentiment', 'company_research', 'answer_with_sources', 'crypto_price',
  'bazaar_pulse', 'listing_triage', 'wallet_spy', 'endpoint_task_evaluation', 'inference', 'chat_completion',
  'agent_route', 'agent_preflight_bundle', 'agent_return_context', 'agent_readiness_audit', 'batch_extract',
  'batch_url_json', 'x401_batch_extract', 'bazaar_category_heat', 'bazaar_category_heat_feed', 'bazaar_delta',
  'bazaar_listing_lint', 'bazaar_market_report', 'bazaar_new_listings', 'bazaar_price_stats', 'bazaar_seller_rank',
  'bazaar_trending', 'mpp_route', 'mpp_admission_gate', 'route_task', 'browser_evidence', 'base_block_number',
  'base_gas_price', 'base_tx_status', 'base_transfer_search_rpc', 'base_transfer_search', 'base_usdc_balance',
  'base_usdc_transfer_check', 'base_wallet_profile', 'b402_preflight', 'classify_text', 'extract_json',
  'extract_keywords', 'rewrite_text', 'summarize_text', 'fetch_x402_content', 'lei_resolve', 'ghost_bid_audit',
  'payer_profile', 'compile_payment_policy', 'people_record_normalize', 'people_search', 'profile_search',
  'people_enrich', 'prepaid_access_token', 'web_search', 'reprice_regret', 'research_answer', 'run_python',
  'settlement_verify', 'x402_receipt_lookup', 'award_flight_search', 'tweets_search', 'x402_endpoint_verify',
  'x402_facilitator_health', 'purchase_website_decision_packet', 'purchase_web_extraction_sample', 'service_gateway',
  'us_equity_snapshot', 'wallet_analyze', 'token_metrics', 'trading_signals', 'market_intel', 'solana_ops_context',
  'solana_priority_fee', 'token_flow_activity', 'proxy_implementation',
];

/** Tool prices of the tool table. */
const TOOL_PRICES: Record<string, string> = {
  server_time: '0.01', echo: '0.01', web_extract: '0.03', sentiment: '0.05', company_research: '0.50',
  answer_with_sources: '0.65', crypto_price: '0.004', bazaar_pulse: '0.002', wallet_analyze: '0.005',
  token_metrics: '0.003', trading_signals: '0.005', market_intel: '0.10', service_gateway: '0.001187',
  bazaar_category_heat_feed: '0.001079', agent_readiness_audit: '1.00', prepaid_access_token: '1.00',
};

const PAID = '/api/v1/paid/';
/** Documented routes (with their table prices) and the other paid paths seen in traffic. */
const DOCUMENTED_ROUTES: [method: 'GET' | 'POST', path: string, price: string][] = [
  ['GET', 'time', '0.01'],
  ['GET', 'echo', '0.01'],
  ['POST', 'inference', '0.01'],
  ['POST', 'analytics-query', '0.05'],
  ['POST', 'web-extract', '0.03'],
  ['POST', 'token-metrics', '0.03'],
  ['POST', 'wallet-analyze', '0.08'],
  ['POST', 'sentiment', '0.05'],
  ['POST', 'company-research', '0.50'],
  ['POST', 'answer-with-sources', '0.65'],
  ['GET', 'crypto-price', '0.004'],
  ['GET', 'bazaar-pulse', '0.001'],
  ['POST', 'trading-signals', '0.05'],
  ['POST', 'market-intel', '0.10'],
  ['GET', 'wallet-spy', '0.03'],
  ['POST', 'endpoint-task-evaluation', '0.01'],
];
const OTHER_GET = [
  'listing-triage', 'bazaar-market-report', 'bazaar-delta', 'bazaar-category-heat', 'bazaar-seller-rank',
  'bazaar-price-stats', 'bazaar-new-listings', 'bazaar-trending', 'bazaar-listing-lint', 'base-block-number',
  'base-gas-price', 'base-usdc-balance', 'base-usdc-transfer-check', 'base-tx-status', 'x402-facilitator-health',
  'x402-receipt-lookup', 'tweets-search',
  // 'proxy-implementation' is listed under GET and POST; it is declared POST (GET alias handled by the router).
];
const OTHER_POST = [
  'rewrite', 'summarize', 'classify', 'extract-json', 'keyword-extract', 'mpp-route', 'route-task', 'agent-route',
  'agent-readiness-audit', 'agent-preflight-bundle', 'agent-return-context', 'base-transfer-search',
  'base-wallet-profile', 'batch-extract', 'batch-url-json', 'x401-batch-extract', 'bazaar-category-heat-feed',
  'fetch-x402', 'compile-policy', 'purchase-web-extraction-sample', 'evidence/browser', 'b402-preflight',
  'ghost-bid-audit', 'mpp-admission-gate', 'us-equity-snapshot', 'token-flow-activity', 'research-answer',
  'reprice-regret', 'run-python', 'payer-profile', 'people-enrich', 'people-search', 'profile-search',
  'people-record-normalize', 'web-search', 'chat-completion', 'award-flight-search', 'solana-ops-context',
  'prepaid-access-token', 'service-gateway', 'x402-endpoint-verify', 'settlement-verify', 'proxy-implementation',
];
const ROUTES: [string, string][] = [
  ...DOCUMENTED_ROUTES.map(([m, p]) => [m, PAID + p] as [string, string]),
  ...OTHER_GET.map((p) => ['GET', PAID + p] as [string, string]),
  ...OTHER_POST.map((p) => ['POST', PAID + p] as [string, string]),
];

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

const products = ALL_PRODUCTS as readonly Product[];
const ctx = (now: Date): ProductContext => ({ now, signal: new AbortController().signal, tier: 'paid', catalogue: [], fetch: () => Promise.reject(new Error('no fetching in this test')) });
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

  it('declares every tool of the tool table exactly once, and no other', () => {
    expect(new Set(TOOLS).size).toBe(TOOLS.length);
    const tools = products.flatMap((p) => (p.mcp ? [p.mcp.tool] : []));
    expect(new Set(tools).size).toBe(tools.length);
    expect([...tools].sort()).toEqual([...TOOLS].sort());
  });

  it('declares every paid HTTP path exactly once with its method, and no other', () => {
    const keys = ROUTES.map(([m, p]) => `${m} ${p}`);
    expect(new Set(keys).size).toBe(keys.length);
    const paths = products.flatMap((p) => (p.http ? [p.http.path] : []));
    expect(new Set(paths).size).toBe(paths.length);
    const declared = products.flatMap((p) => (p.http ? [`${p.http.method} ${p.http.path}`] : []));
    expect([...declared].sort()).toEqual([...keys].sort());
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
    for (const [m, path, price] of DOCUMENTED_ROUTES) {
      const p = products.find((x) => x.http?.path === PAID + path);
      expect(p?.http?.method, path).toBe(m);
      expect(p?.http?.price, path).toBe(price);
    }
    for (const [tool, price] of Object.entries(TOOL_PRICES)) {
      expect(products.find((x) => x.mcp?.tool === tool)?.mcp?.price, tool).toBe(price);
    }
    // Routes only seen in traffic are priced as their tool.
    for (const p of products) {
      if (p.http && p.mcp && !DOCUMENTED_ROUTES.some(([, path]) => PAID + path === p.http?.path)) {
        expect(p.http.price, p.id).toBe(p.mcp.price);
      }
    }
  });

  it('sets mode and rails as described', () => {
    for (const p of products) {
      if (p.id === 'inference') expect(p.mode).toEqual({ kind: 'upto', maximumAuthorization: '1.00' });
      else expect(p.mode, p.id).toEqual({ kind: 'fixed' });
      const mpp = p.mcp !== undefined && MPP_TOOLS.includes(p.mcp.tool);
      expect(p.rails, p.id).toEqual({ x402: ['evm', 'solana'], mpp });
    }
  });

  it('has input schemas that convert to JSON Schema (input side)', () => {
    for (const p of products) {
      const js = z.toJSONSchema(p.input, { io: 'input' });
      expect(js.type, p.id).toBe('object');
    }
  });

  it('has an inputExample that parses against every input schema', () => {
    for (const p of products) {
      expect(p.inputExample, p.id).toBeDefined();
      const r = p.input.safeParse(p.inputExample);
      expect(r.success, `${p.id}: ${r.error?.message}`).toBe(true);
    }
  });

  it('accepts the GET query parameters as strings', () => {
    for (const p of products) {
      if (p.http?.method !== 'GET' || !p.inputExample) continue;
      const asQuery = Object.fromEntries(Object.entries(p.inputExample).map(([k, v]) => [k, String(v)]));
      const r = p.input.safeParse(asQuery);
      expect(r.success, `${p.id}: ${r.error?.message}`).toBe(true);
    }
  });

  it('has outputExamples that satisfy their outputSchema', () => {
    const withOutput = ['time', 'echo', 'analytics-query', 'web-extract', 'crypto-price', 'bazaar-pulse', 'trading-signals', 'endpoint-task-evaluation'];
    for (const id of withOutput) {
      const p = byId(id);
      expect(p.outputSchema, id).toBeDefined();
      expect(p.outputExample, id).toBeDefined();
    }
    for (const p of products) {
      if (!p.outputSchema) continue;
      const schema = z.fromJSONSchema(p.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
      const r = schema.safeParse(p.outputExample);
      expect(r.success, `${p.id}: ${r.error?.message}`).toBe(true);
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
    expect(byId('sentiment').input.parse({ query: 'ETH', extra: 1 })).toEqual({ query: 'ETH' });
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
      ].sort(),
    );
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
    expect(products.filter((p) => p.status === 'available').map((p) => p.id).sort()).toEqual(['agent-readiness-audit', 'agent-route', 'batch-extract', 'batch-url-json', 'browser-evidence', 'chat-completion', 'echo', 'endpoint-task-evaluation', 'inference', 'mpp-route', 'purchase-web-extraction-sample', 'purchase-website-decision-packet', 'route-task', 'time', 'web-extract', 'x401-batch-extract', 'x402-endpoint-verify']);
  });
});

describe('time and echo', () => {
  const now = new Date('2025-06-01T12:34:56.789Z');

  it('time returns the ISO time and Unix seconds from ctx.now', async () => {
    const p = byId('time') as AvailableProduct;
    const out = await p.run(p.input.parse({}), ctx(now));
    expect(out).toEqual({ time: '2025-06-01T12:34:56.789Z', unix: 1_748_781_296 });
    expect(Number.isInteger((out as { unix: number }).unix)).toBe(true);
  });

  it('echo returns the parameters as a query string in order, with a timestamp', async () => {
    const p = byId('echo') as AvailableProduct;
    const out = await p.run(p.input.parse({ a: '1', b: 'x' }), ctx(now));
    expect(out).toEqual({ echo: 'a=1&b=x', timestamp: '2025-06-01T12:34:56.789Z' });
    const spaced = await p.run(p.input.parse({ z: 'hello world', a: 'é&=' }), ctx(now));
    expect((spaced as { echo: string }).echo).toBe('z=hello+world&a=%C3%A9%26%3D');
    expect(await p.run(p.input.parse({}), ctx(now))).toEqual({ echo: '', timestamp: '2025-06-01T12:34:56.789Z' });
  });

  it('time and echo outputs satisfy their output schemas', async () => {
    for (const [id, input] of [['time', {}], ['echo', { q: 'x402' }]] as const) {
      const p = byId(id) as AvailableProduct;
      const out = await p.run(p.input.parse(input), ctx(now));
      const schema = z.fromJSONSchema(p.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
      expect(schema.safeParse(out).success, id).toBe(true);
    }
  });
});
