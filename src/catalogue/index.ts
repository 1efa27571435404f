import { unavailable, type AvailableProduct, type Product, type Surface, type UpstreamProvider } from '../products/kit/index.ts';

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
};

/** The declarations as sold on this instance: a product whose upstream is not configured is unavailable. */
export function withUpstreams(products: readonly Product[], configured: ReadonlySet<UpstreamProvider>): Product[] {
  return products.map((product) => {
    const missing = product.requires?.find((need) => !configured.has(need));
    if (!missing || product.status !== 'available') return product;
    const { run: _run, status: _status, ...declaration } = product;
    return unavailable({ ...declaration, reason: MISSING_UPSTREAM[missing] });
  });
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
