/**
 * Routing products (route_task, agent_route, mpp_route): which of the tools on sale best fits a task.
 * The ranking is the catalogue's own word-overlap search, so every recommendation is a tool a caller
 * can call right now, with its real price. A free call returns fewer results than a paid one.
 * Nothing is fetched: every well-formed task is answered and charged, an empty list when nothing on
 * sale fits (or nothing fits `max_price`); a task with no words is refused by the input schema.
 */
import { rankProducts } from '../catalogue/search.ts';
import type { AvailableProduct, ProductContext } from '../catalogue/types.ts';
import { usdToAtomic } from '../money.ts';

export interface RouteInput {
  task: string;
  max_price?: string;
}

export interface Recommendation {
  rank: number;
  id: string;
  title: string;
  category: string;
  description: string;
  score: number;
  http?: { method: string; path: string; price_usd: string };
  mcp?: { tool: string; price_usd: string };
}

const ROUTING_PRODUCTS = new Set(['route-task', 'agent-route', 'mpp-route']);
const PAID_RESULTS = 3;

export function routeTask(freeResults: number) {
  return async (input: RouteInput, ctx: ProductContext) => {
    const ceiling = input.max_price === undefined ? undefined : usdToAtomic(input.max_price);
    const candidates = ctx.catalogue.filter((p) => !ROUTING_PRODUCTS.has(p.id) && (ceiling === undefined || cheapest(p) <= ceiling));
    const limit = ctx.tier === 'free' ? freeResults : PAID_RESULTS;
    const recommendations = rankProducts(candidates, input.task)
      .filter((r) => r.score > 0)
      .slice(0, limit)
      .map(({ product, score }, i) => recommendation(product, score, i + 1));
    return {
      task: input.task,
      tier: ctx.tier,
      limit,
      count: recommendations.length,
      recommendations,
      ...(recommendations.length === 0 ? { note: 'no tool on sale matches this task' } : {}),
    };
  };
}

function cheapest(product: AvailableProduct): bigint {
  const prices = [product.http?.price, product.mcp?.price].filter((p): p is string => p !== undefined).map(usdToAtomic);
  return prices.reduce((a, b) => (b < a ? b : a));
}

function recommendation(product: AvailableProduct, score: number, rank: number): Recommendation {
  return {
    rank,
    id: product.id,
    title: product.title,
    category: product.category,
    description: product.description,
    score,
    ...(product.http ? { http: { method: product.http.method, path: product.http.path, price_usd: product.http.price } } : {}),
    ...(product.mcp ? { mcp: { tool: product.mcp.tool, price_usd: product.mcp.price } } : {}),
  };
}
