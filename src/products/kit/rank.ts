import type { AvailableProduct, Surface } from './types.ts';

export interface RankedProduct {
  product: AvailableProduct;
  score: number;
}

/** Field weights: a word in the tool name says more than one in its description. */
const WEIGHTS = { name: 4, title: 3, category: 2, description: 1 } as const;

/**
 * Ranks products on sale for a free-text need by weighted word overlap with their name, title,
 * category and description. Deterministic and explainable; ties keep catalogue order. In the kit
 * because both the catalogue's search and the routing products rank.
 */
export function rankProducts(products: readonly AvailableProduct[], query: string, surface?: Surface): RankedProduct[] {
  const terms = words(query);
  const ranked = products
    .filter((p) => !surface || p[surface] !== undefined)
    .map((product, index) => ({ product, index, score: terms.length === 0 ? 0 : score(product, surface, terms) }));
  const matched = terms.length === 0 ? ranked : ranked.filter((r) => r.score > 0);
  return matched.sort((a, b) => b.score - a.score || a.index - b.index).map(({ product, score }) => ({ product, score }));
}

function score(product: AvailableProduct, surface: Surface | undefined, terms: string[]): number {
  const names = surface ? [surface === 'mcp' ? product.mcp!.tool : product.http!.path] : [product.mcp?.tool ?? '', product.http?.path ?? ''];
  const fields = {
    name: words(`${names.join(' ')} ${product.id}`),
    title: words(product.title),
    category: words(product.category),
    description: words(product.description),
  };
  let total = 0;
  for (const term of terms) {
    for (const [field, weight] of Object.entries(WEIGHTS) as [keyof typeof WEIGHTS, number][]) {
      if (fields[field].some((w) => w === term || (term.length >= 4 && w.startsWith(term)))) total += weight;
    }
  }
  return total;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
}
