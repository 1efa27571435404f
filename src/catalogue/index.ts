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
};

/**
 * The declarations as sold on this instance: a product whose upstream is not configured is
 * unavailable. A product that needs `evm` and takes a `chain` field is sold for `evmChains` (the EVM
 * chains this instance reads) only: another chain is refused before payment (422 `chain_not_configured`),
 * so the unpaid 402 already says so.
 */
export function withUpstreams(products: readonly Product[], configured: ReadonlySet<UpstreamProvider>, evmChains: readonly string[] = []): Product[] {
  return products.map((product) => {
    const missing = product.requires?.find((need) => !configured.has(need));
    if (product.status !== 'available') return product;
    if (!missing) return product.requires?.includes('evm') ? forConfiguredChains(product, evmChains) : product;
    const { run: _run, status: _status, ...declaration } = product;
    return unavailable({ ...declaration, reason: MISSING_UPSTREAM[missing] });
  });
}

/** The product with its `chain` field limited to the chains configured (its published schema unchanged). */
function forConfiguredChains(product: AvailableProduct, chains: readonly string[]): AvailableProduct {
  const input = product.input;
  if (!(input instanceof z.ZodObject) || !('chain' in input.shape)) return product;
  const which = chains.length > 0 ? `configured here: ${chains.join(', ')}` : 'no EVM chain is configured here';
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
