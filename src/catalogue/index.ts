import { z } from 'zod';
import { CHAIN_NOT_CONFIGURED, unavailable, type AvailableProduct, type Product, type Surface, type UpstreamProvider } from '../products/kit/index.ts';

export type { AvailableProduct, Product, Surface } from '../products/kit/index.ts';

/** USD price of a product on a surface; each surface carries its own price. */
export function priceFor(product: Product, surface: Surface): string {
  const price = product[surface]?.price;
  if (price === undefined) throw new Error(`product ${product.id} is not sold on ${surface}`);
  return price;
}

export function isAvailable(product: Product): product is AvailableProduct {
  return product.status === 'available';
}

const MISSING_UPSTREAM: Record<UpstreamProvider, string> = {
  llm: 'this instance has no inference upstream configured (INFERENCE_API_KEY)',
  browser: 'this instance has no isolated headless browser (a Chromium, CHROMIUM_PATH, that can run in its own network namespace: root with unshare, or bwrap)',
  evm: 'this instance reads no EVM chain (EVM_RPC_URLS)',
  'evm:base': 'this instance has no Base JSON-RPC configured (EVM_RPC_URLS, base=…)',
  solana: 'this instance has no Solana JSON-RPC configured (SOLANA_RPC_URL)',
  index: 'this instance runs no block index (INDEX_CHAINS)',
  bazaar: 'this instance takes no Bazaar snapshots (BAZAAR_DISCOVERY_URLS=off)',
  operator: "this instance has no operator wallet to pay upstream x402 sellers with (OPERATOR_PAYER_PRIVATE_KEY, and an EVM network it is paid on)",
  gateway: "this instance has no operator wallet (OPERATOR_PAYER_PRIVATE_KEY) or no allowlisted upstream sellers (GATEWAY_SELLERS)",
  python: 'this instance has no Python sandbox (bubblewrap and Debian python3 with numpy, pandas and requests, able to start a sandbox; see the README, run_python)',
  'web-search': 'this instance has no web search provider configured (BRAVE_SEARCH_API_KEY or SEARXNG_URL)',
  'x-search': 'this instance has no X API token configured (X_BEARER_TOKEN)',
  lei: 'this instance has the GLEIF provider turned off (GLEIF_API_URL=off)',
  'crypto-prices': 'this instance has the CoinGecko provider turned off (COINGECKO_API_URL=off)',
  'people-data': 'this instance has no People Data Labs key configured (PDL_API_KEY)',
  'equity-quotes': 'this instance has no Alpha Vantage key configured (ALPHAVANTAGE_API_KEY)',
  'award-flights': 'this instance has no Seats.aero Partner API key configured (SEATS_AERO_API_KEY)',
  'company-filings': 'this instance has no SEC EDGAR contact configured (SEC_USER_AGENT: a name and an email, as SEC asks)',
};

/**
 * The declarations as sold on this instance: a product whose upstream is not configured is
 * unavailable. A product that takes a `chain` field is sold for the chains it can read only: with
 * `evm`, the EVM chains this instance reads (`evmChains`); with `index`, the chains it indexes
 * (`indexChains`). Another chain is refused before payment (422 `chain_not_configured`), so the
 * unpaid 402 already says so.
 */
export function withUpstreams(products: readonly Product[], configured: ReadonlySet<UpstreamProvider>, evmChains: readonly string[] = [], indexChains: readonly string[] = []): Product[] {
  return products.map((product) => {
    const missing = product.requires?.find((need) => !configured.has(need));
    if (product.status !== 'available') return product;
    if (!missing) {
      if (product.requires?.includes('index')) return forConfiguredChains(product, indexChains, 'indexed here', 'no chain is indexed here');
      return product.requires?.includes('evm') ? forConfiguredChains(product, evmChains, 'configured here', 'no EVM chain is configured here') : product;
    }
    const { run: _run, status: _status, ...declaration } = product;
    return unavailable({ ...declaration, reason: MISSING_UPSTREAM[missing] });
  });
}

/** The product with its `chain` field limited to `chains` (its published schema unchanged). */
function forConfiguredChains(product: AvailableProduct, chains: readonly string[], listed: string, none: string): AvailableProduct {
  const input = product.input;
  if (!(input instanceof z.ZodObject) || !('chain' in input.shape)) return product;
  const which = chains.length > 0 ? `${listed}: ${chains.join(', ')}` : none;
  const limited = input.superRefine((value, ctx) => {
    const chain = (value as { chain?: unknown }).chain;
    if (typeof chain === 'string' && !chains.includes(chain)) {
      ctx.addIssue({ code: 'custom', path: ['chain'], message: `chain ${chain} is not configured on this instance (${which})`, params: { status: 422, code: CHAIN_NOT_CONFIGURED } });
    }
  });
  return { ...product, input: limited };
}

/**
 * The catalogue: the single list every route, tool and discovery document is derived from.
 * Built once from the declarations; lookups are by HTTP path and by tool name.
 */
export class Catalogue {
  private readonly byPath = new Map<string, Product>();
  private readonly byTool = new Map<string, Product>();

  constructor(readonly products: readonly Product[]) {
    for (const product of products) {
      if (product.http) addUnique(this.byPath, product.http.path, product);
      if (product.mcp) addUnique(this.byTool, product.mcp.tool, product);
    }
  }

  /** Products on sale now: the only ones discovery documents list. */
  available(surface?: Surface): AvailableProduct[] {
    return this.products.filter(isAvailable).filter((p) => !surface || p[surface] !== undefined);
  }

  httpProducts(): Product[] {
    return this.products.filter((p) => p.http !== undefined);
  }

  byHttpPath(path: string): Product | undefined {
    return this.byPath.get(path);
  }

  byToolName(tool: string): Product | undefined {
    return this.byTool.get(tool);
  }
}

function addUnique(map: Map<string, Product>, key: string, product: Product): void {
  const existing = map.get(key);
  if (existing) throw new Error(`catalogue: ${key} declared by both ${existing.id} and ${product.id}`);
  map.set(key, product);
}
