/**
 * solana_priority_fee: recent Solana priority fees for a transaction that write-locks up to five
 * accounts (network-wide without any), as percentiles of the node's getRecentPrioritizationFees.
 * Readings are cached 8 seconds and shared by concurrent callers (see ../solana.ts).
 */
import { z } from 'zod';
import { READ_EXTERNAL, product, solanaAddress, solanaOf } from '../../kit/index.ts';
import { feeReading, priorityFees, solanaNetwork } from '../solana.ts';

export const solanaPriorityFee = product({
  id: 'solana-priority-fee',
  title: 'Solana priority fee',
  description:
    'Returns recent Solana priority-fee levels (micro-lamports per compute unit, low to very high, with percentiles) for up to five writable accounts, from getRecentPrioritizationFees; readings are cached for 8 seconds.',
  http: false,
  price: '0.002',
  annotations: READ_EXTERNAL,
  requires: ['solana'],
  input: z.object({
    writable_accounts: z
      .array(solanaAddress())
      .max(5)
      .optional()
      .describe('Up to five writable accounts (base58) the transaction will lock; default network-wide fees'),
  }),
  inputExample: { writable_accounts: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] },
  output: z.object({
    network: solanaNetwork,
    writable_accounts: z.array(z.string()).describe('The accounts the fees are for (empty: network-wide)'),
    ...feeReading.shape,
  }),
  outputExample: {
    network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    writable_accounts: [
      'BJC8gLAqRB3XFDUbuYfXeR7M5wyXKCRKUS1SjbW1LeSE',
    ],
    unit: 'micro-lamports per compute unit',
    levels: {
      low: 1,
      medium: 1,
      high: 1,
      very_high: 1,
    },
    percentiles: {
      min: 1,
      p25: 1,
      p50: 1,
      p75: 1,
      p90: 1,
      p95: 1,
      max: 1,
    },
    samples: 1,
    first_slot: 440208005,
    last_slot: 440208005,
    observed_at: '2026-11-23T20:35:20.106Z',
    cached: false,
  },
  run: async (input, ctx) => {
    const solana = solanaOf(ctx);
    const accounts = [...new Set(input.writable_accounts ?? [])];
    return { network: solana.network, writable_accounts: accounts, ...(await priorityFees(ctx, solana, accounts)) };
  },
});
