import type { Hono } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { readPaymentPayload } from '../payments/payment-payload.ts';
import type { Catalogue } from '../catalogue/index.ts';
import { ProductInputError, type AvailableProduct } from '../catalogue/types.ts';
import { validate } from '../http/input.ts';
import { describeError, type Logger } from '../log.ts';
import { endpointKey, type PaymentGate } from '../payments/gate.ts';
import type { X402Rail } from '../payments/x402-rail.ts';
import type { Store } from '../store/types.ts';
import type { ProofVerifier } from '../identity/proof-request.ts';
import type { Origin, Telemetry } from '../telemetry/counters.ts';
import { originOf } from '../telemetry/geo.ts';
import { watchDelivery } from '../http/delivery.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import { searchTools, SEARCH_TOOLS } from './search-tools.ts';
import { FREE_TIER_META, MCP_MANIFEST_VERSION, PAYMENT_META, PAYMENT_RESPONSE_META, paidTools, protocolError, rethrowOnce, toolDefinition } from './tools.ts';
import { SIGN_IN_WITH_X, type FreeTierDoor } from '../payments/free-tier.ts';


export interface McpDeps {
  catalogue: Catalogue;
  proofs: ProofVerifier;
  freeTier: FreeTierDoor;
  /** Origin used in wallet-proof challenges; the request's origin when undefined. */
  publicBaseUrl?: string;
  trustedProxyHeader?: string;
  rail: X402Rail;
  gate: PaymentGate;
  store: Store;
  telemetry: Telemetry;
  log: Logger;
  serviceName: string;
  /** Per-client limits of proof requests and free-tier calls. */
  limiter: RateLimiter;
}

/**
 * The MCP door onto the catalogue at `/mcp`: streamable HTTP, stateless. Every request gets its own
 * server and transport, so any instance behind a load balancer can answer any request (no session
 * affinity, nothing to share). Paid tools follow the x402 MCP transport's tool-result binding: an
 * unpaid call returns `isError` with the `PaymentRequired` object; the retry carries the
 * `PaymentPayload` in `_meta["x402/payment"]` and goes through the same gate as HTTP.
 */
export function registerMcp(app: Hono, deps: McpDeps): void {
  app.all('/mcp', async (c) => {
    const categories = parseCategories(c.req.query('categories'));
    const origin = new URL(deps.publicBaseUrl ?? new URL(c.req.url).origin);
    const caller: Caller = { origin: originOf(c, deps.trustedProxyHeader), key: deps.limiter.client(c), served: [] };
    const server = buildServer(deps, categories, origin, caller);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(c.req.raw);
      // A paid result counts as delivered once the JSON-RPC response is written in full.
      for (const key of caller.served) watchDelivery(c, () => void deps.gate.undelivered(key));
      return response;
    } finally {
      await server.close();
    }
  });
}

/** Who calls: the country for telemetry, the client key for per-client limits. */
interface Caller {
  origin: Origin;
  key: string;
  /** Payment keys of the results served in this HTTP request, watched until they are written. */
  served: string[];
}

function parseCategories(raw: string | undefined): Set<string> | undefined {
  const list = raw?.split(',').map((s) => s.trim()).filter(Boolean);
  return list && list.length > 0 ? new Set(list) : undefined;
}

function buildServer(deps: McpDeps, categories: Set<string> | undefined, origin: URL, client: Caller): Server {
  const server = new Server(
    { name: deps.serviceName, version: MCP_MANIFEST_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: 'Paid tools take x402 payments in _meta["x402/payment"]; search_tools finds tools by need.' },
  );
  const tools = paidTools(deps.catalogue, categories);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [SEARCH_TOOLS, ...tools.map(toolDefinition)],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {}, _meta: meta } = request.params;
    if (name === SEARCH_TOOLS.name) return searchTools(deps.catalogue, args);
    const product = tools.find((p) => p.mcp!.tool === name);
    if (!product) throw protocolError(ErrorCode.InvalidParams, `unknown tool ${name}`);
    return callPaidTool(deps, product, args, meta ?? {}, origin, client).catch(rethrowOnce);
  });
  return server;
}

async function callPaidTool(
  deps: McpDeps,
  product: AvailableProduct,
  args: unknown,
  meta: Record<string, unknown>,
  origin: URL,
  client: Caller,
): Promise<CallToolResult> {
  const payment = meta[PAYMENT_META];
  const tool = product.mcp!.tool;
  const input = validate(product.input, args);
  if (!input.ok) {
    // Invalid arguments are a protocol error before any payment: nothing is signed in vain, nothing charged.
    throw new McpError(ErrorCode.InvalidParams, `invalid arguments for ${tool}: ${input.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
  if (!deps.rail.ready || !deps.store.healthy) return toolError('payment service unavailable: nothing was charged; retry later');

  if (!product.requiresProof) return paidTool(deps, product, input.value, meta, origin, client);
  // Same route-scoped proof as the HTTP route, over the same body (the tool's arguments). A paid call
  // holds the proof's nonce: spent only if it is served, given back otherwise.
  const route = `${product.http!.method} ${product.http!.path}`;
  const check = await deps.proofs.check(route, args, { hold: payment !== undefined });
  if (!check.ok) {
    const limited = await deps.limiter.take('proof', client.key);
    if (limited) return toolError(`too many proof requests from this client; retry after ${limited.headers.get('retry-after')} s`);
    const request = { ...(await deps.proofs.proofRequest(route, args, client.key)), error: check.reason };
    return { isError: true, structuredContent: request, content: [{ type: 'text', text: JSON.stringify(request) }] };
  }
  const held = payment !== undefined ? check.nonce : undefined;
  return deps.proofs.whileHeld(held, () => paidTool(deps, product, input.value, meta, origin, client), (result) => !result.isError);
}

/** A paid tool call once its arguments (and proof, if it needs one) passed: quote, free tier or gate. */
async function paidTool(deps: McpDeps, product: AvailableProduct, input: unknown, meta: Record<string, unknown>, origin: URL, client: Caller): Promise<CallToolResult> {
  const payment = meta[PAYMENT_META];
  const tool = product.mcp!.tool;
  const resourceUrl = `mcp://tool/${tool}`;
  const quote = (error: string) => {
    const required = deps.rail.paymentRequired(product, 'mcp', resourceUrl, error);
    // A free tier invites a wallet proof (Sign-In-With-X) beside the payment options.
    if (!product.freeTier) return required;
    return { ...required, extensions: { ...required.extensions, ...deps.freeTier.challenge(resourceUrl, origin, `${origin.origin}/mcp`) } };
  };
  if (payment === undefined) {
    const proof = meta[SIGN_IN_WITH_X];
    if (product.freeTier && proof !== undefined) {
      const limited = await deps.limiter.take('free', client.key);
      if (limited) return toolError(`too many free calls from this client; retry after ${limited.headers.get('retry-after')} s`);
      const free = await deps.freeTier.serve(product, input, proof, resourceUrl, origin);
      if (free.status === 'denied') return paymentRequired(quote(free.reason));
      if (free.status === 'product_failed') return productFailure(deps, tool, free.error);
      return {
        content: [{ type: 'text', text: JSON.stringify(free.output) }],
        ...(isObject(free.output) ? { structuredContent: free.output } : {}),
        _meta: { [FREE_TIER_META]: { wallet: free.wallet, ...(free.remaining !== undefined ? { remaining_today: free.remaining } : {}) } },
      };
    }
    deps.telemetry.challenge(endpointKey(product, 'mcp'), client.origin);
    return paymentRequired(quote('payment_required'));
  }
  const payload = readPaymentPayload(payment);
  if (!payload) {
    deps.telemetry.failure(endpointKey(product, 'mcp'), 'payment_processing_error', 'invalid_payment_payload', undefined);
    return paymentRequired(quote('invalid_payment_payload'));
  }

  const result = await deps.gate.execute({ product, surface: 'mcp', payload, resource: resourceUrl, input, origin: client.origin });
  switch (result.status) {
    case 'served':
      client.served.push(result.paymentKey);
      return {
        content: [{ type: 'text', text: JSON.stringify(result.output) }],
        ...(isObject(result.output) ? { structuredContent: result.output } : {}),
        _meta: { [PAYMENT_RESPONSE_META]: result.settlement },
      };
    case 'payment_failed':
      return paymentRequired(quote(result.failure.reason), result.settlement);
    case 'product_failed':
      return productFailure(deps, tool, result.error);
    case 'unavailable':
      return toolError(`${result.detail}. Nothing was charged; retry later`);
    case 'pending':
      return toolError('the settlement was submitted but not confirmed in time; no result was released. Retry the same payment later to collect the result once it is confirmed');
    case 'conflict':
      return toolError(`idempotency conflict: ${result.detail}; nothing was charged`);
  }
}

function productFailure(deps: McpDeps, tool: string, error: unknown): CallToolResult {
  if (error instanceof ProductInputError) return toolError(`${error.message}. Nothing was charged`);
  deps.log.error({ tool, err: describeError(error) }, 'tool failed');
  return toolError(`${tool} failed; nothing was charged`);
}

/** x402 MCP transport, tool-result binding: `structuredContent` and `content[0].text` carry the same object. */
function paymentRequired(required: PaymentRequired, settlement?: SettleResponse): CallToolResult {
  return {
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify(required) }],
    ...(settlement ? { _meta: { [PAYMENT_RESPONSE_META]: settlement } } : {}),
  };
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
