/**
 * Prices that depend on the input. A product declares `priceByInput: { field, prices }`: a call whose
 * (validated) input has `field` equal to one of the keys pays that price, any other call the
 * declared price. Each such price is a variant of the product with its own quote (the rail prices
 * every variant; its `priceTier` keys the quote), so the 402 of a request that names the dearer
 * value quotes the dearer price, and a payment signed for the cheaper quote matches none of the
 * dearer one's requirements: it does not buy the dearer call.
 */
import type { Product } from './types.ts';

const variants = new WeakMap<Product, Map<string, Product>>();

/** Every priced variant of a product (none when its price does not depend on the input). */
export function priceVariants<P extends Product>(product: P): P[] {
  return [...variantsOf(product).values()] as P[];
}

/** The product as priced for this validated input: its variant when `field` names one, else the product itself. */
export function pricedForInput<P extends Product>(product: P, input: unknown): P {
  const rule = product.priceByInput;
  if (!rule || product.priceTier !== undefined || input === null || typeof input !== 'object') return product;
  const value = (input as Record<string, unknown>)[rule.field];
  return typeof value === 'string' ? ((variantsOf(product).get(value) as P | undefined) ?? product) : product;
}

function variantsOf(product: Product): Map<string, Product> {
  let map = variants.get(product);
  if (map) return map;
  map = new Map();
  for (const [tier, price] of Object.entries(product.priceByInput?.prices ?? {})) map.set(tier, variant(product, tier, price));
  variants.set(product, map);
  return map;
}

/** The product sold as another price tier (its own quote) at these prices. */
function variant(product: Product, tier: string, price: { http: string; mcp: string }): Product {
  return {
    ...product,
    priceTier: tier,
    ...(product.http ? { http: { ...product.http, price: price.http } } : {}),
    ...(product.mcp ? { mcp: { ...product.mcp, price: price.mcp } } : {}),
  } as Product;
}

/** Dynamic prices kept per product (a product priced by an upstream's quote); past this, the oldest go. */
const MAX_QUOTED_VARIANTS = 256;
const quoted = new WeakMap<Product, Map<string, Product>>();

/**
 * The product sold at a price its `dynamicPrice` found for one call: a variant keyed `quote:<usd>`,
 * so the rail quotes it and matches payments against it like any priced variant; a payment signed for
 * another price matches none of its requirements.
 */
export function pricedAt<P extends Product>(product: P, usd: string): P {
  let map = quoted.get(product);
  if (!map) quoted.set(product, (map = new Map()));
  let priced = map.get(usd);
  if (!priced) {
    if (map.size >= MAX_QUOTED_VARIANTS) map.delete(map.keys().next().value!);
    priced = variant(product, `quote:${usd}`, { http: usd, mcp: usd });
    map.set(usd, priced);
  }
  return priced as P;
}
