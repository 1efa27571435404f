/**
 * Runs callers' SQL over the index: a pool of connections of the index's DuckDB instance (whose
 * configuration is locked, external access and extensions off: database.ts), each statement checked
 * by the guard (sql-guard.ts), run in a READ ONLY transaction with the chain as its search path,
 * interrupted at the time limit, and read only as far as the row and size caps (a result of millions
 * of rows is cut off, never materialised).
 */
import duckdb from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { IndexCheckOutcome, IndexQueryOutcome, QueryColumn, QueryResult } from '../products/kit/chain-index.ts';
import type { IndexDatabase } from './database.ts';
import type { QueryLimits } from './settings.ts';
import { cleanMessage, guardSql, type GuardScope } from './sql-guard.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** ISO 8601 (UTC, microseconds kept) of a TIMESTAMP's microseconds since the epoch. */
function isoMicros(micros: bigint, fallback: string): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return fallback;
  const sub = ((micros % 1000n) + 1000n) % 1000n;
  const iso = date.toISOString();
  return sub === 0n ? iso : `${iso.slice(0, -1)}${sub.toString().padStart(3, '0')}Z`;
}

/** A DuckDB value as JSON (see QueryResult for the rules). */
export function jsonValue(value: DuckDBValue): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
  if (value instanceof duckdb.DuckDBTimestampValue || value instanceof duckdb.DuckDBTimestampTZValue) return isoMicros(value.micros, value.toString());
  if (value instanceof duckdb.DuckDBTimestampMillisecondsValue) return isoMicros(value.millis * 1000n, value.toString());
  if (value instanceof duckdb.DuckDBTimestampSecondsValue) return isoMicros(value.seconds * 1_000_000n, value.toString());
  if (value instanceof duckdb.DuckDBListValue || value instanceof duckdb.DuckDBArrayValue) return value.items.map(jsonValue);
  if (value instanceof duckdb.DuckDBStructValue) return Object.fromEntries(Object.entries(value.entries).map(([k, v]) => [k, jsonValue(v)]));
  if (value instanceof duckdb.DuckDBMapValue) return value.entries.map((e) => ({ key: jsonValue(e.key), value: jsonValue(e.value) }));
  if (value instanceof duckdb.DuckDBBlobValue) return `0x${Buffer.from(value.bytes).toString('hex')}`;
  return String(value); // DECIMAL (exact), DATE, TIME, INTERVAL, UUID, BIT, UNION…
}

/** The kinds of DuckDB error that mean the caller's statement is at fault (422), not the index. */
const CALLER_ERRORS = /^(Binder|Catalog|Parser|Conversion|Invalid Input|Out of Range|Not implemented|Constraint|Permission|Dependency|Syntax|Invalid type|Mismatch Type|Sequence|Invalid) Error/i;

export class QueryEngine {
  private readonly idle: DuckDBConnection[];
  /** Checks (the unpaid 402's, saved queries') have a connection of their own: they never take a query's. */
  private checker: DuckDBConnection | undefined;

  private constructor(
    private readonly db: IndexDatabase,
    connections: DuckDBConnection[],
    checker: DuckDBConnection,
    private readonly scope: GuardScope,
    private readonly limits: QueryLimits,
    private readonly memoryLimit: string,
  ) {
    this.idle = connections;
    this.checker = checker;
  }

  static async create(db: IndexDatabase, limits: QueryLimits, memoryLimit: string): Promise<QueryEngine> {
    const connections = await Promise.all(Array.from({ length: limits.concurrency + 1 }, () => db.instance.connect()));
    const checker = connections.pop()!;
    const probe = connections[0]!;
    const catalog = String((await probe.runAndReadAll('SELECT current_database()')).getRows()[0]![0]).toLowerCase();
    const chains = new Set(db.chains);
    // Chain names are plain lowercase words (schema.ts checks them before any schema is made).
    const listed = [...chains].map((c) => `'${c}'`).join(', ') || `''`;
    const names = await probe.runAndReadAll(`SELECT lower(view_name) FROM duckdb_views() UNION SELECT lower(table_name) FROM duckdb_tables() WHERE schema_name NOT IN (${listed})`);
    const systemNames = new Set(names.getRows().map((r) => String(r[0])));
    return new QueryEngine(db, connections, checker, { catalog, chains, systemNames }, limits, memoryLimit);
  }

  /** Runs one caller statement with `chain` as its default schema. */
  async run(chain: string, sql: string): Promise<IndexQueryOutcome> {
    if (!this.db.chains.includes(chain)) return { kind: 'refused', status: 422, code: 'chain_not_configured', message: `chain ${chain} is not indexed on this instance (indexed: ${this.db.chains.join(', ')})` };
    const connection = this.idle.pop();
    if (!connection) return { kind: 'unavailable', busy: true, message: 'the analytics engine is busy; retry in a moment' };
    const started = Date.now();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, this.limits.timeoutMs);
    try {
      await connection.run(`SET search_path = '${chain}'`);
      await connection.run('BEGIN TRANSACTION READ ONLY');
      const verdict = await guardSql(connection, sql, this.scope);
      if (!verdict.ok) return timedOut ? this.timeout() : { kind: 'refused', status: verdict.status, message: verdict.message };
      try {
        const result = await this.read(verdict.prepared);
        const indexedBlock = await this.indexedBlock(connection, chain);
        return { kind: 'ok', result, indexedBlock, elapsedMs: Date.now() - started };
      } finally {
        verdict.prepared.destroySync();
      }
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (timedOut || /^INTERRUPT/i.test(message)) return this.timeout();
      if (/out of memory/i.test(message)) {
        return { kind: 'refused', status: 422, message: `the query needs more memory than the index allows (${this.memoryLimit}); filter or aggregate more` };
      }
      if (CALLER_ERRORS.test(message)) return { kind: 'refused', status: 422, message: cleanMessage(message, this.db.path) };
      return { kind: 'unavailable', message: `the index could not run the query (${cleanMessage(message, this.db.path).slice(0, 200)})` };
    } finally {
      clearTimeout(timer);
      await connection.run('ROLLBACK').catch(() => undefined);
      this.idle.push(connection);
    }
  }

  /** Whether `sql` would be accepted (parsed, guarded and bound; not run): the unpaid 402, saved queries. */
  async check(chain: string, sql: string): Promise<IndexCheckOutcome> {
    if (!this.db.chains.includes(chain)) return { kind: 'refused', status: 422, code: 'chain_not_configured', message: `chain ${chain} is not indexed on this instance (indexed: ${this.db.chains.join(', ')})` };
    const connection = this.checker;
    if (!connection) return { kind: 'unavailable', busy: true, message: 'the analytics engine is busy checking another query; retry in a moment' };
    this.checker = undefined;
    try {
      await connection.run(`SET search_path = '${chain}'`);
      await connection.run('BEGIN TRANSACTION READ ONLY');
      const verdict = await guardSql(connection, sql, this.scope);
      if (!verdict.ok) return { kind: 'refused', status: verdict.status, message: verdict.message };
      verdict.prepared.destroySync();
      return { kind: 'ok' };
    } catch (error) {
      return { kind: 'unavailable', message: `the index could not check the query (${cleanMessage((error as Error).message ?? String(error), this.db.path).slice(0, 200)})` };
    } finally {
      await connection.run('ROLLBACK').catch(() => undefined);
      this.checker = connection;
    }
  }

  private timeout(): IndexQueryOutcome {
    return {
      kind: 'refused',
      status: 422,
      code: 'query_timeout',
      message: `the query ran longer than ${this.limits.timeoutMs / 1000} s and was stopped; narrow it (a block range, fewer joins) or aggregate more`,
    };
  }

  /** Streams the result up to the row and byte caps. */
  private async read(prepared: Awaited<ReturnType<DuckDBConnection['prepare']>>): Promise<QueryResult> {
    const result = await prepared.stream();
    const names = result.columnNames();
    const types = result.columnTypes();
    const columns: QueryColumn[] = names.map((name, i) => ({ name, type: types[i]!.toString() }));
    const rows: unknown[][] = [];
    let bytes = 2;
    let truncated = false;
    reading: for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const raw of chunk.getRows()) {
        if (rows.length >= this.limits.maxRows) {
          truncated = true;
          break reading;
        }
        const row = raw.map(jsonValue);
        const size = JSON.stringify(row).length + 1;
        if (bytes + size > this.limits.maxBytes) {
          truncated = true;
          break reading;
        }
        bytes += size;
        rows.push(row);
      }
    }
    return { columns, rows, row_count: rows.length, truncated };
  }

  /** The highest block of `chain` in the snapshot the statement read. */
  private async indexedBlock(connection: DuckDBConnection, chain: string): Promise<number | null> {
    const value = (await connection.runAndReadAll(`SELECT max(number) FROM ${chain}.blocks`)).getRows()[0]?.[0];
    return value === null || value === undefined ? null : Number(value);
  }

  close(): void {
    this.checker?.closeSync();
    this.checker = undefined;
    for (const connection of this.idle.splice(0)) connection.closeSync();
  }
}
