/**
 * From JSON-RPC blocks and receipts to the index's rows: blocks, transactions, logs, and the decoded
 * token transfers and swaps. Pure functions over the wire format (hex quantities), so they are tested
 * without a chain.
 */

/** A block as `eth_getBlockByNumber(n, true)` returns it (the fields the index reads). */
export interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  baseFeePerGas?: string | null;
  gasUsed: string;
  gasLimit: string;
  miner: string;
  transactions: RpcTransaction[];
}

export interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: string;
  nonce: string;
  input: string;
  type?: string;
  transactionIndex: string;
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
  transactionHash: string;
  transactionIndex: string;
}

export interface RpcReceipt {
  transactionHash: string;
  transactionIndex: string;
  status?: string;
  gasUsed: string;
  effectiveGasPrice?: string;
  contractAddress?: string | null;
  logs: RpcLog[];
}

/** One block with the receipts of its transactions, as fetched. */
export interface BlockBundle {
  block: RpcBlock;
  receipts: RpcReceipt[];
}

/** A row is a list of values in the table's column order; `bigint` for every integer column. */
export type Value = bigint | number | string | boolean | null;
export type Row = Value[];

export interface ChainRows {
  blocks: Row[];
  transactions: Row[];
  logs: Row[];
  erc20_transfers: Row[];
  erc721_transfers: Row[];
  erc1155_transfers: Row[];
  uniswap_v2_swaps: Row[];
  uniswap_v3_swaps: Row[];
}

export const emptyRows = (): ChainRows => ({
  blocks: [],
  transactions: [],
  logs: [],
  erc20_transfers: [],
  erc721_transfers: [],
  erc1155_transfers: [],
  uniswap_v2_swaps: [],
  uniswap_v3_swaps: [],
});

export function rowCount(rows: ChainRows): number {
  let n = 0;
  for (const list of Object.values(rows) as Row[][]) n += list.length;
  return n;
}

/** keccak256 of the event signatures the index decodes. */
export const TOPICS = {
  /** Transfer(address,address,uint256): ERC-20 (3 topics) and ERC-721 (4 topics). */
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  /** TransferSingle(address,address,address,uint256,uint256) */
  transferSingle: '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
  /** TransferBatch(address,address,address,uint256[],uint256[]) */
  transferBatch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  /** Swap(address,uint256,uint256,uint256,uint256,address): Uniswap v2 pairs. */
  swapV2: '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
  /** Swap(address,address,int256,int256,uint160,uint128,int24): Uniswap v3 pools. */
  swapV3: '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
} as const;

export const INT128_MAX = (1n << 127n) - 1n;
export const INT128_MIN = -(1n << 127n);

export const quantity = (hex: string): bigint => BigInt(hex);

/** A uint256 for a `HUGEINT` column and its `_raw` companion: `[value, null]` or `[null, "decimal"]`. */
export function wide(value: bigint): [bigint | null, string | null] {
  return value <= INT128_MAX ? [value, null] : [null, value.toString()];
}

/** A uint256 for a `HUGEINT` column without a companion: NULL when it does not fit. */
export const fitUnsigned = (value: bigint): bigint | null => (value <= INT128_MAX ? value : null);
/** An int256 for a `HUGEINT` column: NULL when it does not fit. */
export const fitSigned = (value: bigint): bigint | null => (value >= INT128_MIN && value <= INT128_MAX ? value : null);

/** The 32-byte word `index` of hex `data` (no 0x), as an unsigned integer; undefined past the end. */
function word(data: string, index: number): bigint | undefined {
  const start = index * 64;
  if (data.length < start + 64) return undefined;
  return BigInt(`0x${data.slice(start, start + 64)}`);
}

function signed(value: bigint): bigint {
  return value >= 1n << 255n ? value - (1n << 256n) : value;
}

/** An address out of a 32-byte topic or word. */
const topicAddress = (topic: string): string => `0x${topic.slice(-40)}`.toLowerCase();

/** Seconds since the epoch to the microseconds a DuckDB TIMESTAMP holds. */
export const micros = (seconds: bigint): bigint => seconds * 1_000_000n;

/** The rows of one fetched block. */
export function decodeBundle(bundle: BlockBundle, into: ChainRows = emptyRows()): ChainRows {
  const { block, receipts } = bundle;
  const number = quantity(block.number);
  const time = micros(quantity(block.timestamp));
  const receiptOf = new Map(receipts.map((r) => [r.transactionHash.toLowerCase(), r]));
  into.blocks.push([
    number,
    block.hash.toLowerCase(),
    block.parentHash.toLowerCase(),
    time,
    block.baseFeePerGas ? quantity(block.baseFeePerGas) : null,
    quantity(block.gasUsed),
    quantity(block.gasLimit),
    block.transactions.length,
    block.miner.toLowerCase(),
  ]);
  for (const tx of block.transactions) {
    const hash = tx.hash.toLowerCase();
    const receipt = receiptOf.get(hash);
    if (!receipt) throw new Error(`block ${number}: no receipt for transaction ${hash}`);
    const [value, valueRaw] = wide(quantity(tx.value));
    const input = tx.input ?? '0x';
    into.transactions.push([
      number,
      time,
      Number(quantity(tx.transactionIndex)),
      hash,
      tx.from.toLowerCase(),
      tx.to ? tx.to.toLowerCase() : null,
      value,
      valueRaw,
      quantity(tx.nonce),
      quantity(receipt.gasUsed),
      receipt.effectiveGasPrice ? fitUnsigned(quantity(receipt.effectiveGasPrice)) : null,
      receipt.status === undefined ? true : quantity(receipt.status) === 1n,
      tx.type ? Number(quantity(tx.type)) & 0xff : 0,
      input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
      receipt.contractAddress ? receipt.contractAddress.toLowerCase() : null,
    ]);
  }
  for (const receipt of receipts) {
    for (const log of receipt.logs) decodeLog(number, time, log, into);
  }
  return into;
}

function decodeLog(block: bigint, time: bigint, log: RpcLog, into: ChainRows): void {
  const txHash = log.transactionHash.toLowerCase();
  const logIndex = Number(quantity(log.logIndex));
  const address = log.address.toLowerCase();
  const topics = log.topics.map((t) => t.toLowerCase());
  const data = (log.data ?? '0x').toLowerCase();
  into.logs.push([block, time, txHash, Number(quantity(log.transactionIndex)), logIndex, address, topics[0] ?? null, topics[1] ?? null, topics[2] ?? null, topics[3] ?? null, data]);
  const hex = data.slice(2);
  const head = [block, time, txHash, logIndex] as const;
  switch (topics[0]) {
    case TOPICS.transfer: {
      if (topics.length === 3 && hex.length === 64) {
        into.erc20_transfers.push([...head, address, topicAddress(topics[1]!), topicAddress(topics[2]!), ...wide(word(hex, 0)!)]);
      } else if (topics.length === 4 && hex.length === 0) {
        into.erc721_transfers.push([...head, address, topicAddress(topics[1]!), topicAddress(topics[2]!), ...wide(BigInt(topics[3]!))]);
      }
      return;
    }
    case TOPICS.transferSingle: {
      if (topics.length !== 4 || hex.length !== 128) return;
      const [operator, from, to] = [topicAddress(topics[1]!), topicAddress(topics[2]!), topicAddress(topics[3]!)];
      into.erc1155_transfers.push([...head, 0, address, operator, from, to, ...wide(word(hex, 0)!), ...wide(word(hex, 1)!)]);
      return;
    }
    case TOPICS.transferBatch: {
      if (topics.length !== 4) return;
      const ids = dynamicArray(hex, 0);
      const values = dynamicArray(hex, 1);
      if (!ids || !values || ids.length !== values.length) return;
      const [operator, from, to] = [topicAddress(topics[1]!), topicAddress(topics[2]!), topicAddress(topics[3]!)];
      ids.forEach((id, i) => into.erc1155_transfers.push([...head, i, address, operator, from, to, ...wide(id), ...wide(values[i]!)]));
      return;
    }
    case TOPICS.swapV2: {
      if (topics.length !== 3 || hex.length !== 256) return;
      const amounts = [0, 1, 2, 3].map((i) => fitUnsigned(word(hex, i)!));
      into.uniswap_v2_swaps.push([...head, address, topicAddress(topics[1]!), topicAddress(topics[2]!), ...amounts]);
      return;
    }
    case TOPICS.swapV3: {
      if (topics.length !== 3 || hex.length !== 320) return;
      const tick = Number(signed(word(hex, 4)!));
      into.uniswap_v3_swaps.push([
        ...head,
        address,
        topicAddress(topics[1]!),
        topicAddress(topics[2]!),
        fitSigned(signed(word(hex, 0)!)),
        fitSigned(signed(word(hex, 1)!)),
        fitUnsigned(word(hex, 2)!),
        fitUnsigned(word(hex, 3)!),
        Number.isSafeInteger(tick) && Math.abs(tick) < 2 ** 31 ? tick : null,
      ]);
      return;
    }
  }
}

/** The uint256[] at head slot `slot` of ABI-encoded `hex`; undefined when malformed or absurdly long. */
function dynamicArray(hex: string, slot: number): bigint[] | undefined {
  const offset = word(hex, slot);
  if (offset === undefined || offset % 32n !== 0n || offset > BigInt(hex.length / 2)) return undefined;
  const at = Number(offset / 32n);
  const length = word(hex, at);
  if (length === undefined || length > 10_000n) return undefined;
  const out: bigint[] = [];
  for (let i = 0; i < Number(length); i++) {
    const value = word(hex, at + 1 + i);
    if (value === undefined) return undefined;
    out.push(value);
  }
  return out;
}
