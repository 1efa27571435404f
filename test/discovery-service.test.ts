import { describe, expect, it, vi } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { ALL_PRODUCTS } from '../src/catalogue/all.ts';
import { Catalogue, withUpstreams } from '../src/catalogue/index.ts';
import { browserAvailable } from '../src/providers/browser.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import type { RunningService } from '../src/runtime.ts';
import { useTestService } from './helpers/service.ts';

/** The running service with the real catalogue: every discovery document must list exactly what is on sale. */
let chain: DevChain;
let service: RunningService;
// The test services run without an inference upstream (and with the browser where it can be isolated),
// reading their dev chains (anvil as base, the Solana VM), so they sell what withUpstreams leaves.
const DEV_CHAINS = ['evm', 'evm:base', 'solana'] as const;
// Dev mode snapshots its own catalogue as a Bazaar list (BAZAAR_DISCOVERY_URLS defaults to `self`).
// What the test service has: the dev chains, its own Bazaar snapshots, the keyless data providers
// (CoinGecko, GLEIF) and, where they can start here, headless Chromium and the Python sandbox.
let catalogue: Catalogue;
let availableHttp: ReturnType<Catalogue['available']>;
let unavailableHttp: ReturnType<Catalogue['httpProducts']>;
function expectedCatalogue(python: boolean): void {
  const upstreams = new Set([...DEV_CHAINS, 'bazaar', 'crypto-prices', 'lei', 'operator', 'gateway', ...(browserAvailable() ? (['browser'] as const) : []), ...(python ? (['python'] as const) : [])]);
  catalogue = new Catalogue(withUpstreams(ALL_PRODUCTS, upstreams as never, ['base']));
  availableHttp = catalogue.available('http');
  unavailableHttp = catalogue.httpProducts().filter((p) => p.status !== 'available');
}

useTestService((c, s) => {
  chain = c;
  service = s;
  expectedCatalogue(!!s.percall.python);
});

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(`${service.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

describe('discovery documents of the running service', () => {
  it('the implemented products are on sale; everything else is declared but unavailable', () => {
    // ghost-bid-audit and reprice-regret also need the block index, which test services run without.
    const bazaar = ['bazaar-pulse', 'bazaar-delta', 'bazaar-new-listings', 'bazaar-trending', 'bazaar-price-stats', 'bazaar-seller-rank', 'bazaar-category-heat', 'bazaar-market-report', 'bazaar-category-heat-feed', 'bazaar-listing-lint', 'listing-triage', 'agent-return-context', 'agent-preflight-bundle'];
    const chain = ['base-block-number', 'base-gas-price', 'base-tx-status', 'base-usdc-balance', 'base-usdc-transfer-check', 'proxy-implementation', 'solana-ops-context'];
    // The operator's wallet is the dev chain's funded account: fetch-x402-content is on sale, and the gateway,
    // whose dev allowlist without GATEWAY_SELLERS is this instance itself.
    const payments = ['b402-preflight', 'compile-payment-policy', 'mpp-admission-gate', 'settlement-verify', 'x402-facilitator-health', 'x402-receipt-lookup', 'fetch-x402-content', 'service-gateway'];
    const text = ['extract-keywords', 'sentiment', 'summarize-text'];
    const data = ['crypto-price', 'market-intel', 'people-record-normalize', ...(service.percall.python ? ['run-python'] : [])];
    expect(availableHttp.map((p) => p.id).sort()).toEqual(['agent-readiness-audit', 'agent-route', 'batch-extract', 'batch-url-json', 'browser-evidence', 'echo', 'endpoint-task-evaluation', 'mpp-route', 'purchase-web-extraction-sample', 'route-task', 'time', 'web-extract', 'x401-batch-extract', 'x402-endpoint-verify', ...chain, ...bazaar, ...payments, ...text, ...data].sort());
    expect(unavailableHttp.length).toBeGreaterThan(20);
  });

  it('openapi.json validates as OpenAPI 3.1 and lists exactly the available paid routes with catalogue prices', async () => {
    const doc = await getJson<{ openapi: string; info: { version: string }; paths: Record<string, Record<string, { 'x-payment-info'?: { price: string; amount: string } }>> }>('/openapi.json');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    const paidPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/paid/'));
    expect(paidPaths.sort()).toEqual(availableHttp.map((p) => p.http!.path).sort());
    for (const product of availableHttp) {
      const op = doc.paths[product.http!.path]![product.http!.method.toLowerCase()]!;
      expect(op['x-payment-info']).toMatchObject({ price: product.http!.price, amount: usdToAtomic(product.http!.price).toString() });
    }
  });

  it('x402.json lists exactly the available routes with method, price, mode, network, asset and payTo', async () => {
    const doc = await getJson<{ resources: { method: string; path: string; price: string; mode: string; networks: string[]; asset: string; payTo: string }[] }>('/.well-known/x402.json');
    expect(doc.resources.map((r) => r.path).sort()).toEqual(availableHttp.map((p) => p.http!.path).sort());
    for (const product of availableHttp) {
      expect(doc.resources.find((r) => r.path === product.http!.path)).toMatchObject({
        method: product.http!.method,
        price: product.http!.price,
        mode: product.mode.kind,
        // Every price here is settled on both networks of the dev stack (anvil and the in-process Solana VM).
        networks: [chain.network, service.solanaDev!.network],
        asset: chain.usdc,
        payTo: chain.payTo,
      });
    }
  });

  it('llms.txt and llms-full.txt name every available route with its price and no unavailable one', async () => {
    for (const path of ['/llms.txt', '/llms-full.txt']) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await response.text();
      for (const product of availableHttp) {
        expect(text).toContain(product.http!.path);
        expect(text).toContain(product.http!.price);
      }
      for (const product of unavailableHttp) expect(text, `${path} lists ${product.id}`).not.toContain(`${product.http!.path} `);
    }
  });

  it('every 402 carries a valid bazaar block with the input schema and output example, and the catalogue price', async () => {
    // Proof-gated routes answer 401 with their PROOF-REQUEST before any quote (see proof-request.test.ts).
    for (const product of availableHttp.filter((p) => !p.requiresProof)) {
      const response = await fetch(`${service.url}${product.http!.path}`, { method: product.http!.method });
      expect(response.status).toBe(402);
      const quote = decodePaymentRequiredHeader(response.headers.get('payment-required')!);
      // One exact offer per network, each at the catalogue price, and batch-settlement channels on EVM after exact.
      const price = usdToAtomic(product.http!.price).toString();
      expect(quote.accepts.map((a) => [a.network, a.scheme, a.amount])).toEqual([
        [chain.network, 'exact', price],
        [chain.network, 'batch-settlement', price],
        [service.solanaDev!.network, 'exact', price],
      ]);
      const bazaar = (quote.extensions as Record<string, Parameters<typeof validateDiscoveryExtension>[0]>).bazaar!;
      // The SDK's validator logs each format its ajv does not know (uri, date-time): not ours to print.
      const quiet = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const check = validateDiscoveryExtension(bazaar);
      quiet.mockRestore();
      expect(check.valid, JSON.stringify(check.errors)).toBe(true);
      expect(bazaar.info.output?.example).toEqual(product.outputExample);
    }
  });

  it('agent cards have one skill per available product', async () => {
    for (const path of ['/.well-known/agent.json', '/.well-known/agent-card.json']) {
      const card = await getJson<{ name: string; url: string; skills: { id: string }[] }>(path);
      expect(card.skills.map((s) => s.id).sort()).toEqual(catalogue.available().map((p) => p.id).sort());
    }
  });

  it('health and the model catalogue', async () => {
    const health = await getJson<{ status: string; uptime: number }>('/health');
    expect(health.status).toBe('ok');
    expect(typeof health.uptime).toBe('number');
    const models = await getJson<{ models: { id: string }[]; count: number }>('/api/v1/models');
    expect(models.count).toBe(6);
    expect(models.models).toHaveLength(6);
  });
});
