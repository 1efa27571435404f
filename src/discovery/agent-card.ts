import type { AvailableProduct } from '../catalogue/types.ts';
import {
  SERVICE_SUMMARY,
  X402_VERSION,
  describePrice,
  documentUrls,
  oneLine,
  paymentTerms,
  type DiscoveryContext,
} from './context.ts';

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes: string[];
  outputModes: string[];
}

export interface AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: string;
  additionalInterfaces: { url: string; transport: string }[];
  version: string;
  provider?: { organization: string; url: string };
  documentationUrl: string;
  capabilities: { streaming: boolean; pushNotifications: boolean };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  x402: {
    x402Version: number;
    networks: string[];
    asset?: string;
    payTo?: string;
    accepts: { network: string; scheme: string; asset: string; payTo: string }[];
    mpp?: { methods: string[] };
    catalogue: string;
  };
}

/** A2A-style agent card (protocol 0.3.0): one skill per available product, plus the x402 payment block. */
export function buildAgentCard(ctx: DiscoveryContext): AgentCard {
  const urls = documentUrls(ctx);
  const first = ctx.offers[0];
  return {
    protocolVersion: '0.3.0',
    name: ctx.serviceName,
    description: `${SERVICE_SUMMARY} Call a paid route, read the 402 quote, pay in USDC and retry with PAYMENT-SIGNATURE. Details: ${urls.llmsFull}`,
    url: ctx.baseUrl,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: ctx.baseUrl, transport: 'HTTP+JSON' },
      { url: urls.mcp, transport: 'MCP' },
    ],
    version: ctx.version,
    ...(ctx.provider ? { provider: ctx.provider } : {}),
    documentationUrl: urls.llmsFull,
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: ctx.catalogue.available().map((product) => skill(product, ctx)),
    x402: {
      x402Version: X402_VERSION,
      networks: [...new Set(ctx.offers.map((o) => o.network))],
      ...(first ? { asset: first.asset, payTo: first.payTo } : {}),
      accepts: ctx.offers.map((o) => ({ network: o.network, scheme: 'exact', asset: o.asset, payTo: o.payTo })),
      ...(ctx.mpp ? { mpp: { methods: ctx.mpp.methods } } : {}),
      catalogue: urls.x402,
    },
  };
}

function skill(product: AvailableProduct, ctx: DiscoveryContext): AgentSkill {
  const prices: string[] = [];
  if (product.http) {
    prices.push(`${describePrice(paymentTerms(product, 'http', ctx))} per call via ${product.http.method} ${ctx.baseUrl}${product.http.path}`);
  }
  if (product.mcp) prices.push(`${describePrice(paymentTerms(product, 'mcp', ctx))} per call via MCP tool ${product.mcp.tool}`);
  const tags = [product.category, 'x402', 'paid'];
  if (product.http) tags.push('http');
  if (product.mcp) tags.push('mcp', product.mcp.tool);
  return {
    id: product.id,
    name: product.title,
    description: `${oneLine(product.description)} Price: ${prices.join('; ')}. Paid in USDC over x402 v2.`,
    tags,
    ...(product.inputExample ? { examples: [JSON.stringify(product.inputExample)] } : {}),
    inputModes: ['application/json'],
    outputModes: ['application/json'],
  };
}
