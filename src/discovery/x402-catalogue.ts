import type { AvailableProduct, Surface } from '../catalogue/types.ts';
import { USDC_DECIMALS, atomicToUsd } from '../money.ts';
import {
  SERVICE_SUMMARY,
  X402_VERSION,
  documentUrls,
  inputJsonSchema,
  offeredNetworks,
  outputJsonSchema,
  paymentTerms,
  type DiscoveryContext,
  type JsonSchema,
  type PaymentTerms,
} from './context.ts';

/** Price and payment options shared by resources and tools: the product's payment terms plus what it is. */
interface PricedEntry extends PaymentTerms {
  id: string;
  title: string;
  description: string;
  category: string;
  currency: 'USD';
  mimeType: 'application/json';
  inputSchema: JsonSchema;
  inputExample?: Record<string, unknown>;
  outputSchema?: JsonSchema;
  outputExample?: unknown;
}

export interface X402Resource extends PricedEntry {
  method: 'GET' | 'POST';
  path: string;
  url: string;
  /** The MCP tool selling the same product, if any (its price is in `tools`). */
  tool?: string;
}

export interface X402Tool extends PricedEntry {
  name: string;
  /** MCP endpoint (streamable HTTP). */
  url: string;
  transport: 'streamable-http';
  /** The HTTP route selling the same product, if any (its price is in `resources`). */
  http?: { method: 'GET' | 'POST'; path: string };
}

export interface X402Catalogue {
  x402Version: number;
  service: { name: string; version: string; description: string; documentation: string; openapi: string; mcp: string };
  baseUrl: string;
  updatedAt: string;
  payTo?: string;
  asset?: string;
  networks: string[];
  assets: X402Asset[];
  /** Why some routes do not offer every network: the facilitator's smallest settled payment per network. */
  networkMinimums: { network: string; minimumAmount: string; minimumUsd: string; note: string }[];
  /** The MPP rail (`Authorization: Payment`), where this instance offers it; each entry's `rails` says which products take it. */
  mpp?: { methods: string[]; header: 'WWW-Authenticate: Payment' };
  resources: X402Resource[];
  tools: X402Tool[];
}

export interface X402Asset {
  network: string;
  asset: string;
  symbol: 'USDC';
  /** EIP-712 domain of an EVM token (absent on Solana). */
  name?: string;
  version?: string;
  decimals: number;
  payTo: string;
  /** `exact` everywhere; `upto` (Permit2) is also quoted on EVM for metered products. */
  scheme: 'exact';
  schemes: string[];
  maxTimeoutSeconds: number;
}

/** The payment catalogue (`/.well-known/x402.json`): every available paid HTTP route and MCP tool with its own price. */
export function buildX402Catalogue(ctx: DiscoveryContext): X402Catalogue {
  const urls = documentUrls(ctx);
  const first = ctx.offers[0];
  return {
    x402Version: X402_VERSION,
    service: {
      name: ctx.serviceName,
      version: ctx.version,
      description: SERVICE_SUMMARY,
      documentation: urls.llmsFull,
      openapi: urls.openapi,
      mcp: urls.mcp,
    },
    baseUrl: ctx.baseUrl,
    updatedAt: ctx.startedAt.toISOString(),
    ...(first ? { payTo: first.payTo, asset: first.asset } : {}),
    networks: offeredNetworks(ctx),
    assets: ctx.offers.map((offer) => ({
      network: offer.network,
      asset: offer.asset,
      symbol: 'USDC' as const,
      ...(offer.assetName ? { name: offer.assetName, version: offer.assetVersion } : {}),
      decimals: USDC_DECIMALS,
      payTo: offer.payTo,
      scheme: 'exact' as const,
      schemes: offer.family === 'evm' ? ['exact', 'upto'] : ['exact'],
      maxTimeoutSeconds: offer.maxTimeoutSeconds,
    })),
    networkMinimums: ctx.offers.map((offer) => ({
      network: offer.network,
      minimumAmount: offer.minimumAmount.toString(),
      minimumUsd: atomicToUsd(offer.minimumAmount),
      note:
        offer.minimumAmount > 0n
          ? `The facilitator does not settle payments under ${atomicToUsd(offer.minimumAmount)} USD on ${offer.network}; cheaper routes do not offer this network (see each entry's excludedNetworks).`
          : `Every price is settled on ${offer.network}.`,
    })),
    ...(ctx.mpp ? { mpp: { methods: ctx.mpp.methods, header: 'WWW-Authenticate: Payment' as const } } : {}),
    resources: ctx.catalogue.available('http').map((product) => ({
      method: product.http!.method,
      path: product.http!.path,
      url: `${ctx.baseUrl}${product.http!.path}`,
      ...priced(product, 'http', ctx),
      ...(product.mcp ? { tool: product.mcp.tool } : {}),
    })),
    tools: ctx.catalogue.available('mcp').map((product) => ({
      name: product.mcp!.tool,
      url: urls.mcp,
      transport: 'streamable-http' as const,
      ...priced(product, 'mcp', ctx),
      ...(product.http ? { http: { method: product.http.method, path: product.http.path } } : {}),
    })),
  };
}

function priced(product: AvailableProduct, surface: Surface, ctx: DiscoveryContext): PricedEntry {
  const terms = paymentTerms(product, surface, ctx);
  const output = outputJsonSchema(product);
  return {
    id: product.id,
    title: product.title,
    description: product.description,
    category: product.category,
    ...terms,
    currency: 'USD',
    mimeType: 'application/json',
    inputSchema: inputJsonSchema(product),
    ...(product.inputExample ? { inputExample: product.inputExample } : {}),
    ...(output ? { outputSchema: output } : {}),
    ...(product.outputExample !== undefined ? { outputExample: product.outputExample } : {}),
  };
}
