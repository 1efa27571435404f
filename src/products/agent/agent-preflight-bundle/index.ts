/**
 * agent-preflight-bundle: up to five cheap utility and market products in one paid call, one
 * receipt. A member is any utility, chain, market or bazaar product on sale here as an MCP tool at a
 * fixed price of at most 0.01 USD (the bundle itself and input-priced products excepted). Each member's arguments are checked against
 * its own schema first (a bad one is the caller's 400, naming it); the members then run in order,
 * and if any fails the bundle fails as that member did: nothing is charged for a partial bundle.
 */
import { z } from 'zod';
import { usdToAtomic } from '../../../money.ts';
import { ProductInputError, READ_EXTERNAL, UpstreamError, product, type AvailableProduct } from '../../kit/index.ts';

const BUNDLE_PRICE = '0.005';
/** Members are cheap utilities: at most this tool price. */
const MEMBER_MAX_PRICE = '0.01';
const MEMBER_CATEGORIES = new Set(['utility', 'chain', 'market', 'bazaar']);

/** The products a bundle may hold, by tool name. */
export function bundleMembers(catalogue: readonly AvailableProduct[]): Map<string, AvailableProduct> {
  return new Map(
    catalogue
      .filter((p) => p.mcp && p.id !== 'agent-preflight-bundle' && MEMBER_CATEGORIES.has(p.category) && p.mode.kind === 'fixed' && p.priceByInput === undefined && usdToAtomic(p.mcp.price) <= usdToAtomic(MEMBER_MAX_PRICE))
      .map((p) => [p.mcp!.tool, p] as const),
  );
}

export const agentPreflightBundle = product({
  id: 'agent-preflight-bundle',
  title: 'Agent preflight bundle',
  description:
    "Runs up to five utilities (for example server_time, base_gas_price, base_usdc_balance, bazaar_pulse) in one paid call and returns each utility's result keyed by name. Members: the utility, chain, market and bazaar tools on sale here at a fixed price of at most 0.01 USD; a failed member fails the bundle and nothing is charged.",
  price: BUNDLE_PRICE,
  annotations: READ_EXTERNAL,
  input: z.object({
    utilities: z
      .array(
        z.object({
          name: z.string().min(1).describe('Utility tool name, e.g. "base_gas_price"'),
          arguments: z.record(z.string(), z.unknown()).optional().describe("The utility's input"),
        }),
      )
      .min(1)
      .max(5)
      .describe('Up to five utilities to run'),
  }),
  inputExample: {
    utilities: [
      { name: 'server_time' },
      { name: 'base_gas_price' },
      { name: 'base_usdc_balance', arguments: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' } },
    ],
  },
  output: z.object({
    results: z.record(z.string(), z.unknown()).describe("Each utility's result keyed by its name (a name given twice: `name#2`, …)"),
    utilities: z.array(z.object({ name: z.string().describe('Tool name'), product: z.string().describe('Product id'), price_usd: z.string().describe('Its own price as a tool, USD') })).describe('What ran, in order'),
    bundle_price_usd: z.string().describe('What the bundle costs'),
  }),
  outputExample: {
    results: {
      server_time: {
        time: "2025-06-01T12:00:00.000Z",
        unix: 1748779200
      }
    },
    utilities: [
      {
        name: "server_time",
        product: "time",
        price_usd: "0.01"
      }
    ],
    bundle_price_usd: "0.005"
  },
  run: async (input, ctx) => {
    const members = bundleMembers(ctx.catalogue);
    const planned = input.utilities.map((u, i) => {
      const member = members.get(u.name);
      if (!member) throw new ProductInputError(`${u.name} cannot be bundled here (members: ${[...members.keys()].sort().join(', ') || 'none'})`, 422, `utilities.${i}.name`, 'not_bundleable');
      const parsed = member.input.safeParse(u.arguments ?? {});
      if (!parsed.success) throw new ProductInputError(`${u.name}: ${parsed.error.issues.map((x) => `${x.path.join('.') || 'arguments'}: ${x.message}`).join('; ')}`, 400, `utilities.${i}.arguments`);
      return { name: u.name, member, input: parsed.data };
    });
    const results: Record<string, unknown> = {};
    for (const [i, step] of planned.entries()) {
      let output: unknown;
      try {
        output = await step.member.run(step.input, ctx);
      } catch (error) {
        if (error instanceof ProductInputError) throw new ProductInputError(`${step.name}: ${error.message}`, error.status, `utilities.${i}.arguments${error.field ? `.${error.field}` : ''}`, error.code);
        if (error instanceof UpstreamError) throw new UpstreamError(`${step.name}: ${error.message}`, error.status, `utilities.${i}`, error.retryAfterSeconds);
        throw error;
      }
      let key = step.name;
      for (let n = 2; Object.hasOwn(results, key); n++) key = `${step.name}#${n}`;
      results[key] = output;
    }
    return { results, utilities: planned.map((p) => ({ name: p.name, product: p.member.id, price_usd: p.member.mcp!.price })), bundle_price_usd: BUNDLE_PRICE };
  },
});
