import pg from 'pg';
import { SqlStore, type SqlDriver } from './sql-store.ts';

export interface PostgresOptions {
  url: string;
  /** Connections per instance; several instances share the server's max_connections. */
  poolSize: number;
  /** Server-side limit on any single statement. */
  statementTimeoutMs: number;
}

/**
 * The store on a PostgreSQL server, shared by any number of instances: same SQL and migrations as
 * the embedded store (the migration runs under an advisory lock, so instances may start together).
 * Opening never fails on an unreachable server: statements fail with StoreUnavailableError until it is
 * back, and the schema is applied on first success.
 */
export function openPostgresStore(options: PostgresOptions): SqlStore {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: options.statementTimeoutMs * 2,
    connectionTimeoutMillis: 5_000,
    application_name: 'percall',
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const driver: SqlDriver = {
    query: async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows as T[],
    transaction: async (fn) => {
      const client = await pool.connect();
      // A connection lost while the client is checked out is reported on the client, not the pool:
      // unheard, it would crash the process. The query under way fails anyway; the client is dropped.
      let lost: Error | undefined;
      const onLost = (error: Error) => (lost = error);
      client.on('error', onLost);
      try {
        await client.query('BEGIN');
        const result = await fn({ query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[] });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.off('error', onLost);
        client.release(lost);
      }
    },
    close: () => pool.end(),
  };
  return new SqlStore(driver, false);
}
