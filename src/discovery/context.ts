import type { Catalogue } from '../catalogue/index.ts';
import { priceFor } from '../catalogue/index.ts';
import { priceVariants } from '../products/kit/price-by-input.ts';
import type { InferenceModel } from '../catalogue/models.ts';
import type { AvailableProduct, Surface } from '../catalogue/types.ts';
import { usdToAtomic } from '../money.ts';
import type { PaymentRequirements } from '@x402/core/types';
import type { ExcludedOffer, PaymentOffer } from '../payments/x402-rail.ts';

/** Everything the free discovery documents are derived from. */
export interface DiscoveryContext {
  /** Public origin of the API, no trailing slash (e.g. `https://api.example.com`). */
  baseUrl: string;
  /** Public origin of the main site that serves identity and discovery documents, no trailing slash. */
  siteUrl: string;
  serviceName: string;
  /** Package version of the running service. */
  version: string;
  catalogue: Catalogue;
  /** The ways to pay this instance is configured with (network, token, recipient). */
  offers: PaymentOffer[];
  /** What the payment rail actually quotes for a product on a surface: the 402's `accepts`. */
  accepts(product: AvailableProduct, surface: Surface): PaymentRequirements[];
  /** Configured networks a product does not offer, and why (e.g. its price is below the network's minimum). */
  excluded?(product: AvailableProduct, surface: Surface): ExcludedOffer[];
  /** The 402's `extensions.bazaar` block of a product on a surface (published again in /discovery/resources). */
  bazaarExtension?(product: AvailableProduct, surface: Surface): Record<string, unknown> | undefined;
  /** The MPP rail, when this instance offers it: its payment methods and which products take it. */
  mpp?: { methods: string[]; accepts(product: AvailableProduct, surface: Surface): boolean };
  models: readonly InferenceModel[];
  startedAt: Date;
  /** analytics-query's saved queries as last read (`version` changes with them), for llms-full.txt. */
  savedQueries?: () => { version: number; queries: readonly { id: number; name: string; description: string; sql: string }[] };
  /** Operator of the service, published in the agent card only when configured. */
  provider?: { organization: string; url: string };
}

/** The x402 protocol version every document describes. */
export const X402_VERSION = 2;

/** Document version of the OpenAPI description (the service description fixes it). */
export const OPENAPI_DOCUMENT_VERSION = '2.0.0';

export const SERVICE_SUMMARY =
  'Pay-per-call HTTP API and MCP server for machines: data, analytics, web extraction, research and inference, each call paid in USDC over x402 v2. No accounts, no API keys.';

/** One way a product can be paid for: a scheme on a network with an asset and a recipient. */
export interface PaymentAccept {
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  /** Atomic USDC units quoted in the 402. */
  amount: string;
  maxTimeoutSeconds: number;
}

/** The price and payment options of one product on one surface, described once for every document. */
export interface PaymentTerms {
  /** USD per call, decimal string as declared ("0.01"). */
  price: string;
  /** Atomic USDC units (1 USD = 1,000,000), decimal string ("10000"). */
  amount: string;
  mode: 'fixed' | 'upto';
  /** `upto` only: USD the caller may authorize at most. */
  maximumAuthorization?: string;
  /** `upto` only: `maximumAuthorization` in atomic USDC units. */
  maximumAuthorizationAmount?: string;
  /** CAIP-2 networks the payment is accepted on (only rails this instance actually offers). */
  networks: string[];
  /** Token contract of the first accepted offer (USDC); see `accepts` for every network. */
  asset?: string;
  /** Recipient of the first accepted offer; see `accepts` for every network. */
  payTo?: string;
  /** x402 schemes offered, e.g. ["exact"]. */
  schemes: string[];
  /** Payment rails offered for this product, e.g. ["x402", "mpp"]. */
  rails: string[];
  accepts: PaymentAccept[];
  /** Configured networks this product is not offered on, with the reason. */
  excludedNetworks?: ExcludedOffer[];
  /**
   * Prices that depend on the input (kit/price-by-input.ts): a call whose `field` equals `value` is
   * quoted `price` with these `accepts` instead of the price above; a payment for one does not buy the other.
   */
  pricesByInput?: PriceByInput[];
}

/** One input-dependent price of a product on a surface. */
export interface PriceByInput {
  field: string;
  value: string;
  price: string;
  amount: string;
  accepts: PaymentAccept[];
}

/**
 * Pricing of a product on a surface: the declared price and mode, and the options the payment rail
 * actually quotes in its 402 (so every document says exactly what a caller will be offered).
 */
export function paymentTerms(product: AvailableProduct, surface: Surface, ctx: DiscoveryContext): PaymentTerms {
  const price = priceFor(product, surface);
  const amount = usdToAtomic(price).toString();
  const accepts = acceptsOf(product, surface, ctx);
  const first = accepts[0];
  const terms: PaymentTerms = {
    price,
    amount,
    mode: product.mode.kind,
    networks: unique(accepts.map((a) => a.network)),
    schemes: unique(accepts.map((a) => a.scheme)),
    rails: [...(accepts.length > 0 ? ['x402'] : []), ...(ctx.mpp?.accepts(product, surface) ? ['mpp'] : [])],
    accepts,
  };
  const excluded = ctx.excluded?.(product, surface) ?? [];
  if (excluded.length > 0) terms.excludedNetworks = excluded;
  if (product.mode.kind === 'upto') {
    terms.maximumAuthorization = product.mode.maximumAuthorization;
    terms.maximumAuthorizationAmount = usdToAtomic(product.mode.maximumAuthorization).toString();
  }
  if (first) {
    terms.asset = first.asset;
    terms.payTo = first.payTo;
  }
  const variants = priceVariants(product).filter((v) => v[surface]);
  if (product.priceByInput && variants.length > 0) {
    const field = product.priceByInput.field;
    terms.pricesByInput = variants.map((v) => {
      const variantPrice = priceFor(v, surface);
      return { field, value: v.priceTier!, price: variantPrice, amount: usdToAtomic(variantPrice).toString(), accepts: acceptsOf(v, surface, ctx) };
    });
  }
  return terms;
}

function acceptsOf(product: AvailableProduct, surface: Surface, ctx: DiscoveryContext): PaymentAccept[] {
  return ctx.accepts(product, surface).map((r) => ({
    scheme: r.scheme,
    network: r.network,
    asset: r.asset,
    payTo: r.payTo,
    amount: r.amount,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
  }));
}

/** "0.01 USD", or "0.01 USD (mode upto, maximum 1.00 USD)" for `upto` products. */
export function describePrice(terms: PaymentTerms): string {
  const base =
    terms.mode === 'upto' && terms.maximumAuthorization ? `${terms.price} USD (mode upto, maximum ${terms.maximumAuthorization} USD)` : `${terms.price} USD`;
  const byInput = (terms.pricesByInput ?? []).map((v) => `${v.price} USD when \`${v.field}\` is \`${v.value}\``);
  return byInput.length > 0 ? `${base} (${byInput.join('; ')})` : base;
}

/** Networks offered by this instance, in offer order. */
export function offeredNetworks(ctx: DiscoveryContext): string[] {
  return unique(ctx.offers.map((o) => o.network));
}

export { inputJsonSchema, outputJsonSchema, type JsonSchema } from '../catalogue/json-schema.ts';

/** The MCP endpoint (streamable HTTP). */
export function mcpUrl(ctx: DiscoveryContext): string {
  return `${ctx.baseUrl}/mcp`;
}

/** Where each discovery document is published (the service description puts some on the site host). */
export function documentUrls(ctx: DiscoveryContext) {
  return {
    openapi: `${ctx.siteUrl}/openapi.json`,
    x402: `${ctx.siteUrl}/.well-known/x402.json`,
    agentCard: `${ctx.baseUrl}/.well-known/agent-card.json`,
    agentJson: `${ctx.baseUrl}/.well-known/agent.json`,
    llms: `${ctx.baseUrl}/llms.txt`,
    llmsFull: `${ctx.baseUrl}/llms-full.txt`,
    models: `${ctx.baseUrl}/api/v1/models`,
    health: `${ctx.baseUrl}/health`,
    mcp: mcpUrl(ctx),
  };
}

export interface FreeEndpoint {
  method: 'GET';
  path: string;
  /** operationId in the OpenAPI document. */
  operationId: string;
  summary: string;
  contentType: 'application/json' | 'text/plain' | 'text/markdown';
}

/** The free endpoints this service serves itself (see http/free-routes.ts). */
export const FREE_ENDPOINTS: readonly FreeEndpoint[] = [
  { method: 'GET', path: '/health', operationId: 'getHealth', summary: 'Liveness: `status` and `uptime` in seconds', contentType: 'application/json' },
  { method: 'GET', path: '/api/v1/models', operationId: 'listModels', summary: 'The inference model catalogue: `models` and `count`', contentType: 'application/json' },
  { method: 'GET', path: '/llms.txt', operationId: 'getLlmsTxt', summary: 'Markdown discovery document for language models', contentType: 'text/plain' },
  { method: 'GET', path: '/llms-full.txt', operationId: 'getLlmsFullTxt', summary: 'Full Markdown documentation: every product with schemas, examples and prices', contentType: 'text/plain' },
  { method: 'GET', path: '/openapi.json', operationId: 'getOpenApi', summary: 'This OpenAPI 3.1 description', contentType: 'application/json' },
  { method: 'GET', path: '/.well-known/agent.json', operationId: 'getAgentJson', summary: 'Agent card (A2A style)', contentType: 'application/json' },
  { method: 'GET', path: '/.well-known/agent-card.json', operationId: 'getAgentCard', summary: 'Agent card (A2A style), same document as /.well-known/agent.json', contentType: 'application/json' },
  { method: 'GET', path: '/discovery/resources', operationId: 'listDiscoveryResources', summary: "This instance's catalogue as an x402 Bazaar discovery list (`x402Version`, `items`, `pagination`; query `type`, `payTo`, `scheme`, `network`, `extensions`, `limit`, `offset`)", contentType: 'application/json' },
  { method: 'GET', path: '/.well-known/x402.json', operationId: 'getX402Catalogue', summary: 'x402 payment catalogue: every paid route and tool with its price and payment options', contentType: 'application/json' },
  { method: 'GET', path: '/.well-known/oauth-authorization-server', operationId: 'getAuthorizationServerMetadata', summary: 'OAuth authorization server metadata (RFC 8414) with the agent_auth block of the optional anonymous identity', contentType: 'application/json' },
  { method: 'GET', path: '/.well-known/oauth-protected-resource', operationId: 'getProtectedResourceMetadata', summary: 'OAuth protected resource metadata (RFC 9728)', contentType: 'application/json' },
  { method: 'GET', path: '/.well-known/jwks.json', operationId: 'getJwks', summary: 'Public ES256 keys that sign identity assertions and access tokens', contentType: 'application/json' },
  { method: 'GET', path: '/agent/auth.md', operationId: 'getAuthGuide', summary: 'Authentication guide for agents: anonymous identity, tokens, route-scoped proofs', contentType: 'text/markdown' },
];

/** Collapses whitespace so a description fits on one Markdown line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
