import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Catalogue } from '../catalogue/index.ts';
import { rankProducts } from '../catalogue/search.ts';
import { protocolError, toolDefinition } from './tools.ts';

const SearchInput = z.object({
  query: z.string().max(500).default('').describe('What you need, in words (e.g. "wallet transfers on base"); empty lists every tool'),
  category: z.string().max(40).optional().describe('Only tools of this category (e.g. bazaar, chain, web, text)'),
  limit: z.number().int().min(1).max(40).default(10).describe('How many tools to return'),
});

/**
 * Free tool for large catalogues: some MCP clients hand only the first 40 tools to the model, so a
 * model can find the rest by need, with each tool's price and input schema.
 */
export const SEARCH_TOOLS: Tool = {
  name: 'search_tools',
  title: 'Search tools',
  description: 'Free. Finds the paid tools of this server that match a need, with their price (USD per call), category and input schema.',
  inputSchema: z.toJSONSchema(SearchInput, { io: 'input' }) as Tool['inputSchema'],
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

export function searchTools(catalogue: Catalogue, args: unknown): CallToolResult {
  const parsed = SearchInput.safeParse(args);
  if (!parsed.success) {
    throw protocolError(ErrorCode.InvalidParams, `invalid arguments for search_tools: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`);
  }
  const { query, category, limit } = parsed.data;
  const candidates = catalogue.available('mcp').filter((p) => !category || p.category === category);
  const tools = rankProducts(candidates, query, 'mcp')
    .slice(0, limit)
    .map(({ product }) => {
      const definition = toolDefinition(product);
      return {
        name: definition.name,
        title: definition.title,
        description: product.description,
        category: product.category,
        price_usd: product.mcp!.price,
        price_mode: product.mode.kind,
        input_schema: definition.inputSchema,
        ...(definition.annotations ? { annotations: definition.annotations } : {}),
      };
    });
  const result = { query, count: tools.length, tools };
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}
