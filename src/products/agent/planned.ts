import { z } from 'zod';
import { READ, READ_EXTERNAL, planned } from '../kit/index.ts';

export const agentPreflightBundle = planned({
  id: 'agent-preflight-bundle',
  title: 'Agent preflight bundle',
  description:
    "Runs up to five utilities (for example server_time, base_gas_price, base_usdc_balance) in one paid call and returns each utility's result keyed by name.",
  price: '0.005',
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
});

export const agentReturnContext = planned({
  id: 'agent-return-context',
  title: 'Agent return context',
  description:
    'Returns what changed since an agent last looked: optional cursor-aware delta and trending results, the next cursor, and an evidence hash over the returned data.',
  price: '0.005',
  annotations: READ,
  input: z.object({
    cursor: z.string().optional().describe('Cursor from the previous call; omit on the first call'),
    include: z
      .array(z.enum(['delta', 'trending']))
      .optional()
      .describe('Result sets to include (default: none, only the cursor and evidence hash)'),
  }),
  inputExample: { include: ['delta', 'trending'] },
});
