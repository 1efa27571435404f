/**
 * What SQL a caller may run over the index, decided on DuckDB's own parse tree
 * (`json_serialize_sql`, which only serializes SELECT statements) and then on the prepared statement:
 *
 * - exactly one statement, a SELECT (`WITH … SELECT`, `VALUES`, `FROM t` included): COPY, ATTACH,
 *   INSTALL, LOAD, SET, PRAGMA, SHOW, DESCRIBE, CALL, EXPLAIN and any write are refused;
 * - tables: the chain schemas' tables (`base.erc20_transfers`, or unqualified in the chain asked
 *   for), the query's own CTEs, and `information_schema.tables|columns|schemata`; nothing of the
 *   indexer's bookkeeping, DuckDB's catalog views (`duckdb_databases` names the file) or files;
 * - table functions: `range`, `generate_series`, `unnest` only (no `read_csv`, `query`, `duckdb_*`,
 *   `pragma_*`); scalar functions that read settings or sequences are refused.
 *
 * This is the first line. The connection is the second: external access and extension loading are
 * off and the configuration is locked for the whole instance (database.ts), and every statement runs
 * in a READ ONLY transaction (query.ts).
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import duckdb from '@duckdb/node-api';
import { TABLE_NAMES } from './schema.ts';

export type GuardVerdict = { ok: true } | { ok: false; status: 400 | 422; message: string };

export interface GuardScope {
  /** The database's catalog name (a table may be qualified with it). */
  catalog: string;
  /** The indexed chain schemas. */
  chains: ReadonlySet<string>;
  /** Names of DuckDB's own tables and views (a CTE may not take one: it would shadow nothing in some scope). */
  systemNames: ReadonlySet<string>;
}

/** Longest SQL text taken. */
export const MAX_SQL_LENGTH = 20_000;

const TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest']);
const INFORMATION_SCHEMA = new Set(['tables', 'columns', 'schemata']);
/** Scalar functions that read the instance's settings or variables, or change state. */
const FUNCTIONS_REFUSED = new Set(['current_setting', 'getvariable', 'nextval', 'currval', 'getenv', 'setseed', 'write_log', 'enable_logging', 'disable_logging', 'truncate_duckdb_logs']);
const TABLE_REF_TYPES = new Set(['BASE_TABLE', 'JOIN', 'SUBQUERY', 'TABLE_FUNCTION', 'EMPTY', 'EXPRESSION_LIST', 'PIVOT']);
const QUERY_NODE_TYPES = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'RECURSIVE_CTE_NODE', 'CTE_NODE']);

const refuse = (status: 400 | 422, message: string): GuardVerdict => ({ ok: false, status, message });

/** The first word of a statement, for messages ("COPY is not allowed"). */
function keyword(sql: string): string {
  const word = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, '').match(/^[A-Za-z]+/)?.[0];
  return word ? word.toUpperCase() : 'this statement';
}

type Node = Record<string, unknown>;

function* objects(value: unknown): Generator<Node> {
  if (Array.isArray(value)) {
    for (const item of value) yield* objects(item);
  } else if (value && typeof value === 'object') {
    yield value as Node;
    for (const child of Object.values(value)) yield* objects(child);
  }
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

/** Checks a parse tree (json_serialize_sql's `statements`) against the scope. */
export function checkTree(statements: unknown[], scope: GuardScope): GuardVerdict {
  if (statements.length !== 1) return refuse(422, `exactly one statement is allowed, got ${statements.length}`);
  const ctes = new Set<string>();
  for (const node of objects(statements)) {
    const map = (node.cte_map as { map?: { key?: unknown }[] } | undefined)?.map;
    for (const entry of map ?? []) ctes.add(lower(entry.key));
  }
  for (const name of ctes) {
    if (scope.systemNames.has(name) || /^(duckdb_|pragma_|sqlite_|pg_)/.test(name)) return refuse(422, `a CTE may not be named ${name}`);
  }
  for (const node of objects(statements)) {
    if (typeof node.class === 'string') {
      if (node.class === 'FUNCTION') {
        const name = lower(node.function_name);
        if (FUNCTIONS_REFUSED.has(name)) return refuse(422, `the function ${name}() is not allowed`);
        if (lower(node.schema) || lower(node.catalog)) return refuse(422, `qualified function names are not allowed (${lower(node.schema)}.${name})`);
      }
      continue;
    }
    if (typeof node.type !== 'string') continue;
    if (QUERY_NODE_TYPES.has(node.type)) continue;
    if (!('sample' in node && 'alias' in node)) continue; // modifiers and the like
    if (node.type === 'SHOW_REF') return refuse(422, 'only one SELECT statement is allowed; DESCRIBE, SHOW and SUMMARIZE are not');
    if (!TABLE_REF_TYPES.has(node.type)) return refuse(422, `${node.type.toLowerCase().replaceAll('_', ' ')} is not allowed in FROM`);
    if (node.type === 'TABLE_FUNCTION') {
      const fn = node.function as Node | undefined;
      const name = lower(fn?.function_name);
      if (!TABLE_FUNCTIONS.has(name) || lower(fn?.schema) || lower(fn?.catalog)) {
        return refuse(422, `the table function ${name || '?'}() is not allowed (only ${[...TABLE_FUNCTIONS].join(', ')}); the index's tables are queried by name`);
      }
    }
    if (node.type === 'BASE_TABLE') {
      const verdict = checkTable(lower(node.catalog_name), lower(node.schema_name), lower(node.table_name), ctes, scope);
      if (!verdict.ok) return verdict;
    }
  }
  return { ok: true };
}

function checkTable(catalog: string, schema: string, table: string, ctes: ReadonlySet<string>, scope: GuardScope): GuardVerdict {
  if (/[/\\:]|\.(csv|tsv|json|jsonl|ndjson|parquet|txt|gz|zst|duckdb|db|sqlite)$/.test(table)) return refuse(422, 'reading files is not allowed; query the index\'s tables by name');
  const shown = [catalog, schema, table].filter(Boolean).join('.');
  const tables = [...TABLE_NAMES].join(', ');
  if (catalog && catalog !== scope.catalog) return refuse(422, `${shown}: only the index's tables can be queried`);
  if (schema) {
    if (scope.chains.has(schema)) return TABLE_NAMES.has(table) ? { ok: true } : refuse(422, `${shown}: no such table (tables: ${tables})`);
    if (schema === 'information_schema' && INFORMATION_SCHEMA.has(table)) return { ok: true };
    return refuse(422, `${shown}: only the chain schemas (${[...scope.chains].join(', ')}) and information_schema.tables|columns|schemata can be queried`);
  }
  if (ctes.has(table) || TABLE_NAMES.has(table)) return { ok: true };
  return refuse(422, `${shown}: no such table (tables: ${tables}, in the schemas ${[...scope.chains].join(', ')})`);
}

/** Strips what a DuckDB message may say about this machine (the file's path). */
export function cleanMessage(message: string, path?: string): string {
  let text = message.split('\n')[0]!.trim();
  if (path) text = text.split(path).join('<index>');
  return text.replace(/(\/[\w.-]+){2,}/g, '<path>').slice(0, 500);
}

/**
 * Checks `sql` with the connection's parser and binder. The statement is prepared on `connection`
 * (with the chain schema as its search path), so a statement that passes is ready to run.
 */
export async function guardSql(connection: DuckDBConnection, sql: string, scope: GuardScope): Promise<Exclude<GuardVerdict, { ok: true }> | { ok: true; prepared: DuckDBPreparedStatement }> {
  if (sql.trim() === '') return { ok: false, status: 400, message: 'the query is empty' };
  if (sql.length > MAX_SQL_LENGTH) return { ok: false, status: 400, message: `the query is longer than ${MAX_SQL_LENGTH} characters` };
  let parsed: { error: boolean; error_type?: string; error_message?: string; statements?: unknown[] };
  try {
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
    parsed = JSON.parse(String(reader.getRows()[0]![0]));
  } catch (error) {
    return { ok: false, status: 400, message: `the query could not be parsed: ${cleanMessage((error as Error).message)}` };
  }
  if (parsed.error) {
    if (parsed.error_type === 'parser') return { ok: false, status: 400, message: `syntax error: ${cleanMessage(parsed.error_message ?? 'unknown')}` };
    return { ok: false, status: 422, message: `only one SELECT statement (or WITH … SELECT) is allowed; ${keyword(sql)} is not` };
  }
  const tree = checkTree(parsed.statements ?? [], scope);
  if (!tree.ok) return tree as Exclude<GuardVerdict, { ok: true }>;
  // The parser agrees there is one statement, and the binder that it is a SELECT over what exists.
  try {
    const extracted = await connection.extractStatements(sql);
    if (extracted.count !== 1) return { ok: false, status: 422, message: `exactly one statement is allowed, got ${extracted.count}` };
    const prepared = await extracted.prepare(0);
    if (prepared.statementType === duckdb.StatementType.SELECT) return { ok: true, prepared };
    prepared.destroySync();
    return { ok: false, status: 422, message: `only one SELECT statement is allowed; ${keyword(sql)} is not` };
  } catch (error) {
    return { ok: false, status: 400, message: cleanMessage((error as Error).message) };
  }
}
