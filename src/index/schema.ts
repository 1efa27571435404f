/**
 * The index's tables: one DuckDB schema per chain (`base.blocks`, `base.erc20_transfers`, …) with the
 * same tables, and the indexer's own bookkeeping in `percall_index` (not queryable).
 *
 * Conventions: addresses and hashes are lowercase `0x` hex; times are UTC `TIMESTAMP`s; amounts are
 * exact integers, `HUGEINT` (signed 128-bit): `sum()` over them stays an exact HUGEINT (an unsigned
 * UHUGEINT would sum to a DOUBLE). A uint256 that does not fit (2^127 and more: spam tokens, token
 * ids that are hashes) is NULL there and kept exactly as a decimal string in the `*_raw` column beside
 * it; the swap tables leave such amounts NULL, and the raw log (`logs.data`) always has every value.
 */

export interface ColumnDoc {
  name: string;
  type: string;
  doc: string;
}

export interface TableDoc {
  name: string;
  doc: string;
  columns: ColumnDoc[];
}

const c = (name: string, type: string, doc: string): ColumnDoc => ({ name, type, doc });
const where = [c('block_number', 'UBIGINT', 'block of the event'), c('block_time', 'TIMESTAMP', 'block time (UTC)'), c('tx_hash', 'VARCHAR', 'transaction hash'), c('log_index', 'UINTEGER', 'position of the log in the block')];

/** Every table of a chain schema, in the order created. Column order is the table's. */
export const TABLES: readonly TableDoc[] = [
  {
    name: 'blocks',
    doc: 'one row per block',
    columns: [
      c('number', 'UBIGINT', 'block number'),
      c('hash', 'VARCHAR', 'block hash'),
      c('parent_hash', 'VARCHAR', "parent block's hash"),
      c('time', 'TIMESTAMP', 'block timestamp (UTC)'),
      c('base_fee_per_gas', 'HUGEINT', 'EIP-1559 base fee in wei (NULL before London)'),
      c('gas_used', 'UBIGINT', 'gas used by the block'),
      c('gas_limit', 'UBIGINT', 'block gas limit'),
      c('tx_count', 'UINTEGER', 'transactions in the block'),
      c('miner', 'VARCHAR', 'fee recipient'),
    ],
  },
  {
    name: 'transactions',
    doc: 'one row per transaction, with its receipt',
    columns: [
      c('block_number', 'UBIGINT', 'block of the transaction'),
      c('block_time', 'TIMESTAMP', 'block time (UTC)'),
      c('tx_index', 'UINTEGER', 'position in the block'),
      c('hash', 'VARCHAR', 'transaction hash'),
      c('"from"', 'VARCHAR', 'sender'),
      c('"to"', 'VARCHAR', 'recipient (NULL for a contract creation)'),
      c('value', 'HUGEINT', 'wei sent (NULL when 2^127 or more: see value_raw)'),
      c('value_raw', 'VARCHAR', 'wei sent as a decimal string, only when it does not fit value'),
      c('nonce', 'UBIGINT', "sender's nonce"),
      c('gas_used', 'UBIGINT', 'gas used (receipt)'),
      c('effective_gas_price', 'HUGEINT', 'wei per gas paid (receipt)'),
      c('success', 'BOOLEAN', 'receipt status: true succeeded, false reverted'),
      c('tx_type', 'UTINYINT', 'EIP-2718 type (0 legacy, 2 EIP-1559, 126 OP-stack deposit, …)'),
      c('method_id', 'VARCHAR', 'first 4 bytes of the input (NULL for a plain transfer)'),
      c('contract_address', 'VARCHAR', 'contract created (receipt), else NULL'),
    ],
  },
  {
    name: 'logs',
    doc: 'every event log of every successful transaction',
    columns: [
      ...where.slice(0, 3),
      c('tx_index', 'UINTEGER', 'position of the transaction in the block'),
      where[3]!,
      c('address', 'VARCHAR', 'emitting contract'),
      c('topic0', 'VARCHAR', 'event signature hash (NULL for anonymous events)'),
      c('topic1', 'VARCHAR', 'first indexed argument'),
      c('topic2', 'VARCHAR', 'second indexed argument'),
      c('topic3', 'VARCHAR', 'third indexed argument'),
      c('data', 'VARCHAR', 'non-indexed data, 0x hex'),
    ],
  },
  {
    name: 'erc20_transfers',
    doc: 'ERC-20 Transfer(address,address,uint256) events (3 topics, 32 bytes of data)',
    columns: [
      ...where,
      c('contract_address', 'VARCHAR', 'token contract'),
      c('"from"', 'VARCHAR', 'sender (0x000… for a mint)'),
      c('"to"', 'VARCHAR', 'recipient (0x000… for a burn)'),
      c('value', 'HUGEINT', 'amount in the token\'s smallest unit (NULL when 2^127 or more: see value_raw)'),
      c('value_raw', 'VARCHAR', 'the amount as a decimal string, only when it does not fit value'),
    ],
  },
  {
    name: 'erc721_transfers',
    doc: 'ERC-721 Transfer events (the same signature with the token id indexed: 4 topics)',
    columns: [
      ...where,
      c('contract_address', 'VARCHAR', 'collection contract'),
      c('"from"', 'VARCHAR', 'sender (0x000… for a mint)'),
      c('"to"', 'VARCHAR', 'recipient'),
      c('token_id', 'HUGEINT', 'token id (NULL when 2^127 or more: see token_id_raw)'),
      c('token_id_raw', 'VARCHAR', 'token id as a decimal string, only when it does not fit token_id'),
    ],
  },
  {
    name: 'erc1155_transfers',
    doc: 'ERC-1155 TransferSingle and TransferBatch events, one row per token id',
    columns: [
      ...where,
      c('batch_index', 'UINTEGER', 'position in a TransferBatch (0 for TransferSingle)'),
      c('contract_address', 'VARCHAR', 'token contract'),
      c('operator', 'VARCHAR', 'who moved the tokens'),
      c('"from"', 'VARCHAR', 'sender'),
      c('"to"', 'VARCHAR', 'recipient'),
      c('token_id', 'HUGEINT', 'token id (NULL when 2^127 or more: see token_id_raw)'),
      c('token_id_raw', 'VARCHAR', 'token id as a decimal string, only when it does not fit token_id'),
      c('value', 'HUGEINT', 'amount (NULL when 2^127 or more: see value_raw)'),
      c('value_raw', 'VARCHAR', 'amount as a decimal string, only when it does not fit value'),
    ],
  },
  {
    name: 'uniswap_v2_swaps',
    doc: 'Uniswap v2-style Swap(address,uint256,uint256,uint256,uint256,address) events of any pair',
    columns: [
      ...where,
      c('pair_address', 'VARCHAR', 'pair contract'),
      c('sender', 'VARCHAR', 'caller (usually a router)'),
      c('"to"', 'VARCHAR', 'recipient of the output'),
      c('amount0_in', 'HUGEINT', 'token0 in'),
      c('amount1_in', 'HUGEINT', 'token1 in'),
      c('amount0_out', 'HUGEINT', 'token0 out'),
      c('amount1_out', 'HUGEINT', 'token1 out'),
    ],
  },
  {
    name: 'uniswap_v3_swaps',
    doc: 'Uniswap v3-style Swap(address,address,int256,int256,uint160,uint128,int24) events of any pool',
    columns: [
      ...where,
      c('pool_address', 'VARCHAR', 'pool contract'),
      c('sender', 'VARCHAR', 'caller (usually a router)'),
      c('recipient', 'VARCHAR', 'recipient of the output'),
      c('amount0', 'HUGEINT', 'token0 delta of the pool (positive: into the pool)'),
      c('amount1', 'HUGEINT', 'token1 delta of the pool'),
      c('sqrt_price_x96', 'HUGEINT', 'pool price after the swap, sqrt(token1/token0) × 2^96 (NULL when 2^127 or more)'),
      c('liquidity', 'HUGEINT', 'in-range liquidity after the swap'),
      c('tick', 'INTEGER', 'tick after the swap'),
    ],
  },
];

export const TABLE_NAMES: ReadonlySet<string> = new Set(TABLES.map((t) => t.name));

/** Where the indexer keeps its cursors; never queryable through analytics-query. */
export const STATE_SCHEMA = 'percall_index';

/** DDL of one chain schema (idempotent). `chain` must be a known chain name (it is interpolated). */
export function chainSchemaSql(chain: string): string {
  if (!/^[a-z]+$/.test(chain)) throw new Error(`not a chain name: ${chain}`);
  const tables = TABLES.map((t) => `CREATE TABLE IF NOT EXISTS ${chain}.${t.name} (${t.columns.map((col) => `${col.name} ${col.type}`).join(', ')});`);
  return [`CREATE SCHEMA IF NOT EXISTS ${chain};`, ...tables].join('\n');
}

export const STATE_SQL = `
CREATE SCHEMA IF NOT EXISTS ${STATE_SCHEMA};
CREATE TABLE IF NOT EXISTS ${STATE_SCHEMA}.cursors (
  chain VARCHAR PRIMARY KEY,
  chain_id UBIGINT NOT NULL,
  start_block UBIGINT NOT NULL,
  head_block BIGINT NOT NULL,
  head_hash VARCHAR,
  updated_at TIMESTAMP NOT NULL
);
`;
