/**
 * Routing, shared by route-task, agent-route and mpp-route: which of the tools on sale best fits a
 * task. The ranking is the catalogue's own word-overlap search (the kit's rankProducts over
 * `ctx.catalogue`), so every recommendation is a tool a caller can call right now, with its real
 * price. A free call returns fewer results than a paid one. Nothing is fetched: every well-formed
 * task is answered and charged, an empty list when nothing on sale fits (or nothing fits
 * `max_price`); a task with no words is refused by the input schema.
 */
import { z } from 'zod';
import { rankProducts, usdAmount, type AvailableProduct, type ProductContext } from '../kit/index.ts';
import { usdToAtomic } from '../../money.ts';

export const routeInput = z.object({
  task: z
    .string()
    .min(1)
    .max(2000)
    .regex(/[\p{L}\p{N}]/u, 'must name the task in words')
    .describe('What the agent needs done, in plain language'),
  max_price: usdAmount().optional().describe('Most USD per call the agent will pay, as a decimal string'),
});

const recommendation = z.object({
  rank: z.int(),
  id: z.string(),
  title: z.string(),
  category: z.string(),
  description: z.string(),
  score: z.number(),
  http: z.object({ method: z.string(), path: z.string(), price_usd: z.string() }).optional(),
  mcp: z.object({ tool: z.string(), price_usd: z.string() }).optional(),
});

export const routeOutput = z.object({
  task: z.string(),
  tier: z.enum(['paid', 'free']),
  limit: z.int().describe('Most recommendations this call returns (fewer on a free call)'),
  count: z.int(),
  recommendations: z.array(recommendation),
  note: z.string().optional().describe('Present when nothing on sale fits'),
});

export const routeExample = { task: 'current server time', max_price: '0.05' };
export const routeOutputExample = {
  task: 'current server time',
  tier: 'paid',
  limit: 3,
  count: 1,
  recommendations: [
    {
      rank: 1,
      id: 'time',
      title: 'Server time',
      category: 'utility',
      description: 'Returns the current server time as an ISO 8601 UTC string (`time`) and as Unix epoch seconds (`unix`).',
      score: 9,
      http: { method: 'GET', path: '/api/v1/paid/time', price_usd: '0.01' },
      mcp: { tool: 'server_time', price_usd: '0.01' },
    },
  ],
};

/** Free calls of the routing products return the single best match. */
export const ROUTE_FREE_RESULTS = 1;
const PAID_RESULTS = 3;
const ROUTING_PRODUCTS = new Set(['route-task', 'agent-route', 'mpp-route']);

export function routeTask(freeResults: number) {
  return async (input: z.output<typeof routeInput>, ctx: ProductContext): Promise<z.infer<typeof routeOutput>> => {
    const ceiling = input.max_price === undefined ? undefined : usdToAtomic(input.max_price);
    const candidates = ctx.catalogue.filter((p) => !ROUTING_PRODUCTS.has(p.id) && (ceiling === undefined || cheapest(p) <= ceiling));
    const limit = ctx.tier === 'free' ? freeResults : PAID_RESULTS;
    const recommendations = rankProducts(candidates, input.task)
      .filter((r) => r.score > 0)
      .slice(0, limit)
      .map(({ product, score }, i) => recommend(product, score, i + 1));
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

function recommend(product: AvailableProduct, score: number, rank: number): z.infer<typeof recommendation> {
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
