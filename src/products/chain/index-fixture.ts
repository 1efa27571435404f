/**
 * For unit tests of the index-backed products: the real index engine (DuckDB in memory, the same
 * schema, guard and query engine the worker runs) holding rows a test writes, behind the ChainIndex
 * interface products read. Kept out of the products' imports, so the running service never loads it.
 */
import { IndexDatabase } from '../../index/database.ts';
import { emptyRows, micros, type ChainRows, type Row, type Value } from '../../index/decode.ts';
import { QueryEngine } from '../../index/query.ts';
import { TABLES } from '../../index/schema.ts';
import type { AnalyticsExecution, ChainIndex } from '../kit/chain-index.ts';

export type TableName = keyof ChainRows;
type Fields = Record<string, Value | Date | number | undefined>;

/** A row of `table` from named fields (column names without quotes); missing ones are NULL, times may be Dates. */
export function row(table: TableName, fields: Fields): Row {
  const columns = TABLES.find((t) => t.name === table)!.columns;
  return columns.map((c) => {
    const name = c.name.replaceAll('"', '');
    const value = fields[name];
    if (value === undefined || value === null) return null;
    if (value instanceof Date) return micros(BigInt(Math.floor(value.getTime() / 1000)));
    if (typeof value === 'number' && c.type !== 'UINTEGER' && c.type !== 'UTINYINT' && c.type !== 'INTEGER') return BigInt(value);
    if (typeof value === 'string' && c.type !== 'VARCHAR') return BigInt(value);
    return value;
  });
}

/**
 * Blocks `from`..`to`, one every `secondsApart` seconds ending at `end`: enough for the products'
 * range and times. Block n's hash is derived from n.
 */
export function blocks(from: number, to: number, end: Date, secondsApart = 2): Row[] {
  const out: Row[] = [];
  for (let n = from; n <= to; n++) {
    out.push(row('blocks', { number: n, hash: blockHash(n), parent_hash: blockHash(n - 1), time: blockTime(n, to, end, secondsApart), gas_used: 0, gas_limit: 30_000_000, tx_count: 0, miner: `0x${'0'.repeat(40)}` }));
  }
  return out;
}

export const blockHash = (n: number) => `0x${(n + 1).toString(16).padStart(64, '0')}`;
export const blockTime = (n: number, last: number, end: Date, secondsApart = 2) => new Date(end.getTime() - (last - n) * secondsApart * 1000);

/** A ChainIndex over an in-memory DuckDB holding `rows` for `chain`; `close()` when done. */
export async function memoryIndex(rows: Partial<ChainRows>, options: { chain?: string; network?: string } = {}): Promise<ChainIndex & { close(): void }> {
  const chain = options.chain ?? 'base';
  const db = await IndexDatabase.open({ path: ':memory:', memoryLimit: '128MB', threads: 1, chains: [chain] });
  const all = { ...emptyRows(), ...rows };
  const numbers = all.blocks.map((b) => b[0] as bigint);
  if (numbers.length > 0) {
    const from = numbers.reduce((a, b) => (a < b ? a : b));
    const to = numbers.reduce((a, b) => (a > b ? a : b));
    await db.writeBlocks(chain, all, { from, to, replace: false });
  }
  const engine = await QueryEngine.create(db, { timeoutMs: 5_000, maxRows: 10_000, maxBytes: 4 * 1024 * 1024, concurrency: 2 }, '128MB');
  return {
    chains: () => new Map([[chain, options.network ?? 'eip155:31337']]),
    query: (on, sql) => engine.run(on, sql),
    check: (on, sql) => engine.check(on, sql),
    savedQuery: async () => undefined,
    saveExecution: async (e) => ({ ...e, id: '01KAQZ3W8M6TG7V1Y2C4N5P9RX', executedAt: e.executedAt.toISOString(), expiresAt: new Date(e.executedAt.getTime() + 86_400_000).toISOString() }) satisfies AnalyticsExecution,
    close: () => {
      engine.close();
      db.close();
    },
  };
}
