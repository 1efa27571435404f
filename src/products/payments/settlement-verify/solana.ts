/**
 * What a Solana transaction proves about an x402 settlement in USDC (`spl-transfer`): the SPL Token
 * `TransferChecked` (or `Transfer`) instructions of the USDC mint in the signed transaction, read
 * with `getTransaction` (base64, so the instructions are decoded here, not trusted from a parser);
 * the payer is the transfer's authority (the source account's owner), the payee the owner of the
 * destination token account as the transaction's token balances state it.
 */
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder, signature as toSignature, type Signature } from '@solana/kit';
import { rpcRead } from '../../kit/index.ts';
import type { SolanaChainProvider } from '../../../providers/chains.ts';
import type { Leg } from './evm.ts';

const TOKEN_PROGRAMS = new Set(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']);
const TRANSFER = 3;
const TRANSFER_CHECKED = 12;

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
}

interface RpcTransaction {
  slot: bigint | number;
  blockTime: bigint | number | null;
  transaction: [string, string];
  meta: { err: unknown; preTokenBalances?: TokenBalance[]; postTokenBalances?: TokenBalance[]; loadedAddresses?: { writable: string[]; readonly: string[] } } | null;
}

export type SolanaLookup =
  | { state: 'mined'; success: boolean; slot: number; blockTime: string | null; legs: Leg[]; reason?: string }
  | { state: 'not_found' };

/** The transaction and its USDC transfers; `not_found` when the cluster does not know the signature. */
export async function lookupSolana(provider: SolanaChainProvider, sig: string): Promise<SolanaLookup> {
  const getTransaction = provider.rpc.getTransaction as unknown as (s: Signature, c: object) => { send(): Promise<RpcTransaction | null> };
  const tx = await rpcRead('solana', 'getTransaction', () =>
    getTransaction(toSignature(sig), { encoding: 'base64', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }).send(),
  );
  if (!tx) return { state: 'not_found' };
  const slot = Number(tx.slot);
  const blockTime = tx.blockTime === null ? null : new Date(Number(tx.blockTime) * 1000).toISOString();
  const success = tx.meta?.err === null || tx.meta?.err === undefined;
  const bytes = getBase64Encoder().encode(tx.transaction[0]);
  const message = getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(bytes).messageBytes);
  const accounts = [...message.staticAccounts.map(String), ...(tx.meta?.loadedAddresses?.writable ?? []), ...(tx.meta?.loadedAddresses?.readonly ?? [])];
  const balances = [...(tx.meta?.postTokenBalances ?? []), ...(tx.meta?.preTokenBalances ?? [])];
  const balanceOf = (index: number) => balances.find((b) => b.accountIndex === index);
  const legs: Leg[] = [];
  for (const ix of 'instructions' in message ? message.instructions : []) {
    if (!TOKEN_PROGRAMS.has(accounts[ix.programAddressIndex] ?? '')) continue;
    const data = ix.data;
    const keys = ix.accountIndices ?? [];
    if (!data || data.length < 9 || (data[0] !== TRANSFER && data[0] !== TRANSFER_CHECKED)) continue;
    const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true);
    const [sourceIx, destinationIx, authorityIx, mint] =
      data[0] === TRANSFER_CHECKED ? [keys[0], keys[2], keys[3], accounts[keys[1] ?? -1]] : [keys[0], keys[1], keys[2], balanceOf(keys[0] ?? -1)?.mint];
    if (mint !== provider.usdcMint || destinationIx === undefined || authorityIx === undefined || sourceIx === undefined) continue;
    const payee = balanceOf(destinationIx)?.owner;
    if (!payee) continue;
    legs.push({ payer: accounts[authorityIx]!, payee, amount });
  }
  return { state: 'mined', success, slot, blockTime, legs, ...(legs.length === 0 ? { reason: 'no SPL transfer of the USDC mint in this transaction' } : {}) };
}

/** Slots on top of the transaction's now, and its commitment (`confirmed` or `finalized`; null when the cluster no longer reports it). */
export async function solanaConfirmations(provider: SolanaChainProvider, sig: string, slot: number): Promise<{ confirmations: number; status: string | null }> {
  const [current, statuses] = await Promise.all([
    rpcRead('solana', 'getSlot', () => provider.rpc.getSlot({ commitment: 'confirmed' }).send()),
    rpcRead('solana', 'getSignatureStatuses', () => provider.rpc.getSignatureStatuses([toSignature(sig)], { searchTransactionHistory: true }).send()),
  ]);
  return { confirmations: Math.max(0, Number(current) - slot), status: statuses.value[0]?.confirmationStatus ?? null };
}
