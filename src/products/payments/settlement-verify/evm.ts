/**
 * What an EVM transaction proves about an x402 settlement in USDC, from its receipt's logs (and, for
 * a batch-settlement claim, its calldata). The logs come from the block index where it runs and holds
 * the transaction, else from JSON-RPC; the classification is the same.
 *
 * Mechanisms recognised (each a "leg": payer → payee, amount):
 * - `eip3009`: USDC's `AuthorizationUsed(authorizer, nonce)` with the `Transfer` from that authorizer
 *   in the same transaction (x402 `exact`, MPP `charge`). A transfer into the batch-settlement channel
 *   contract is a channel deposit (escrow), not a payment to a seller: not a settlement.
 * - `permit2-witness`: a settlement through the x402 Permit2 proxies (`upto`, or `exact` over Permit2),
 *   which emit `Settled`/`SettledWithPermit`; the leg is the USDC `Transfer` from the owner to the witness's `to`.
 * - `batch-settlement-claim`: `Claimed(channelId, …, claimAmount, …)` of the channel contract; payer and
 *   receiver come from the channel configs in the claim's calldata (`claim`/`claimWithSignature`). The
 *   funds are then credited to the receiver inside the contract (paid out by a later `settle`).
 */
import { decodeEventLog, decodeFunctionData, getAddress, parseAbi, type Hex } from 'viem';
import { BATCH_SETTLEMENT_ADDRESS, x402ExactPermit2ProxyAddress, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { computeChannelId } from '@x402/evm/batch-settlement/client';
import type { X402BatchSettlement } from '../../../devchain/artifacts/index.ts';

export type Mechanism = 'eip3009' | 'permit2-witness' | 'batch-settlement-claim' | 'spl-transfer';

/** One payment the transaction made. */
export interface Leg {
  payer: string;
  payee: string;
  amount: bigint;
}

/** A log as both sources give it. */
export interface RawLog {
  address: string;
  topics: readonly string[];
  data: string;
}

/** A mined transaction as the verification reads it. */
export interface MinedEvmTransaction {
  success: boolean;
  blockNumber: number;
  blockTime: string | null;
  to: string | null;
  logs: RawLog[];
  /** The calldata, read only when a batch claim needs it. */
  input(): Promise<Hex>;
}

export type EvmClassification = { mechanism: Mechanism; legs: Leg[] } | { mechanism: null; reason: string };

const EVENTS = parseAbi([
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Settled()',
  'event SettledWithPermit()',
]);
type BatchAbi = (typeof X402BatchSettlement)['abi'];
/** The channel contract's interface, from our build of it (same ABI as the canonical one), loaded by the first claim read: the artifacts hold every dev contract's bytecode. */
const batchAbi = async (): Promise<BatchAbi> => (await import('../../../devchain/artifacts/index.ts')).X402BatchSettlement.abi;
const same = (a: string | null | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();
const PERMIT2_PROXIES = [x402UptoPermit2ProxyAddress, x402ExactPermit2ProxyAddress];

function decoded(abi: typeof EVENTS | BatchAbi, log: RawLog): { eventName: string; args: Record<string, unknown> } | undefined {
  try {
    return decodeEventLog({ abi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex, strict: true }) as unknown as { eventName: string; args: Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** What `tx` proves, for USDC at `usdc` on chain `chainId`. */
export async function classifyEvm(tx: MinedEvmTransaction, usdc: string, chainId: number): Promise<EvmClassification> {
  const usdcLogs = tx.logs.filter((l) => same(l.address, usdc)).map((l) => decoded(EVENTS, l)).filter((e) => e !== undefined);
  const transfers = usdcLogs.filter((e) => e.eventName === 'Transfer').map((e) => e.args as { from: string; to: string; value: bigint });

  const authorizations = usdcLogs.filter((e) => e.eventName === 'AuthorizationUsed').map((e) => (e.args as { authorizer: string }).authorizer);
  if (authorizations.length > 0) {
    const legs: Leg[] = [];
    for (const authorizer of authorizations) {
      const transfer = transfers.find((t) => same(t.from, authorizer));
      if (transfer) legs.push({ payer: getAddress(transfer.from), payee: getAddress(transfer.to), amount: transfer.value });
    }
    if (legs.length === 0) return { mechanism: null, reason: 'an EIP-3009 authorization was used, but no USDC left its signer in this transaction' };
    if (legs.every((l) => same(l.payee, BATCH_SETTLEMENT_ADDRESS))) {
      return { mechanism: null, reason: 'a batch-settlement channel deposit (EIP-3009): the funds are escrowed in the channel contract, not yet paid to a receiver; verify the claim transaction' };
    }
    return { mechanism: 'eip3009', legs: legs.filter((l) => !same(l.payee, BATCH_SETTLEMENT_ADDRESS)) };
  }

  const proxySettled = tx.logs.some((l) => PERMIT2_PROXIES.some((p) => same(l.address, p)) && ['Settled', 'SettledWithPermit'].includes(decoded(EVENTS, l)?.eventName ?? ''));
  if (proxySettled) {
    const legs = transfers.map((t) => ({ payer: getAddress(t.from), payee: getAddress(t.to), amount: t.value }));
    if (legs.length === 0) return { mechanism: null, reason: 'the x402 Permit2 proxy settled, but no USDC moved in this transaction' };
    return { mechanism: 'permit2-witness', legs };
  }

  const channelLogs = tx.logs.filter((l) => same(l.address, BATCH_SETTLEMENT_ADDRESS));
  const abi = channelLogs.length > 0 ? await batchAbi() : undefined;
  const claims = abi ? channelLogs.map((l) => decoded(abi, l)).filter((e) => e?.eventName === 'Claimed') : [];
  if (claims.length > 0) return batchClaim(tx, claims as { args: Record<string, unknown> }[], usdc, chainId);

  if (transfers.length > 0) {
    return {
      mechanism: null,
      reason: 'a plain USDC transfer, not an x402 settlement: no EIP-3009 AuthorizationUsed, no x402 Permit2 proxy settlement and no batch-settlement claim in this transaction',
    };
  }
  return { mechanism: null, reason: 'no USDC moved in this transaction' };
}

type ChannelConfig = { payer: Hex; payerAuthorizer: Hex; receiver: Hex; receiverAuthorizer: Hex; token: Hex; withdrawDelay: number; salt: Hex };

/** The legs of a claim: each Claimed event's channel, found among the channel configs of the calldata. */
async function batchClaim(tx: MinedEvmTransaction, claims: { args: Record<string, unknown> }[], usdc: string, chainId: number): Promise<EvmClassification> {
  if (!same(tx.to, BATCH_SETTLEMENT_ADDRESS)) return { mechanism: null, reason: 'batch-settlement claims made through another contract: the channels cannot be read from the calldata' };
  let configs: ChannelConfig[];
  try {
    const call = decodeFunctionData({ abi: await batchAbi(), data: await tx.input() });
    if (call.functionName !== 'claim' && call.functionName !== 'claimWithSignature') return { mechanism: null, reason: `a batch-settlement ${call.functionName} call, not a claim` };
    configs = (call.args[0] as unknown as { voucher: { channel: ChannelConfig } }[]).map((c) => c.voucher.channel);
  } catch {
    return { mechanism: null, reason: 'the batch-settlement claim calldata could not be decoded' };
  }
  const byId = new Map(configs.map((c) => [computeChannelId(c as never, chainId).toLowerCase(), c]));
  const legs: Leg[] = [];
  for (const claim of claims) {
    const config = byId.get(String(claim.args.channelId).toLowerCase());
    if (!config) return { mechanism: null, reason: 'a Claimed event whose channel is not in the claim calldata' };
    if (!same(config.token, usdc)) continue;
    legs.push({ payer: getAddress(config.payer), payee: getAddress(config.receiver), amount: BigInt(claim.args.claimAmount as bigint) });
  }
  if (legs.length === 0) return { mechanism: null, reason: 'a batch-settlement claim of channels in another token than USDC' };
  return { mechanism: 'batch-settlement-claim', legs };
}
