/**
 * solana_ops_context: what an agent needs before sending a Solana transaction, read from the
 * cluster at once: slot and block height, the latest blockhash with its age and remaining validity,
 * priority-fee levels (the cached reading of solana_priority_fee), the USDC mint and, for an account
 * (the one given, or the payer of a call paid on Solana), its SOL, whether its USDC token account
 * exists and its USDC balance.
 */
import { z } from 'zod';
import { address, isAddress } from '@solana/kit';
import { READ_EXTERNAL, product, rpcRead, solanaAddress, solanaOf } from '../../kit/index.ts';
import { TOKEN_PROGRAM, associatedTokenAccount, feeReading, priorityFees, solanaNetwork } from '../solana.ts';

/** A blockhash is valid for 150 blocks after it was issued. */
const BLOCKHASH_VALIDITY = 150;
/** Solana targets 400 ms slots. */
const SLOT_SECONDS = 0.4;

const decimalString = (atomic: bigint, decimals: number): string => {
  const scale = 10n ** BigInt(decimals);
  const fraction = (atomic % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${atomic / scale}${fraction ? `.${fraction}` : ''}`;
};

export const solanaOpsContext = product({
  id: 'solana-ops-context',
  title: 'Solana operations context',
  description:
    'Returns what an agent needs before sending a Solana transaction: current slot, the latest blockhash with its age, priority-fee levels, the USDC mint and, for an account (given, or the Solana payer of the call), its SOL balance, whether its USDC token account exists and its USDC balance. Payable by MPP, Solana x402 or Base x402.',
  price: '0.005',
  mpp: true,
  annotations: READ_EXTERNAL,
  requires: ['solana'],
  input: z.object({
    account: solanaAddress().optional().describe('Solana account (base58) whose balances and USDC token account to include; default the payer when paid on Solana'),
  }),
  inputExample: { account: 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr' },
  output: z.object({
    network: solanaNetwork,
    slot: z.int().min(0).describe('Current slot'),
    block_height: z.int().min(0).describe('Current block height'),
    blockhash: z
      .object({
        value: z.string().describe('Latest blockhash (base58), for a transaction’s lifetime'),
        last_valid_block_height: z.int().min(0).describe('Last block height at which a transaction using it is accepted'),
        age_blocks: z.int().min(0).describe('Blocks since it was issued (of the 150 it is valid for)'),
        expires_in_blocks: z.int().min(0).describe('Blocks left before it expires'),
        expires_in_seconds: z.number().min(0).describe('The same at 400 ms per slot, approximately'),
      })
      .describe('The latest blockhash'),
    priority_fee: feeReading.describe('Network-wide priority-fee levels, as solana_priority_fee answers them'),
    usdc: z
      .object({
        mint: z.string().describe('USDC mint address (base58)'),
        decimals: z.literal(6).describe('Decimals of USDC'),
        token_program: z.string().describe('Program owning the mint (SPL Token)'),
      })
      .describe('USDC on this cluster'),
    account: z
      .object({
        address: z.string().describe('The account (base58)'),
        source: z.enum(['input', 'payer']).describe('input: given as `account`; payer: the Solana payer of this call'),
        sol_lamports: z.string().regex(/^\d+$/).describe('SOL balance in lamports, a decimal string'),
        sol: z.string().describe('SOL balance, an exact decimal string'),
        usdc_token_account: z.string().describe('Its USDC associated token account (base58)'),
        token_account_exists: z.boolean().describe('Whether that token account exists (a USDC payment to it needs it, or its creation)'),
        usdc_balance_atomic: z.string().regex(/^\d+$/).nullable().describe('USDC in atomic units; null when the token account does not exist'),
        usdc_balance: z.string().nullable().describe('USDC as an exact decimal string; null when the token account does not exist'),
      })
      .nullable()
      .describe('The account, when one was given or the call was paid on Solana; else null'),
    observed_at: z.iso.datetime().describe('When the cluster was read'),
  }),
  outputExample: {
    network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    slot: 440208005,
    block_height: 440208005,
    blockhash: {
      value: '4QjEBrJnATvydaCoPb7j4cneA5vSJNFsAYHQwRAjAjmQ',
      last_valid_block_height: 440208155,
      age_blocks: 0,
      expires_in_blocks: 150,
      expires_in_seconds: 60,
    },
    priority_fee: {
      unit: 'micro-lamports per compute unit',
      levels: {
        low: 0,
        medium: 0,
        high: 0,
        very_high: 0,
      },
      percentiles: {
        min: 0,
        p25: 0,
        p50: 0,
        p75: 0,
        p90: 0,
        p95: 0,
        max: 0,
      },
      samples: 0,
      first_slot: null,
      last_slot: null,
      observed_at: '2026-11-23T20:35:19.964Z',
      cached: false,
    },
    usdc: {
      mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      decimals: 6,
      token_program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    },
    account: {
      address: '5E1eFSkfAZoeBqhmJrLUuXa6U8swoVjZ4W7Bogt6Jz47',
      source: 'input',
      sol_lamports: '10000000',
      sol: '0.01',
      usdc_token_account: '71F7h7FvPxadidLdEyQMsmbJjuX1tSXPY7BBgEmRtJK1',
      token_account_exists: true,
      usdc_balance_atomic: '1000000000',
      usdc_balance: '1000',
    },
    observed_at: '2026-11-23T20:35:19.964Z',
  },
  run: async (input, ctx) => {
    const solana = solanaOf(ctx);
    const send = <T>(what: string, request: { send(options?: { abortSignal?: AbortSignal }): Promise<T> }) =>
      rpcRead('solana', what, () => request.send({ abortSignal: ctx.signal }));
    const owner = input.account ? { address: input.account, source: 'input' as const } : ctx.caller && isAddress(ctx.caller) ? { address: ctx.caller, source: 'payer' as const } : undefined;
    const [slot, height, latest, fees, account] = await Promise.all([
      send('getSlot', solana.rpc.getSlot()),
      send('getBlockHeight', solana.rpc.getBlockHeight()),
      send('getLatestBlockhash', solana.rpc.getLatestBlockhash()),
      priorityFees(ctx, solana, []),
      owner ? accountFacts(owner.address) : Promise.resolve(undefined),
    ]);
    const blockHeight = Number(height);
    const lastValid = Number(latest.value.lastValidBlockHeight);
    const left = Math.max(0, lastValid - blockHeight);
    return {
      network: solana.network,
      slot: Number(slot),
      block_height: blockHeight,
      blockhash: {
        value: latest.value.blockhash,
        last_valid_block_height: lastValid,
        age_blocks: Math.max(0, BLOCKHASH_VALIDITY - left),
        expires_in_blocks: left,
        expires_in_seconds: Math.round(left * SLOT_SECONDS * 10) / 10,
      },
      priority_fee: fees,
      usdc: { mint: solana.usdcMint, decimals: 6 as const, token_program: TOKEN_PROGRAM },
      account: owner && account ? { address: owner.address, source: owner.source, ...account } : null,
      observed_at: ctx.now.toISOString(),
    };

    async function accountFacts(owner: string) {
      const ata = await associatedTokenAccount(owner, solana.usdcMint);
      const [lamports, info] = await Promise.all([
        send('getBalance', solana.rpc.getBalance(address(owner))),
        send('getAccountInfo', solana.rpc.getAccountInfo(ata, { encoding: 'base64', dataSlice: { offset: 0, length: 0 } })),
      ]);
      const exists = info.value !== null;
      const usdc = exists ? BigInt((await send('getTokenAccountBalance', solana.rpc.getTokenAccountBalance(ata))).value.amount) : null;
      return {
        sol_lamports: lamports.value.toString(),
        sol: decimalString(lamports.value, 9),
        usdc_token_account: ata,
        token_account_exists: exists,
        usdc_balance_atomic: usdc === null ? null : usdc.toString(),
        usdc_balance: usdc === null ? null : decimalString(usdc, 6),
      };
    }
  },
});
