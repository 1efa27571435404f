/**
 * The block index as products reach it (src/index/ runs it): read-only SQL over the indexed chains,
 * the operator's saved queries, and stored executions. Products see only this interface; the
 * engine (DuckDB in a child process) stays behind it.
 */

/** Free doors of analytics-query (http/analytics-routes.ts serves them). */
export const ANALYTICS_EXECUTIONS_PATH = '/api/v1/analytics-query/executions';
export const ANALYTICS_SAVED_QUERIES_PATH = '/api/v1/analytics-query/queries';

/** One result column: its name and its SQL type as DuckDB names it (`UBIGINT`, `HUGEINT`, `DECIMAL(38,6)`, …). */
export interface QueryColumn {
  name: string;
  type: string;
}

/**
 * A query's rows as JSON: integers are numbers while within ±(2^53−1) and decimal strings beyond
 * (never a lost digit), DECIMAL values are decimal strings, timestamps ISO 8601, blobs `0x` hex.
 */
export interface QueryResult {
  columns: QueryColumn[];
  rows: unknown[][];
  row_count: number;
  /** The row or size cap cut the result off: more rows would have followed. */
  truncated: boolean;
}

/**
 * What became of a query: its result; refused as the caller's SQL (syntax, a statement or table that
 * is not allowed, over the time or memory limit: never charged); or not answered because the
 * index is not there or busy (our side: never charged either).
 */
export type IndexQueryOutcome =
  | { kind: 'ok'; result: QueryResult; indexedBlock: number | null; elapsedMs: number }
  | { kind: 'refused'; status: 400 | 422; message: string; code?: string }
  | { kind: 'unavailable'; message: string; busy?: boolean };

/**
 * Whether a statement would run, without running it (parsed, guarded and bound): `ok`, refused as
 * the caller's SQL, or not known now (the index is not there or busy).
 */
export type IndexCheckOutcome =
  | { kind: 'ok' }
  | { kind: 'refused'; status: 400 | 422; message: string; code?: string }
  | { kind: 'unavailable'; message: string; busy?: boolean };

/** A query the operator saved (`percall queries add`), callable by its number. */
export interface SavedQuery {
  id: number;
  name: string;
  description: string;
  sql: string;
  createdAt: string;
}

/** A stored execution: the same result, fetched again free while it lasts. */
export interface AnalyticsExecution {
  id: string;
  chain: string;
  network: string;
  sql: string;
  savedQueryId: number | null;
  indexedBlock: number | null;
  result: QueryResult;
  executedAt: string;
  expiresAt: string;
}

export interface ChainIndex {
  /** The indexed chains and the CAIP-2 network each really is (dev: `base` is `eip155:31337`). */
  chains(): ReadonlyMap<string, string>;
  /** Runs one read-only statement over the index; `chain` is its default schema. */
  query(chain: string, sql: string, signal?: AbortSignal): Promise<IndexQueryOutcome>;
  /** Checks one statement as `query` would, without running it (the unpaid 402 of analytics-query). */
  check(chain: string, sql: string): Promise<IndexCheckOutcome>;
  savedQuery(id: number): Promise<SavedQuery | undefined>;
  /** Keeps an execution for the retention window and returns it with its id and expiry. */
  saveExecution(execution: Omit<AnalyticsExecution, 'id' | 'expiresAt' | 'executedAt'> & { executedAt: Date }): Promise<AnalyticsExecution>;
}
