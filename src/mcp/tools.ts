import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalogue } from '../catalogue/index.ts';
import { inputJsonSchema, outputJsonSchema } from '../catalogue/json-schema.ts';
import type { AvailableProduct } from '../catalogue/types.ts';

/** Version of the tool manifest (the service description fixes it). */
export const MCP_MANIFEST_VERSION = '1.1.0';

/** x402 MCP transport metadata keys. */
export const PAYMENT_META = 'x402/payment';
export const PAYMENT_RESPONSE_META = 'x402/payment-response';
/** On a free-tier result: the wallet that proved itself and its free calls left today. */
export const FREE_TIER_META = 'percall/free-tier';

/** Paid tools on sale, in catalogue order, optionally restricted to some categories. */
export function paidTools(catalogue: Catalogue, categories?: Set<string>): AvailableProduct[] {
  return catalogue.available('mcp').filter((p) => !categories || categories.has(p.category));
}

/** How a paid tool presents itself: its price is in the description, the schema is the catalogue's. */
export function toolDefinition(product: AvailableProduct): Tool {
  const mcp = product.mcp!;
  const output = outputJsonSchema(product);
  return {
    name: mcp.tool,
    title: product.title,
    description: `${product.description} Price: ${mcp.price} USD per call, paid in USDC over x402 (send the PaymentPayload in _meta["${PAYMENT_META}"]).${freeTierNote(product)}`,
    inputSchema: objectSchema(inputJsonSchema(product)),
    ...(output && output.type === 'object' ? { outputSchema: output as Tool['outputSchema'] } : {}),
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
