import type { Context, Hono } from 'hono';
import type { AvailableProduct, Surface } from '../catalogue/types.ts';
import { originOf } from '../telemetry/geo.ts';
import { parseJsonBody, readBodyLimited, validate } from './input.ts';
import { problemResponse, problems } from './problem.ts';
import { decodePayment, gateResponse, INVALID_PAYMENT_HEADER, paymentRequired, type PaidRouteDeps } from './paid-routes.ts';

/** Paths outside `/api/v1/paid/` that also sell: an order names the product in its body. */
export const ORDER_PATHS = ['/api/v1/orders', '/api/v1/purchase'] as const;

/**
 * Order doors: `POST /api/v1/orders` (and `/api/v1/purchase`) with JSON `{"product": <id or tool
 * name>, "input": {...}}` buys one call of any product on sale, at the price of its HTTP route (or
 * tool, for tool-only products), through the same gate, replay guard and ledger. They answer with
 * challenges like the paid routes and are counted under their own path.
 */
export function registerOrderRoutes(app: Hono, deps: PaidRouteDeps): void {
  for (const path of ORDER_PATHS) app.all(path, (c) => handleOrder(c, path, deps));
}

async function handleOrder(c: Context, path: string, deps: PaidRouteDeps): Promise<Response> {
  if (c.req.method !== 'POST') return problemResponse(problems.methodNotAllowed(c.req.method, ['POST']), { allow: 'POST' });
  const body = await readBodyLimited(c, deps.maxBodyBytes);
  if (!body.ok) return problemResponse(problems.tooLarge(deps.maxBodyBytes));
  const json = parseJsonBody(body.text);
  if (!json.ok) return problemResponse(problems.invalidInput(json.errors));
  const order = json.value as { product?: unknown; input?: unknown };
  const product = typeof order.product === 'string' ? findProduct(deps, order.product) : undefined;
  if (!product) {
    return problemResponse(problems.invalidInput([{ field: 'product', message: 'name a product on sale (its id or MCP tool name; see /.well-known/x402.json)' }]));
  }
  if (product.requiresProof) return problemResponse(problems.invalidInput([{ field: 'product', message: `${product.id} needs a route-scoped proof: call ${product.http!.path}` }]));
  if (!deps.rail.ready || !deps.store.healthy) return problemResponse(problems.serviceUnavailable('payments cannot be taken right now'), { 'retry-after': '5' });

  const surface: Surface = product.http ? 'http' : 'mcp';
  const endpoint = `POST ${path}`;
  // The order's resource names the product, so a payment for one product's order cannot buy another's.
  const resourceUrl = `${deps.publicBaseUrl ?? new URL(c.req.url).origin}${path}?product=${encodeURIComponent(product.id)}`;
  const input = validate(product.input, order.input ?? {});
  const quote = (error?: string) => deps.rail.encodedPaymentRequired(product, surface, resourceUrl, error);
  const paymentHeader = c.req.header('payment-signature') ?? c.req.header('x-payment');
  if (!paymentHeader) {
    deps.telemetry.challenge(endpoint, originOf(c, deps.trustedProxyHeader));
    const inputError = input.ok ? undefined : `invalid_input: ${input.errors.map((e) => `input.${e.field}: ${e.message}`).join('; ')}`;
    return paymentRequired(quote(inputError));
  }
  const payload = decodePayment(paymentHeader, endpoint, deps);
  if (!payload) return paymentRequired(quote(INVALID_PAYMENT_HEADER));
  if (!input.ok) return problemResponse(problems.invalidInput(input.errors.map((e) => ({ field: `input.${e.field}`, message: e.message }))));

  const result = await deps.gate.execute({ product, surface, payload, resource: resourceUrl, input: input.value, origin: originOf(c, deps.trustedProxyHeader), endpoint });
  return gateResponse(c, product, result, quote, deps);
}

function findProduct(deps: PaidRouteDeps, name: string): AvailableProduct | undefined {
  const product = deps.catalogue.products.find((p) => p.id === name) ?? deps.catalogue.byToolName(name);
  return product?.status === 'available' ? product : undefined;
}
