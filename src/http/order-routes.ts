import type { Context, Hono } from 'hono';
import { parseJsonBody, readBodyLimited } from './input.ts';
import { httpAnswer } from './paid-response.ts';
import { callerOf, x402PaymentOf, type PaidRouteDeps } from './paid-routes.ts';
import { problemResponse, problems } from './problem.ts';

/** Paths outside `/api/v1/paid/` that also sell: an order names the product in its body. */
export const ORDER_PATHS = ['/api/v1/orders', '/api/v1/purchase'] as const;

/**
 * Order doors: `POST /api/v1/orders` (and `/api/v1/purchase`) with JSON `{"product": <id or tool
 * name>, "input": {...}}` buys one call of any product on sale, at the price of its HTTP route (or
 * tool, for tool-only products), through the same checkout, gate, replay guard and ledger. They answer
 * with challenges like the paid routes and are counted under their own path.
 */
export function registerOrderRoutes(app: Hono, deps: PaidRouteDeps): void {
  for (const path of ORDER_PATHS) app.all(path, (c) => handleOrder(c, path, deps));
}

async function handleOrder(c: Context, path: string, deps: PaidRouteDeps): Promise<Response> {
  // The order's envelope is this door's own format; what it orders goes to the checkout.
  if (c.req.method !== 'POST') return problemResponse(problems.methodNotAllowed(c.req.method, ['POST']), { allow: 'POST' });
  const body = await readBodyLimited(c, deps.maxBodyBytes);
  if (!body.ok) return problemResponse(problems.tooLarge(deps.maxBodyBytes));
  const json = parseJsonBody(body.text);
  if (!json.ok) return problemResponse(problems.invalidInput(json.errors));
  const order = (typeof json.value === 'object' && json.value !== null ? json.value : {}) as { product?: unknown; input?: unknown };
  const result = await deps.checkout.decide({
    door: { kind: 'order', path },
    product: { named: order.product },
    method: 'POST',
    input: { kind: 'value', value: order.input ?? {}, at: 'input' },
    payment: x402PaymentOf(c),
    publicOrigin: deps.publicBaseUrl ?? new URL(c.req.url).origin,
    caller: callerOf(c, deps),
  });
  return httpAnswer(c, result, deps);
}
