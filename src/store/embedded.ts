import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { bindLiterals } from './literals.ts';
import { SqlStore, type SqlDriver } from './sql-store.ts';

/**
 * The embedded default: PGlite (PostgreSQL compiled to WebAssembly) keeping its files under
 * `<dataDir>/db`. It runs the very SQL the PostgreSQL store runs, so one schema serves both.
 * Pass `memory://` for a throwaway store.
 */
export async function openEmbeddedStore(dataDir: string): Promise<SqlStore> {
  let location = 'memory://';
  let unlock = async () => {};
  if (dataDir !== 'memory://') {
    location = join(dataDir, 'db');
    await mkdir(location, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  try {
    const pg = await PGlite.create(location);
    // PGlite is in-process: the extended protocol's parse/bind round trips cost more CPU than the
    // statements themselves, so parameters are bound as escaped literals and sent as one simple query.
    const run = async <T>(target: Pick<PGlite, 'exec'>, sql: string, params?: unknown[]) =>
      ((await target.exec(bindLiterals(sql, params))).at(-1)?.rows ?? []) as T[];
    const driver: SqlDriver = {
      query: (sql, params) => run(pg, sql, params),
      transaction: (fn) => pg.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) })),
      close: async () => {
        await pg.close();
        await unlock();
      },
    };
    // The lock makes this process the directory's only user (`exclusive`): whatever another
    // instance left in flight belongs to a dead process, which the reconciler acts on at once.
    const store = new SqlStore(driver, true);
    await store.ensureSchema();
    return store;
  } catch (error) {
    await unlock();
    throw error;
  }
}

/**
 * PGlite must never be opened by two processes at once: a lock file holds the owner's pid.
 * A lock left by a dead process is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, 'db.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(await readFile(path, 'utf8').catch(() => ''));
      if (owner && isAlive(owner)) {
        throw new Error(`${dataDir} is in use by process ${owner}; the embedded store allows one process (use DATABASE_URL for several)`);
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
