/**
 * The verification settlement_verify answers and stores, and x402_receipt_lookup returns: its
 * schema (every field defined), how a transaction becomes one, and confirmations read again later.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { CHAIN_NOT_CONFIGURED, ProductInputError, UpstreamError, type PaymentsDesk, type ProductContext } from '../../kit/index.ts';
import type { EvmChainProvider, SolanaChainProvider } from '../../../providers/chains.ts';
import { atomicToUsd } from '../../../money.ts';
import { classifyEvm, type Leg, type Mechanism } from './evm.ts';
import { evmHead, lookupEvm } from './evm-source.ts';
import { lookupSolana, solanaConfirmations } from './solana.ts';

const usd = () => z.string().regex(/^\d+\.\d{2,6}$/);
const atomic = () => z.string().regex(/^\d+$/);

export const legSchema = z.object({
  payer: z.string().describe('Who paid: the EIP-3009 authorizer, the Permit2 owner, the channel payer, or the SPL transfer authority'),
  payee: z.string().describe('Who was paid: the transfer recipient, the channel receiver, or the owner of the destination token account'),
  amount: usd().describe('Amount in USDC, decimal'),
  amount_atomic: atomic().describe('Amount in atomic units (6 decimals)'),
});

export const verificationSchema = z.object({
  verification_id: z.string().regex(/^ver_[0-9A-Z]{26}$/).describe('Id under which this verification is stored; x402_receipt_lookup returns it'),
  verified: z.boolean().describe('True when the transaction is a successful x402-style USDC settlement and every given expectation (pay_to, amount) holds'),
  status: z
    .enum(['settled', 'not_a_settlement', 'reverted', 'pending', 'not_found'])
    .describe('settled: a successful x402-style USDC settlement; not_a_settlement: mined and successful, but not one (see reasons); reverted: mined and failed; pending: known to the node, not yet mined; not_found: unknown to the chain'),
  mechanism: z
    .enum(['eip3009', 'permit2-witness', 'batch-settlement-claim', 'spl-transfer'])
    .nullable()
    .describe('How it settled: eip3009 (USDC AuthorizationUsed with its Transfer: x402 exact, MPP charge), permit2-witness (the x402 Permit2 proxy: upto, or exact over Permit2), batch-settlement-claim (Claimed in the x402 channel contract: funds credited to the receiver there), spl-transfer (SPL TransferChecked of USDC on Solana); null when not a settlement'),
  network: z.string().describe('CAIP-2 network the transaction was read on'),
  transaction: z.string().describe('The transaction hash (EVM) or signature (Solana)'),
  payer: z.string().nullable().describe('The payer when every leg has the same one, else null'),
  payee: z.string().nullable().describe('The payee when every leg has the same one, else null'),
  amount: usd().nullable().describe('Total of the legs in USDC (decimal); null when not a settlement'),
  amount_atomic: atomic().nullable().describe('The same total in atomic units'),
  asset: z.string().describe('The USDC contract (EVM) or mint (Solana) of the network'),
  legs: z.array(legSchema).describe('Each payment the transaction made (a batch claim or a multi-payment transaction has several)'),
  block_number: z.int().min(0).nullable().describe('EVM: block of the transaction; null on Solana or when not mined'),
  slot: z.int().min(0).nullable().describe('Solana: slot of the transaction; null on EVM or when not found'),
  block_time: z.iso.datetime().nullable().describe('Time of that block or slot (UTC), when the chain states it'),
  confirmations: z.int().min(0).describe('EVM: blocks from the transaction’s to the head, itself included; Solana: slots on top of it; 0 when not mined'),
  commitment: z.string().nullable().describe('Solana: the signature’s commitment (confirmed, finalized); null on EVM'),
  checks: z
    .object({
      pay_to: z.object({ expected: z.string(), matches: z.boolean() }).nullable().describe('Whether some leg paid the expected recipient; null when none was given'),
      amount: z
        .object({ expected_atomic: atomic(), actual_atomic: atomic(), matches: z.boolean() })
        .nullable()
        .describe('Whether the legs to the expected recipient (all legs without one) add up to exactly the expected atomic amount; null when none was given'),
    })
    .describe('The expectations given, checked'),
  reasons: z.array(z.string()).describe('Why `verified` is false (empty when true)'),
  source: z.enum(['index', 'rpc']).describe('Where the transaction was read: the block index, or JSON-RPC'),
  verified_at: z.iso.datetime().describe('When this verification was made'),
});
export type Verification = z.infer<typeof verificationSchema>;

export const verifyInput = z
  .object({
    transaction: z.string().min(1).describe('Transaction hash (EVM) or signature (Solana)'),
    network: z.string().min(1).describe('CAIP-2 network id, e.g. "eip155:8453"'),
    pay_to: z.string().optional().describe('Expected recipient address'),
    amount: z.string().regex(/^\d+$/).optional().describe('Expected amount in atomic USDC units'),
  })
  .superRefine((value, ctx) => {
    if (value.network.startsWith('eip155:') && !/^0x[0-9a-fA-F]{64}$/.test(value.transaction)) {
      ctx.addIssue({ code: 'custom', path: ['transaction'], message: 'an EVM transaction hash is 0x + 64 hex characters' });
    }
    if (value.network.startsWith('solana:') && !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(value.transaction)) {
      ctx.addIssue({ code: 'custom', path: ['transaction'], message: 'a Solana transaction signature is 64 bytes in base58' });
    }
  });
export type VerifyInput = z.output<typeof verifyInput>;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** `ver_` + a ULID (48-bit time, 80 random bits): sortable by time, not guessable. */
export function verificationId(now: Date): string {
  let time = BigInt(now.getTime());
  let head = '';
  for (let i = 0; i < 10; i++, time >>= 5n) head = CROCKFORD[Number(time & 31n)]! + head;
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[random[i]! & 31];
  return `ver_${head}${tail}`;
}

/** The network's chain on this instance, or 422 `chain_not_configured` (field `network`). */
export function networkOf(ctx: ProductContext, network: string): { evm: EvmChainProvider } | { solana: SolanaChainProvider } {
  const base = ctx.chains?.evm('base');
  if (base && base.network === network) return { evm: base };
  if (ctx.chains?.solana && ctx.chains.solana.network === network) return { solana: ctx.chains.solana };
  const here = [base?.network, ctx.chains?.solana?.network].filter(Boolean).join(', ') || 'none';
  throw new ProductInputError(`network ${network} is not verifiable on this instance (networks here: ${here})`, 422, 'network', CHAIN_NOT_CONFIGURED);
}

export function desk(ctx: ProductContext): PaymentsDesk {
  if (!ctx.payments) throw new UpstreamError('the verification store is not available on this instance', 503);
  return ctx.payments;
}

const sameAddress = (a: string, b: string, evm: boolean) => (evm ? a.toLowerCase() === b.toLowerCase() : a === b);

/** Reads the transaction and judges it. */
export async function verify(input: VerifyInput, ctx: ProductContext): Promise<Verification> {
  const chain = networkOf(ctx, input.network);
  const evm = 'evm' in chain;
  let status: Verification['status'];
  let mechanism: Mechanism | null = null;
  let legs: Leg[] = [];
  const reasons: string[] = [];
  let where = { block_number: null as number | null, slot: null as number | null, block_time: null as string | null, confirmations: 0, commitment: null as string | null };
  let source: Verification['source'] = 'rpc';
  if ('evm' in chain) {
    const found = await lookupEvm(ctx, chain.evm, input.transaction);
    if (found.state !== 'mined') {
      status = found.state;
      reasons.push(found.state === 'pending' ? 'the transaction is known to the node but not mined yet' : 'the chain does not know this transaction');
    } else {
      source = found.source;
      const head = await evmHead(chain.evm);
      where = { ...where, block_number: found.tx.blockNumber, block_time: found.tx.blockTime, confirmations: Math.max(0, head - found.tx.blockNumber + 1) };
      if (!found.tx.success) {
        status = 'reverted';
        reasons.push('the transaction reverted: nothing was settled');
      } else {
        const judged = await classifyEvm(found.tx, chain.evm.usdc, chain.evm.chainId);
        if (judged.mechanism) ({ mechanism, legs } = judged);
        else reasons.push(judged.reason);
        status = judged.mechanism ? 'settled' : 'not_a_settlement';
      }
    }
  } else {
    const found = await lookupSolana(chain.solana, input.transaction);
    if (found.state === 'not_found') {
      status = 'not_found';
      reasons.push('the cluster does not know this signature');
    } else {
      const { confirmations, status: commitment } = await solanaConfirmations(chain.solana, input.transaction, found.slot);
      where = { ...where, slot: found.slot, block_time: found.blockTime, confirmations, commitment };
      if (!found.success) {
        status = 'reverted';
        reasons.push('the transaction failed: nothing was settled');
      } else if (found.legs.length === 0) {
        status = 'not_a_settlement';
        reasons.push(found.reason ?? 'no USDC transfer');
      } else {
        status = 'settled';
        mechanism = 'spl-transfer';
        legs = found.legs;
      }
    }
  }
  const checks: Verification['checks'] = { pay_to: null, amount: null };
  if (input.pay_to !== undefined) {
    const matches = legs.some((l) => sameAddress(l.payee, input.pay_to!, evm));
    checks.pay_to = { expected: input.pay_to, matches };
    if (!matches && status === 'settled') reasons.push(`no leg paid ${input.pay_to}`);
  }
  if (input.amount !== undefined) {
    const counted = input.pay_to === undefined ? legs : legs.filter((l) => sameAddress(l.payee, input.pay_to!, evm));
    const actual = counted.reduce((sum, l) => sum + l.amount, 0n);
    checks.amount = { expected_atomic: input.amount, actual_atomic: actual.toString(), matches: actual === BigInt(input.amount) };
    if (!checks.amount.matches && status === 'settled') reasons.push(`settled ${actual} atomic units${input.pay_to ? ` to ${input.pay_to}` : ''}, not the expected ${input.amount}`);
  }
  const total = legs.reduce((sum, l) => sum + l.amount, 0n);
  const one = (pick: (l: Leg) => string) => (legs.length > 0 && legs.every((l) => pick(l) === pick(legs[0]!)) ? pick(legs[0]!) : null);
  return {
    verification_id: verificationId(ctx.now),
    verified: status === 'settled' && reasons.length === 0,
    status,
    mechanism,
    network: input.network,
    transaction: input.transaction,
    payer: one((l) => l.payer),
    payee: one((l) => l.payee),
    amount: legs.length > 0 ? atomicToUsd(total) : null,
    amount_atomic: legs.length > 0 ? total.toString() : null,
    asset: 'evm' in chain ? chain.evm.usdc : chain.solana.usdcMint,
    legs: legs.map((l) => ({ payer: l.payer, payee: l.payee, amount: atomicToUsd(l.amount), amount_atomic: l.amount.toString() })),
    ...where,
    checks,
    reasons,
    source,
    verified_at: ctx.now.toISOString(),
  };
}

/** Confirmations of a stored verification now (null when it was never mined). */
export async function confirmationsNow(v: Verification, ctx: ProductContext): Promise<{ confirmations: number | null; commitment: string | null }> {
  const chain = networkOf(ctx, v.network);
  if ('evm' in chain) {
    if (v.block_number === null) return { confirmations: null, commitment: null };
    return { confirmations: Math.max(0, (await evmHead(chain.evm)) - v.block_number + 1), commitment: null };
  }
  if (v.slot === null) return { confirmations: null, commitment: null };
  const now = await solanaConfirmations(chain.solana, v.transaction, v.slot);
  return { confirmations: now.confirmations, commitment: now.status };
}
