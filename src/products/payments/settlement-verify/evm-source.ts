/**
 * Where an EVM transaction is read from: the block index when it runs for this network and already
 * holds the transaction (its `transactions` and `logs` tables), else JSON-RPC (the receipt). The
 * calldata (needed for batch claims only) and the chain head always come from JSON-RPC.
 */
import { hexToNumber, type Hex } from 'viem';
import type { ProductContext } from '../../kit/index.ts';
import type { EvmChainProvider } from '../../../providers/chains.ts';
import { rpc } from '../../chain/evm.ts';
import { indexRows, type IndexedChain } from '../../chain/index-read.ts';
import type { MinedEvmTransaction, RawLog } from './evm.ts';

export type EvmLookup = { state: 'mined'; source: 'index' | 'rpc'; tx: MinedEvmTransaction } | { state: 'pending' } | { state: 'not_found' };

interface RpcReceipt {
  status: Hex;
  blockNumber: Hex;
  to: string | null;
  logs: { address: string; topics: string[]; data: string }[];
}

const inputOf = (provider: EvmChainProvider, hash: string) => async (): Promise<Hex> => (await rpc<{ input: Hex } | null>(provider, 'eth_getTransactionByHash', [hash]))?.input ?? '0x';

/** The transaction from the index of the chain whose network is `provider.network`, when it holds it. */
async function fromIndex(ctx: ProductContext, provider: EvmChainProvider, hash: string): Promise<MinedEvmTransaction | undefined> {
  const index = ctx.index;
  const chain = index && [...index.chains()].find(([, network]) => network === provider.network)?.[0];
  if (!index || !chain) return undefined;
  const on: IndexedChain = { index, chain, network: provider.network };
  const literal = `'${hash.toLowerCase()}'`; // checked: 0x + 64 hex
  const [row] = await indexRows(on, `SELECT success, block_number::BIGINT, block_time, "to" FROM transactions WHERE hash = ${literal}`, ctx.signal);
  if (!row) return undefined;
  const logs = await indexRows(on, `SELECT address, topic0, topic1, topic2, topic3, data FROM logs WHERE tx_hash = ${literal} ORDER BY log_index`, ctx.signal);
  return {
    success: row[0] === true,
    blockNumber: Number(row[1]),
    blockTime: row[2] === null ? null : String(row[2]),
    to: (row[3] as string | null) ?? null,
    logs: logs.map((l): RawLog => ({ address: String(l[0]), topics: l.slice(1, 5).filter((t): t is string => typeof t === 'string'), data: String(l[5] ?? '0x') })),
    input: inputOf(provider, hash),
  };
}

async function fromRpc(provider: EvmChainProvider, hash: string): Promise<EvmLookup> {
  const receipt = await rpc<RpcReceipt | null>(provider, 'eth_getTransactionReceipt', [hash]);
  if (!receipt) {
    const tx = await rpc<unknown>(provider, 'eth_getTransactionByHash', [hash]);
    return tx ? { state: 'pending' } : { state: 'not_found' };
  }
  const blockNumber = hexToNumber(receipt.blockNumber);
  const block = await rpc<{ timestamp: Hex } | null>(provider, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
  return {
    state: 'mined',
    source: 'rpc',
    tx: {
      success: receipt.status === '0x1',
      blockNumber,
      blockTime: block ? new Date(hexToNumber(block.timestamp) * 1000).toISOString() : null,
      to: receipt.to,
      logs: receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
      input: inputOf(provider, hash),
    },
  };
}

/** The transaction: from the index where it has it, else JSON-RPC. */
export async function lookupEvm(ctx: ProductContext, provider: EvmChainProvider, hash: string): Promise<EvmLookup> {
  const indexed = await fromIndex(ctx, provider, hash).catch(() => undefined); // the index busy or behind: RPC answers
  if (indexed) return { state: 'mined', source: 'index', tx: indexed };
  return fromRpc(provider, hash);
}

/** The chain head now, for confirmations. */
export async function evmHead(provider: EvmChainProvider): Promise<number> {
  return hexToNumber(await rpc<Hex>(provider, 'eth_blockNumber'));
}
