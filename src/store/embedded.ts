import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { SqlStore, type SqlDriver } from './sql-store.ts';

/**
 * The embedded default: PGlite (PostgreSQL compiled to WebAssembly) keeping its files under
 * `<dataDir>/db`. It runs the very SQL the PostgreSQL store runs, so one schema serves both.
 * Pass `memory://` as dataDir for a throwaway store.
 */
export async function openEmbeddedStore(dataDir: string): Promise<SqlStore> {
  let location = 'memory://';
  if (dataDir !== 'memory://') {
    location = join(dataDir, 'db');
    await mkdir(location, { recursive: true });
  }
  const pg = await PGlite.create(location);
  const driver: SqlDriver = {
    query: async <T>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params)).rows,
    transaction: (fn) => pg.transaction((tx) => fn({ query: async <T>(sql: string, params?: unknown[]) => (await tx.query<T>(sql, params)).rows })),
    close: () => pg.close(),
  };
  const store = await SqlStore.open(driver);
  // PGlite holds the directory exclusively, so whatever is in flight in it belongs to a dead process.
  await store.recoverInterrupted();
  return store;
}
