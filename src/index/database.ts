/**
 * The index's DuckDB file: opened once per process with a memory limit, few threads, no external
 * access (no files but its own, no network), no extension loading and, once the schemas exist, a
 * locked configuration. One writer connection, shared by the follower and backfills one
 * transaction at a time; queries use connections of their own (query.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import duckdb from '@duckdb/node-api';
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { ChainRows, Row } from './decode.ts';
import { STATE_SCHEMA, STATE_SQL, TABLES, chainSchemaSql } from './schema.ts';

export interface OpenOptions {
  path: string;
  memoryLimit: string;
  threads: number;
  chains: readonly string[];
}

/** Raised when another process holds the file (DuckDB allows one writer process). */
export class IndexLockedError extends Error {
  override name = 'IndexLockedError';
}

export interface Cursor {
  chain: string;
  chainId: number;
  startBlock: bigint;
  /** Last block ingested contiguously from startBlock; startBlock − 1 before the first. */
  headBlock: bigint;
  headHash: string | null;
}

/** A promise chain: one write transaction at a time on the writer connection. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export class IndexDatabase {
  private readonly mutex = new Mutex();

  private constructor(
    readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    readonly path: string,
    readonly chains: readonly string[],
  ) {}

  static async open(options: OpenOptions): Promise<IndexDatabase> {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    let instance: DuckDBInstance;
    try {
      instance = await duckdb.DuckDBInstance.create(options.path, {
        // temp_directory must come before enable_external_access (DuckDB checks it against that setting).
        ...(options.path !== ':memory:' ? { temp_directory: `${options.path}.tmp`, max_temp_directory_size: '2GB' } : {}),
        memory_limit: options.memoryLimit,
        threads: String(options.threads),
        enable_external_access: 'false',
        autoload_known_extensions: 'false',
        autoinstall_known_extensions: 'false',
        allow_community_extensions: 'false',
        allow_unsigned_extensions: 'false',
        preserve_insertion_order: 'false',
      });
    } catch (error) {
      if (/lock/i.test((error as Error).message)) throw new IndexLockedError(`the index ${options.path} is open in another process (a running service?)`);
      throw error;
    }
    const writer = await instance.connect();
    await writer.run(STATE_SQL);
    for (const chain of options.chains) await writer.run(chainSchemaSql(chain));
    // From here on no statement, ours or a caller's, can change a setting of this instance.
    await writer.run('SET lock_configuration = true');
    return new IndexDatabase(instance, writer, options.path, options.chains);
  }

  /** Runs `fn` alone on the writer connection. */
  exclusive<T>(fn: (writer: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.mutex.run(() => fn(this.writer));
  }

  cursor(chain: string): Promise<Cursor | undefined> {
    return this.exclusive((w) => readCursor(w, chain));
  }

  /** The stored hash of block `n` of `chain`, if indexed. */
  blockHash(chain: string, n: bigint): Promise<string | undefined> {
    return this.exclusive(async (w) => {
      const reader = await w.runAndReadAll(`SELECT hash FROM ${chain}.blocks WHERE number = $1`, [n]);
      return (reader.getRows()[0]?.[0] as string | undefined) ?? undefined;
    });
  }

  /** Sets the cursor of a chain (first start, or after the chain behind the index changed). */
  setCursor(cursor: Cursor): Promise<void> {
    return this.exclusive((w) => upsertCursor(w, cursor));
  }

  /**
   * Writes the rows of blocks `from`..`to` in one transaction: rows already there for those blocks
   * are replaced (a backfill over indexed blocks, a re-ingest after a reorg), and `cursor`, when
   * given, moves with them, so a crash leaves either all of it or none.
   */
  writeBlocks(chain: string, rows: ChainRows, range: { from: bigint; to: bigint; replace: boolean }, cursor?: Cursor): Promise<void> {
    return this.exclusive(async (w) => {
      await w.run('BEGIN TRANSACTION');
      try {
        if (range.replace) await deleteBlocks(w, chain, `BETWEEN ${range.from} AND ${range.to}`);
        for (const table of TABLES) await append(w, chain, table.name, rows[table.name as keyof ChainRows]);
        if (cursor) await upsertCursor(w, cursor);
        await w.run('COMMIT');
      } catch (error) {
        await w.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Deletes every block above `ancestor` and moves the cursor back to it (a reorg). */
  rewind(chain: string, ancestor: bigint, cursor: Cursor): Promise<void> {
    return this.exclusive(async (w) => {
      await w.run('BEGIN TRANSACTION');
      try {
        await deleteBlocks(w, chain, `> ${ancestor}`);
        await upsertCursor(w, cursor);
        await w.run('COMMIT');
      } catch (error) {
        await w.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Empties a chain's tables and forgets its cursor (the chain behind the index is another one). */
  reset(chain: string): Promise<void> {
    return this.exclusive(async (w) => {
      await w.run('BEGIN TRANSACTION');
      try {
        for (const table of TABLES) await w.run(`DELETE FROM ${chain}.${table.name}`);
        await w.run(`DELETE FROM ${STATE_SCHEMA}.cursors WHERE chain = $1`, [chain]);
        await w.run('COMMIT');
      } catch (error) {
        await w.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Rows per table of a chain, and the blocks it holds. */
  stats(chain: string): Promise<{ tables: Record<string, number>; minBlock: number | null; maxBlock: number | null; blocks: number }> {
    return this.exclusive((w) => readStats(w, chain));
  }

  close(): void {
    try {
      this.writer.closeSync();
    } finally {
      this.instance.closeSync();
    }
  }
}

async function readCursor(w: DuckDBConnection, chain: string): Promise<Cursor | undefined> {
  const reader = await w.runAndReadAll(`SELECT chain_id, start_block, head_block, head_hash FROM ${STATE_SCHEMA}.cursors WHERE chain = $1`, [chain]);
  const row = reader.getRows()[0];
  if (!row) return undefined;
  return { chain, chainId: Number(row[0]), startBlock: row[1] as bigint, headBlock: row[2] as bigint, headHash: (row[3] as string | null) ?? null };
}

async function readStats(w: DuckDBConnection, chain: string): Promise<{ tables: Record<string, number>; minBlock: number | null; maxBlock: number | null; blocks: number }> {
    const counts = TABLES.map((t) => `(SELECT count(*) FROM ${chain}.${t.name}) AS ${t.name}`).join(', ');
    const reader = await w.runAndReadAll(`SELECT ${counts}, (SELECT min(number) FROM ${chain}.blocks), (SELECT max(number) FROM ${chain}.blocks)`);
    const row = reader.getRows()[0]!;
    const tables: Record<string, number> = {};
    TABLES.forEach((t, i) => (tables[t.name] = Number(row[i])));
    const min = row[TABLES.length] as bigint | null;
    const max = row[TABLES.length + 1] as bigint | null;
    return { tables, minBlock: min === null ? null : Number(min), maxBlock: max === null ? null : Number(max), blocks: tables.blocks ?? 0 };
}

async function deleteBlocks(w: DuckDBConnection, chain: string, condition: string): Promise<void> {
  for (const table of TABLES) await w.run(`DELETE FROM ${chain}.${table.name} WHERE ${table.name === 'blocks' ? 'number' : 'block_number'} ${condition}`);
}

async function upsertCursor(w: DuckDBConnection, cursor: Cursor): Promise<void> {
  await w.run(
    `INSERT OR REPLACE INTO ${STATE_SCHEMA}.cursors (chain, chain_id, start_block, head_block, head_hash, updated_at) VALUES ($1, $2, $3, $4, $5, now()::TIMESTAMP)`,
    [cursor.chain, BigInt(cursor.chainId), cursor.startBlock, cursor.headBlock, cursor.headHash],
  );
}

type Appender = (appender: DuckDBAppender, value: Exclude<Row[number], null>) => void;

const APPENDERS: Record<string, Appender> = {
  UBIGINT: (a, v) => a.appendUBigInt(v as bigint),
  HUGEINT: (a, v) => a.appendHugeInt(v as bigint),
  UINTEGER: (a, v) => a.appendUInteger(Number(v)),
  UTINYINT: (a, v) => a.appendUTinyInt(Number(v)),
  INTEGER: (a, v) => a.appendInteger(Number(v)),
  BOOLEAN: (a, v) => a.appendBoolean(v as boolean),
  VARCHAR: (a, v) => a.appendVarchar(v as string),
  TIMESTAMP: (a, v) => a.appendTimestamp(new duckdb.DuckDBTimestampValue(v as bigint)),
};

const COLUMN_APPENDERS = new Map(TABLES.map((t) => [t.name, t.columns.map((c) => APPENDERS[c.type]!)] as const));

async function append(w: DuckDBConnection, chain: string, table: string, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const appenders = COLUMN_APPENDERS.get(table)!;
  const appender = await w.createAppender(table, chain);
  try {
    for (const row of rows) {
      for (let i = 0; i < appenders.length; i++) {
        const value = row[i];
        if (value === null || value === undefined) appender.appendNull();
        else appenders[i]!(appender, value);
      }
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
