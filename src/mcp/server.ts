import type { Hono } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { readPaymentPayload } from '../payments/payment-payload.ts';
import type { Catalogue } from '../catalogue/index.ts';
import type { AvailableProduct } from '../catalogue/types.ts';
import type { Checkout } from '../checkout/checkout.ts';
import { problemBody, type Problem } from '../checkout/problems.ts';
import type { CheckoutResult, PresentedPayment } from '../checkout/types.ts';
import type { PaymentGate } from '../payments/gate.ts';
import type { Origin } from '../telemetry/counters.ts';
import { originOf } from '../telemetry/geo.ts';
import { deliveryReport, watchDelivery } from '../http/delivery.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import { searchTools, SEARCH_TOOLS } from './search-tools.ts';
import { FREE_TIER_META, MCP_MANIFEST_VERSION, PAYMENT_META, PAYMENT_RESPONSE_META, PROBLEM_META, paidTools, protocolError, rethrowOnce, toolDefinition } from './tools.ts';
import { SIGN_IN_WITH_X } from '../payments/free-tier.ts';

export interface McpDeps {
  catalogue: Catalogue;
  checkout: Checkout;
  gate: Pick<PaymentGate, 'delivered' | 'undelivered'>;
  /** Origin used in resource URLs and wallet-proof challenges; the request's origin when undefined. */
  publicBaseUrl?: string;
  trustedProxyHeader?: string;
  serviceName: string;
  /** Names clients for per-client limits. */
  limiter: Pick<RateLimiter, 'client'>;
}

/**
 * The MCP door onto the catalogue at `/mcp`: streamable HTTP, stateless. Every request gets its own
 * server and transport, so any instance behind a load balancer can answer any request (no session
 * affinity, nothing to share). Paid tools follow the x402 MCP transport's tool-result binding: an
 * unpaid call returns `isError` with the `PaymentRequired` object; the retry carries the
 * `PaymentPayload` in `_meta["x402/payment"]` and goes through the same checkout and gate as HTTP.
 */
export function registerMcp(app: Hono, deps: McpDeps): void {
  app.all('/mcp', async (c) => {
    const categories = parseCategories(c.req.query('categories'));
    const publicOrigin = deps.publicBaseUrl ?? new URL(c.req.url).origin;
    const caller: Caller = { origin: originOf(c, deps.trustedProxyHeader), key: deps.limiter.client(c), served: [] };
    const server = buildServer(deps, categories, publicOrigin, caller);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(c.req.raw);
      // A paid result counts as delivered once the JSON-RPC response is written in full.
      for (const key of caller.served) watchDelivery(c, deliveryReport(deps.gate, key));
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

function buildServer(deps: McpDeps, categories: Set<string> | undefined, publicOrigin: string, caller: Caller): Server {
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
    return callPaidTool(deps, product, args, meta ?? {}, publicOrigin, caller).catch(rethrowOnce);
  });
  return server;
}

/** A paid tool call: the call as the checkout reads it, the answer as a tool result. */
async function callPaidTool(deps: McpDeps, product: AvailableProduct, args: unknown, meta: Record<string, unknown>, publicOrigin: string, caller: Caller): Promise<CallToolResult> {
  const freeProof = meta[SIGN_IN_WITH_X];
  const result = await deps.checkout.decide({
    door: { kind: 'tool' },
    product,
    input: { kind: 'value', value: args },
    payment: paymentOf(meta[PAYMENT_META]),
    ...(freeProof !== undefined ? { freeClaim: { proof: freeProof } } : {}),
    publicOrigin,
    caller: { origin: () => caller.origin, key: () => caller.key },
  });
  return toolResult(result, product, caller);
}

/** The x402 MCP transport's payment: the PaymentPayload in `_meta["x402/payment"]`. */
function paymentOf(payment: unknown): PresentedPayment {
  if (payment === undefined) return {};
  const payload = readPaymentPayload(payment);
  return { x402: payload ? { payload } : { malformed: 'invalid_payment_payload' } };
}

/**
 * The MCP encoding of a checkout result. Problems keep their text and also carry the problem document
 * HTTP callers get (code, status, fields) in `_meta["percall/problem"]`, where the output schema does
 * not apply; invalid arguments are a JSON-RPC invalid-params error with that document as its `data`.
 */
function toolResult(result: CheckoutResult, product: AvailableProduct, caller: Caller): CallToolResult {
  switch (result.kind) {
    case 'quote':
      return paymentRequired(result.quote.terms(), result.settlement);
    case 'problem':
      if (result.problem.code === 'invalid-input') {
        throw protocolError(ErrorCode.InvalidParams, `invalid arguments for ${product.mcp!.tool}: ${result.problem.detail}`, problemBody(result.problem));
      }
      return toolError(result.message, result.problem, result.retryAfter);
    case 'proof_required':
      return { isError: true, structuredContent: { ...result.request }, content: [{ type: 'text', text: JSON.stringify(result.request) }] };
    case 'mpp_problem': {
      // Tools take no MPP; a rail problem would still read as one.
      const { status, type, title, detail } = result.problem;
      return toolError(detail, { status, code: type.slice(type.lastIndexOf('/') + 1), title, detail });
    }
    case 'served':
      if (result.paymentKey !== undefined) caller.served.push(result.paymentKey);
      return { ...outputResult(result.output), _meta: { [PAYMENT_RESPONSE_META]: result.settlement } };
    case 'free':
      return { ...outputResult(result.output), _meta: { [FREE_TIER_META]: { wallet: result.wallet, ...(result.remaining !== undefined ? { remaining_today: result.remaining } : {}) } } };
  }
}

function outputResult(output: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(output) }], ...(isObject(output) ? { structuredContent: output } : {}) };
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

function toolError(message: string, problem: Problem, retryAfter?: number): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [PROBLEM_META]: { ...problemBody(problem), ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}) } },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
