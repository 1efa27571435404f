/**
 * What the RPC-backed EVM chain products share: the chain's identity in every answer, raw JSON-RPC
 * reads (each a problem when it fails), ERC-20 `Transfer` logs over a bounded block window, and
 * USDC amounts as exact decimal strings.
 */
import { z } from 'zod';
import { formatUnits, getAddress, hexToBigInt, numberToHex, pad, type Address, type Hex } from 'viem';
import { ProductInputError, UpstreamError, evmAddress, rpcFailure, rpcRead } from '../kit/index.ts';
import type { EvmChainProvider } from '../../providers/chains.ts';

/** USDC has 6 decimals on every chain the products read. */
export const USDC_DECIMALS = 6 as const;
/** keccak256("Transfer(address,address,uint256)"): ERC-20 and ERC-721 alike (ERC-721 indexes the token id too). */
export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** The widest block window one call scans with eth_getLogs. */
export const MAX_LOG_BLOCKS = 10_000;
/** eth_getLogs is asked this many blocks at a time (many providers refuse wider ranges). */
export const LOG_CHUNK_BLOCKS = 2_000;

/** The chain an answer is about: its name and the network really behind it. */
export const chainIdentity = {
  chain: z.string().describe('Chain the answer is about, e.g. "base"'),
  network: z
    .string()
    .regex(/^eip155:\d+$/)
    .describe('CAIP-2 id of the chain actually read (eip155:8453 on Base mainnet; eip155:31337 on the local dev chain)'),
};

export const addressOut = () => evmAddress().describe('EVM address, EIP-55 checksummed');
export const weiString = () => z.string().regex(/^\d+$/);

export function identity(provider: EvmChainProvider): { chain: string; network: string } {
  return { chain: provider.chain, network: provider.network };
}

/** One raw JSON-RPC read; `null` results stay `null`. A failure is a 502/503/504 problem, never charged. */
export function rpc<T>(provider: EvmChainProvider, method: string, params: unknown[] = []): Promise<T> {
  const request = provider.client.request as unknown as (args: { method: string; params: unknown[] }) => Promise<T>;
  return rpcRead(provider.chain, method, () => request({ method, params }));
}

/**
 * An eth_call that may revert (a contract without the function): its result, or null when it
 * reverted. Any other failure is a problem as with `rpc`.
 */
export async function callOrRevert(provider: EvmChainProvider, call: { to: string; data: Hex }, block: Hex | 'latest'): Promise<Hex | null> {
  const request = provider.client.request as unknown as (args: { method: string; params: unknown[] }) => Promise<Hex>;
  try {
    return await request({ method: 'eth_call', params: [call, block] });
  } catch (error) {
    if (reverted(error)) return null;
    throw rpcFailure(provider.chain, 'eth_call', error);
  }
}

/** Whether an RPC error is an execution revert (JSON-RPC code 3, or a node's "execution reverted" text). */
function reverted(error: unknown): boolean {
  for (let e = error as { code?: unknown; details?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.code === 3) return true;
    if (typeof e.details === 'string' && /revert/i.test(e.details)) return true;
  }
  return false;
}

export const quantity = (hex: unknown): bigint => hexToBigInt(hex as Hex);
export const toBlockNumber = (hex: unknown): number => Number(hexToBigInt(hex as Hex));

export async function latestBlockNumber(provider: EvmChainProvider): Promise<number> {
  return toBlockNumber(await rpc<Hex>(provider, 'eth_blockNumber'));
}

/** An amount in atomic units as a decimal string in whole tokens ("12.5", "0.000001", "0"). */
export function tokenAmount(atomic: bigint, decimals: number): string {
  return formatUnits(atomic, decimals);
}

/** "0.01" USDC → 10000n. */
export function usdcAtomic(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 10n ** BigInt(USDC_DECIMALS) + BigInt(fraction.padEnd(USDC_DECIMALS, '0') || '0');
}

/** An address as a 32-byte topic. */
export const addressTopic = (address: string): Hex => pad(address.toLowerCase() as Hex, { size: 32 });

/** A raw log as eth_getLogs and receipts return it. */
export interface RawLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex | null;
  transactionHash: Hex | null;
  logIndex: Hex | null;
  removed?: boolean;
}

export interface Transfer {
  tx_hash: Hex;
  log_index: number;
  block_number: number;
  token: Address;
  from: Address;
  to: Address;
  value: bigint;
}

/** An ERC-20 `Transfer` (three topics, one 32-byte word of data); anything else (ERC-721, malformed) is undefined. */
export function erc20Transfer(log: RawLog): Transfer | undefined {
  if (log.removed || log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(log.data) || !log.transactionHash || log.blockNumber === null || log.logIndex === null) return undefined;
  return {
    tx_hash: log.transactionHash,
    log_index: toBlockNumber(log.logIndex),
    block_number: toBlockNumber(log.blockNumber),
    token: getAddress(log.address),
    from: getAddress(`0x${log.topics[1]!.slice(26)}`),
    to: getAddress(`0x${log.topics[2]!.slice(26)}`),
    value: hexToBigInt(log.data),
  };
}

/** Newest first: by block, then by position in the block. */
export const newestFirst = (a: Transfer, b: Transfer): number => b.block_number - a.block_number || b.log_index - a.log_index;

/**
 * ERC-20 `Transfer` logs in [from, to] matching `topics` (and `address`, a token), read in chunks of
 * LOG_CHUNK_BLOCKS blocks, two at a time. The caller bounds the window (MAX_LOG_BLOCKS).
 */
export async function transferLogs(
  provider: EvmChainProvider,
  filter: { address?: string; topics: (Hex | null)[] },
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<Transfer[]> {
  const chunks: [number, number][] = [];
  for (let start = from; start <= to; start += LOG_CHUNK_BLOCKS) chunks.push([start, Math.min(to, start + LOG_CHUNK_BLOCKS - 1)]);
  const out: Transfer[] = [];
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      if (signal?.aborted) throw signal.reason;
      const [start, end] = chunks[next++]!;
      const logs = await rpc<RawLog[]>(provider, 'eth_getLogs', [
        { fromBlock: numberToHex(start), toBlock: numberToHex(end), topics: filter.topics, ...(filter.address ? { address: filter.address } : {}) },
      ]);
      for (const log of logs) {
        const transfer = erc20Transfer(log);
        if (transfer) out.push(transfer);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return out.sort(newestFirst);
}

/** A block window the caller asked for, checked against the head: no future block, no window over the cap. */
export function checkWindow(from: number, to: number, latest: number, fields: { from: string; to: string }): void {
  if (from > latest) throw new ProductInputError(`block ${from} is in the future (the latest block is ${latest})`, 422, fields.from);
  if (to > latest) throw new ProductInputError(`block ${to} is in the future (the latest block is ${latest})`, 422, fields.to);
  if (from > to) throw new ProductInputError(`${fields.from} (${from}) is after ${fields.to} (${to})`, 422, fields.from);
  if (to - from + 1 > MAX_LOG_BLOCKS) {
    throw new ProductInputError(`the window ${from}–${to} spans ${to - from + 1} blocks; at most ${MAX_LOG_BLOCKS} per call`, 422, fields.from);
  }
}

interface RawBlock {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  baseFeePerGas?: Hex | null;
}

export async function blockByNumber(provider: EvmChainProvider, number: number | 'latest'): Promise<RawBlock> {
  const block = await rpc<RawBlock | null>(provider, 'eth_getBlockByNumber', [number === 'latest' ? 'latest' : numberToHex(number), false]);
  // A block at or below the head that the node cannot serve is the node's failure, not the caller's.
  if (!block) throw new UpstreamError(`the ${provider.chain} RPC did not return block ${number}`, 502);
  return block;
}

/** How far ahead of our clock a time may be before it counts as the future (clock skew). */
const FUTURE_SLACK_MS = 60_000;

/**
 * The first block at or after `time` within the last MAX_LOG_BLOCKS blocks (binary search over block
 * timestamps); undefined when no block is that recent yet. A 422 naming `field` when `time` is older
 * than that window, or in the future (after `now`).
 */
export async function firstBlockSince(
  provider: EvmChainProvider,
  time: Date,
  latest: { number: number; timestamp: number },
  field: string,
  now: Date,
): Promise<number | undefined> {
  const target = Math.floor(time.getTime() / 1000);
  if (time.getTime() > now.getTime() + FUTURE_SLACK_MS) throw new ProductInputError(`${time.toISOString()} is in the future`, 422, field);
  if (target > latest.timestamp) return undefined;
  let low = Math.max(0, latest.number - MAX_LOG_BLOCKS + 1);
  const oldest = toBlockNumber((await blockByNumber(provider, low)).timestamp);
  if (oldest > target && low > 0) {
    throw new ProductInputError(`${time.toISOString()} is more than ${MAX_LOG_BLOCKS} blocks back (the window reaches ${new Date(oldest * 1000).toISOString()})`, 422, field);
  }
  if (oldest >= target) return low;
  // Invariant: timestamp(low) < target <= timestamp(high).
  let high = latest.number;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (toBlockNumber((await blockByNumber(provider, middle)).timestamp) >= target) high = middle;
    else low = middle;
  }
  return high;
}
