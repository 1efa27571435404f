import type { Hono } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
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
import { searchTools, SEARCH_TOOLS } from './search-tools.ts';
import { FREE_TIER_META, MCP_MANIFEST_VERSION, PAYMENT_META, PAYMENT_RESPONSE_META, paidTools, toolDefinition } from './tools.ts';
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
    const server = buildServer(deps, categories, origin, originOf(c, deps.trustedProxyHeader));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
}

function parseCategories(raw: string | undefined): Set<string> | undefined {
  const list = raw?.split(',').map((s) => s.trim()).filter(Boolean);
  return list && list.length > 0 ? new Set(list) : undefined;
}

function buildServer(deps: McpDeps, categories: Set<string> | undefined, origin: URL, client: Origin): Server {
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
    if (!product) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
    return callPaidTool(deps, product, args, meta ?? {}, origin, client);
  });
  return server;
}

async function callPaidTool(
  deps: McpDeps,
  product: AvailableProduct,
  args: unknown,
  meta: Record<string, unknown>,
  origin: URL,
  client: Origin,
): Promise<CallToolResult> {
  const payment = meta[PAYMENT_META];
  const tool = product.mcp!.tool;
  const input = validate(product.input, args);
  if (!input.ok) {
    // Invalid arguments are a protocol error before any payment: nothing is signed in vain, nothing charged.
    throw new McpError(ErrorCode.InvalidParams, `invalid arguments for ${tool}: ${input.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
  if (!deps.rail.ready || !deps.store.healthy) return toolError('payment service unavailable: nothing was charged; retry later');

  if (product.requiresProof) {
    // Same route-scoped proof as the HTTP route, over the same body (the tool's arguments).
    const route = `${product.http!.method} ${product.http!.path}`;
    const check = await deps.proofs.check(route, args, { consume: payment !== undefined });
    if (!check.ok) {
      const request = { ...(await deps.proofs.proofRequest(route, args)), error: check.reason };
      return { isError: true, structuredContent: request, content: [{ type: 'text', text: JSON.stringify(request) }] };
    }
  }
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
      const free = await deps.freeTier.serve(product, input.value, proof, resourceUrl, origin);
      if (free.status === 'denied') return paymentRequired(quote(free.reason));
      if (free.status === 'product_failed') return productFailure(deps, tool, free.error);
      return {
        content: [{ type: 'text', text: JSON.stringify(free.output) }],
        ...(isObject(free.output) ? { structuredContent: free.output } : {}),
        _meta: { [FREE_TIER_META]: { wallet: free.wallet, ...(free.remaining !== undefined ? { remaining_today: free.remaining } : {}) } },
      };
    }
    deps.telemetry.challenge(endpointKey(product, 'mcp'), client);
    return paymentRequired(quote('payment_required'));
  }
  if (!isPaymentPayload(payment)) {
    deps.telemetry.failure(endpointKey(product, 'mcp'), 'payment_processing_error', 'invalid_payment_payload', undefined);
    return paymentRequired(quote('invalid_payment_payload'));
  }

  const result = await deps.gate.execute({ product, surface: 'mcp', payload: payment, resource: resourceUrl, input: input.value, origin: client });
  switch (result.status) {
    case 'served':
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

function isPaymentPayload(value: unknown): value is PaymentPayload {
  const p = value as PaymentPayload;
  return isObject(p) && typeof p.x402Version === 'number' && isObject(p.accepted) && isObject(p.payload);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
