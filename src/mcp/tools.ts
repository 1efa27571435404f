import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalogue } from '../catalogue/index.ts';
import { inputJsonSchema, outputJsonSchema, type JsonSchema } from '../catalogue/json-schema.ts';
import type { AvailableProduct } from '../catalogue/types.ts';

/** Version of the tool manifest (the service description fixes it). */
export { MCP_MANIFEST_VERSION } from '../version.ts';

/** x402 MCP transport metadata keys. */
export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';
/** On a free-tier result: the wallet that proved itself and its free calls left today. */
export const FREE_TIER_META = 'percall/free-tier';
/** On a plain-text tool error: the problem document an HTTP caller gets (code, status, fields), plus `retry_after` seconds. */
export const PROBLEM_META = 'percall/problem';

/**
 * A JSON-RPC error to throw from a request handler. The SDK sends a thrown error's `code` and
 * `message` as they are, and the client wraps them in its own `McpError`, whose message reads
 * "MCP error <code>: <message>". An `McpError` thrown here already carries that prefix in its message,
 * so the caller would read it twice; a plain `Error` with a `code` is prefixed once.
 */
export function protocolError(code: number, message: string, data?: unknown): Error & { code: number; data?: unknown } {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
}

/** Rethrows an `McpError` as a `protocolError` (its message without the prefix), anything else as it is. */
export function rethrowOnce(error: unknown): never {
  if (!(error instanceof McpError)) throw error;
  const prefix = `MCP error ${error.code}: `;
  throw protocolError(error.code, error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message, error.data);
}

/** Paid tools on sale, in catalogue order, optionally restricted to some categories. */
export function paidTools(catalogue: Catalogue, categories?: Set<string>): AvailableProduct[] {
  return catalogue.available('mcp').filter((p) => !categories || categories.has(p.category));
}

/** How a paid tool presents itself: its price is in the description, the schemas are the catalogue's (the output one also admits the error results, see below). */
export function toolDefinition(product: AvailableProduct): Tool {
  const mcp = product.mcp!;
  const output = outputJsonSchema(product);
  return {
    name: mcp.tool,
    title: product.title,
    description: `${product.description} Price: ${mcp.price} USD per call, paid in USDC over x402 (send the PaymentPayload in _meta["${PAYMENT_META}"]).${freeTierNote(product)}`,
    inputSchema: objectSchema(inputJsonSchema(product)),
    ...(output && output.type === 'object' ? { outputSchema: toolOutputSchema(output, product) } : {}),
    ...(mcp.annotations ? { annotations: mcp.annotations } : {}),
    _meta: { 'percall/price': { usd: mcp.price, mode: product.mode.kind }, 'percall/category': product.category },
  };
}

function freeTierNote(product: AvailableProduct): string {
  const tier = product.freeTier;
  if (!tier) return '';
  const quota = tier.perWalletPerDay === undefined ? '' : ` ${tier.perWalletPerDay} per wallet per day;`;
  return ` Free tier:${quota} ${tier.note}. Prove your wallet with the 402's sign-in-with-x challenge, sent back in _meta["sign-in-with-x"].`;
}

/** MCP requires an object schema; a record schema (echo) is one, anything else is wrapped as such. */
function objectSchema(schema: Record<string, unknown>): Tool['inputSchema'] {
  return (schema.type === 'object' ? schema : { type: 'object', properties: {} }) as Tool['inputSchema'];
}

/*
 * Why a paid tool's output schema admits its error results: the x402 MCP transport answers an unpaid
 * call or a failed payment with `isError: true` and `PaymentRequired` in `structuredContent` (and in
 * `content[0].text`), a proof-gated tool an unproven call with its PROOF-REQUEST the same way; the
 * official SDK `Client` (1.x, also under `@x402/mcp`) validates `structuredContent` against the
 * `outputSchema` it kept from `tools/list` even on `isError` results (typescript-sdk #1943, #2748), so
 * after listing, the payment terms threw -32602. The schema is therefore `{ type: 'object', anyOf:
 * [product output, PaymentRequired, PROOF-REQUEST if proof-gated] }`: still an object schema as MCP
 * requires, every result we send matches it, and the wire is unchanged for x402 MCP clients. Not
 * chosen: dropping `outputSchema` (loses the typed contract), omitting `structuredContent` on errors
 * (the transport requires it), the `org.x402/payment` extension binding (MCP 2026-07-28 only; SDK 1.x
 * clients never advertise it, so it cannot help them). Plain-text tool errors need nothing: the
 * client neither requires nor validates `structuredContent` when `isError` is set and none is sent,
 * so their problem document goes in `_meta` (PROBLEM_META), which no output schema constrains.
 */
function toolOutputSchema(output: JsonSchema, product: AvailableProduct): Tool['outputSchema'] {
  // Local references (`#/$defs/...`) resolve against the document root: keep the definitions there.
  const { $defs, definitions, ...success } = output;
  return {
    type: 'object',
    ...($defs ? { $defs } : {}),
    ...(definitions ? { definitions } : {}),
    anyOf: [success, PAYMENT_REQUIRED_SCHEMA, ...(product.requiresProof ? [PROOF_REQUEST_SCHEMA] : [])],
  } as Tool['outputSchema'];
}

/** x402 v2 `PaymentRequired`, as loose as the protocol allows: what matters is that it is recognisable. */
export const PAYMENT_REQUIRED_SCHEMA: JsonSchema = {
  title: 'PaymentRequired',
  description: 'x402 v2 payment terms, sent with isError: true when the call was not paid or its payment failed (error names why)',
  type: 'object',
  properties: {
    x402Version: { const: 2 },
    error: { type: 'string' },
    resource: { type: 'object', properties: { url: { type: 'string' }, description: { type: 'string' }, mimeType: { type: 'string' } }, required: ['url'] },
    accepts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          scheme: { type: 'string' },
          network: { type: 'string' },
          amount: { type: 'string' },
          asset: { type: 'string' },
          payTo: { type: 'string' },
          maxTimeoutSeconds: { type: 'number' },
        },
        required: ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'],
      },
    },
    extensions: { type: 'object' },
  },
  required: ['x402Version', 'resource', 'accepts'],
};

/** The PROOF-REQUEST document of a proof-gated tool, sent with isError: true to an unproven call. */
export const PROOF_REQUEST_SCHEMA: JsonSchema = {
  title: 'ProofRequest',
  description: 'Route-scoped proof request, sent with isError: true when the call carries no valid proof (error names why)',
  type: 'object',
  properties: {
    type: { const: 'PROOF-REQUEST' },
    route: { type: 'string' },
    audience: { type: 'string' },
    nonce: { type: 'string' },
    required_claims: { type: 'array', items: { type: 'string' } },
    request_hash: { type: 'string' },
    expires_at: { type: 'string' },
    error: { type: 'string' },
  },
  required: ['type', 'route', 'audience', 'nonce', 'required_claims', 'request_hash'],
};
