/**
 * Where the indexer reads a chain: blocks with their transactions and receipts over JSON-RPC (rpc.ts:
 * endpoints in order, a request budget, time limits). Receipts come
 * from `eth_getBlockReceipts` (one request per block); an endpoint without it is asked per
 * transaction instead.
 */
import type { BlockBundle, RpcBlock, RpcReceipt } from './decode.ts';
import type { RpcRequest } from './rpc.ts';

export interface BlockSource {
  chainId(): Promise<number>;
  /** The chain's latest block number. */
  head(): Promise<bigint>;
  /** The canonical hash of block `n`, undefined when the chain has no such block (yet). */
  blockHash(n: bigint): Promise<string | undefined>;
  /** Blocks `from`..`to` (inclusive) with their receipts, in order. */
  fetch(from: bigint, to: bigint): Promise<BlockBundle[]>;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** Maps `items` with at most `limit` calls of `fn` running at once, keeping the order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}

function unsupported(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e.code === -32601 || e.code === -32600) return true;
    if (typeof e.message === 'string' && /method not (found|supported)|does not exist|not available/i.test(e.message)) return true;
  }
  return false;
}

export function rpcBlockSource(request: RpcRequest, concurrency: number): BlockSource {
  let blockReceipts = true;
  const receiptsOf = async (block: RpcBlock): Promise<RpcReceipt[]> => {
    if (block.transactions.length === 0) return [];
    if (blockReceipts) {
      try {
        const receipts = (await request({ method: 'eth_getBlockReceipts', params: [block.hash] })) as RpcReceipt[] | null;
        if (receipts && receipts.length === block.transactions.length) return receipts;
        if (receipts) throw new Error(`block ${block.number}: ${receipts.length} receipts for ${block.transactions.length} transactions`);
        throw new Error(`block ${block.number}: no receipts yet`);
      } catch (error) {
        if (!unsupported(error)) throw error;
        blockReceipts = false;
      }
    }
    return mapLimit(block.transactions, 4, async (tx) => {
      const receipt = (await request({ method: 'eth_getTransactionReceipt', params: [tx.hash] })) as RpcReceipt | null;
      if (!receipt) throw new Error(`transaction ${tx.hash}: no receipt yet`);
      return receipt;
    });
  };
  return {
    async chainId() {
      return Number(BigInt((await request({ method: 'eth_chainId', params: [] })) as string));
    },
    async head() {
      return BigInt((await request({ method: 'eth_blockNumber', params: [] })) as string);
    },
    async blockHash(n) {
      const block = (await request({ method: 'eth_getBlockByNumber', params: [hex(n), false] })) as { hash: string } | null;
      return block?.hash.toLowerCase();
    },
    async fetch(from, to) {
      const numbers: bigint[] = [];
      for (let n = from; n <= to; n++) numbers.push(n);
      return mapLimit(numbers, concurrency, async (n) => {
        const block = (await request({ method: 'eth_getBlockByNumber', params: [hex(n), true] })) as RpcBlock | null;
        if (!block) throw new Error(`block ${n} is not available yet`);
        return { block, receipts: await receiptsOf(block) };
      });
    },
  };
}
