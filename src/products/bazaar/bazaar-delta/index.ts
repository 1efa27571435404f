/** bazaar-delta: what changed between the two latest daily snapshots. */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { deltaFigures } from '../figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef, usdField } from '../market.ts';

const Brief = z.object({
  key: z.string().describe('Listing key: the resource URL (MCP tools: URL#toolName)'),
  resource: z.string().describe('Resource URL'),
  pay_to: z.string().describe('Pay-to address of its first accept'),
  network: z.string().describe('Network of its first accept'),
  price_usd: usdField('Price'),
  category: z.string().describe('Derived category (one of 9)'),
});

export const DeltaOutput = z.object({
  counts: z.object({ added: z.int(), removed: z.int(), repriced: z.int(), schema_changed: z.int() }).describe('How many listings in each list (before capping)'),
  added: z.array(Brief).describe('Listings in the newer snapshot only (key order, at most 100)'),
  removed: z.array(Brief).describe('Listings in the older snapshot only (key order, at most 100)'),
  repriced: z
    .array(
      z.object({
        key: z.string().describe('Listing key'),
        resource: z.string().describe('Resource URL'),
        pay_to: z.string().describe('Pay-to address'),
        from_price_usd: usdField('Price before'),
        to_price_usd: usdField('Price after'),
        change_pct: z.number().nullable().describe('Price change in percent'),
      }),
    )
    .describe('Listings whose accepts (network, scheme, asset or amount) changed (at most 100)'),
  schema_changed: z.array(z.object({ key: z.string().describe('Listing key'), resource: z.string().describe('Resource URL'), changed: z.array(z.enum(['input', 'output'])).describe('Which published schemas changed') })).describe('Listings whose input or output schema changed (at most 100)'),
  truncated: z.boolean().describe('A list was cut at 100 entries'),
});

export const bazaarDelta = product({
  id: 'bazaar-delta',
  title: 'Bazaar delta',
  description: 'Returns the diff of the two latest daily bazaar snapshots: listings added, removed, repriced and with changed schemas, with the snapshot ids it compares.',
  method: 'GET',
  price: '0.004',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({}),
  inputExample: {},
  output: z.object({ from: SnapshotRef.describe('The older snapshot'), to: SnapshotRef.describe('The newer snapshot'), ...DeltaOutput.shape }),
  outputExample: {
    from: { id: 1, day: '2025-05-30' },
    to: { id: 2, day: '2025-05-31' },
    counts: { added: 1, removed: 1, repriced: 1, schema_changed: 0 },
    added: [{ key: 'https://prices.invalid/token/price', resource: 'https://prices.invalid/token/price', pay_to: '0x2222222222222222222222222222222222222222', network: 'eip155:8453', price_usd: 0.004, category: 'market-data' }],
    removed: [{ key: 'https://chain.invalid/wallet/balance', resource: 'https://chain.invalid/wallet/balance', pay_to: '0x2222222222222222222222222222222222222222', network: 'eip155:8453', price_usd: 0.002, category: 'onchain-data' }],
    repriced: [{ key: 'https://weather.invalid/api/forecast', resource: 'https://weather.invalid/api/forecast', pay_to: '0x1111111111111111111111111111111111111111', from_price_usd: 0.01, to_price_usd: 0.02, change_pct: 100 }],
    schema_changed: [],
    truncated: false,
  },
  run: async (_input, ctx) => {
    const [to, from] = await latestSnapshots(ctx, 2, 2);
    const [before, after] = await Promise.all([ctx.bazaar!.listings(from!.id), ctx.bazaar!.listings(to!.id)]);
    return { from: snapshotRef(from!), to: snapshotRef(to!), ...deltaFigures(before, after) };
  },
});
