import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { bindLiterals } from './literals.ts';
import { SqlStore, StoreUnavailableError, type SqlDriver } from './sql-store.ts';
import { withDeadline } from '../deadline.ts';

export interface EmbeddedStoreOptions {
  /** Longest wait for one statement (the database's own limit on PostgreSQL). */
  statementTimeoutMs?: number;
  /**
   * A migrated database to start a fresh one from (see buildEmbeddedTemplate), skipping PGlite's
   * initdb, the bulk of a first open. Tests use one; a directory that holds a database ignores it.
   */
  template?: string;
}

/**
 * PostgreSQL's memory settings for one in-process connection. PGlite's defaults size shared buffers
 * and WAL buffers for a server with many connections; these keep about 150 MB less resident (see the
 * README's memory figures) for a store that holds the service's bookkeeping, not bulk data.
 */
const EMBEDDED_SETTINGS = ['shared_buffers=4MB', 'wal_buffers=1MB', 'work_mem=1MB', 'maintenance_work_mem=4MB', 'temp_buffers=1MB'];

/**
 * Creates the database cluster in `location` from a short-lived child process. initdb's memory is
 * never handed back to the OS by the process that ran it (a first start otherwise stays ~400 MB
 * larger); the child takes it with it when it exits.
 */
async function initdbInChild(location: string): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = `require(process.argv[1]).PGlite.create(process.argv[2]).then((pg) => pg.close()).catch((e) => { console.error(e); process.exit(1); })`;
  await promisify(execFile)(process.execPath, ['-e', script, pglite, location], { maxBuffer: 1 << 20 });
}

/**
 * Writes a migrated, empty embedded database to `path` (PGlite's data directory as a tar), for
 * openEmbeddedStore's `template`.
 */
export async function buildEmbeddedTemplate(path: string): Promise<void> {
  const pg = await PGlite.create('memory://');
  try {
    await new SqlStore(pgliteDriver(pg, { close: () => pg.close() }), true).ensureSchema();
    await writeFile(path, Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await pg.close();
  }
}

/**
 * The embedded default: PGlite (PostgreSQL compiled to WebAssembly) keeping its files under
 * `<dataDir>/db`. It runs the very SQL the PostgreSQL store runs, so one schema serves both.
 * Pass `memory://` for a throwaway store.
 */
export async function openEmbeddedStore(dataDir: string, options: EmbeddedStoreOptions = {}): Promise<SqlStore> {
  let location = 'memory://';
  let unlock = async () => {};
  if (dataDir !== 'memory://') {
    location = join(dataDir, 'db');
    await mkdir(location, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  try {
    const fresh = location === 'memory://' || !existsSync(join(location, 'PG_VERSION'));
    if (fresh && !options.template && location !== 'memory://') await initdbInChild(location);
    const pg = await PGlite.create(location, {
      postgresqlconf: EMBEDDED_SETTINGS,
      ...(fresh && options.template ? { loadDataDir: new Blob([await readFile(options.template)]) } : {}),
    });
    // PostgreSQL's statement_timeout, for an engine without one: a caller stops waiting (503, nothing
    // charged) although the statement, queued behind others in this one connection, may still run.
    // Migrations at open are not bounded: a first start on a slow disk may take its time.
    let limitMs: number | undefined;
    const bounded = <T>(work: Promise<T>): Promise<T> =>
      limitMs === undefined ? work : withDeadline(work, limitMs, () => new StoreUnavailableError(`the embedded database did not answer within ${limitMs} ms`));
    const driver = pgliteDriver(pg, {
      bounded,
      // PGlite's WebAssembly file system never calls fsync (strace shows none, even with fsync=on): its
      // writes reach the OS page cache, which survives a killed process but not an OS crash. A ledger
      // row acknowledged to a payer must survive that too, so the WAL segment is fsynced from here.
      ...(location === 'memory://' ? {} : { flush: () => syncWal(pg, location) }),
      close: async () => {
        await pg.close();
        await unlock();
      },
    });
    // The lock makes this process the directory's only user (`exclusive`): whatever another
    // instance left in flight belongs to a dead process, which the reconciler acts on at once.
    const store = new SqlStore(driver, true);
    await store.ensureSchema();
    limitMs = options.statementTimeoutMs;
    return store;
  } catch (error) {
    await unlock();
    throw error;
  }
}

/**
 * The SqlDriver over one PGlite. PGlite is in-process: the extended protocol's parse/bind round trips
 * cost more CPU than the statements themselves, so parameters are bound as escaped literals and sent
 * as one simple query. `bounded` limits each statement or transaction.
 */
function pgliteDriver(pg: PGlite, options: Pick<SqlDriver, 'flush' | 'close'> & { bounded?: <T>(work: Promise<T>) => Promise<T> }): SqlDriver {
  const run = async <T>(target: Pick<PGlite, 'exec'>, sql: string, params?: unknown[]) => ((await target.exec(bindLiterals(sql, params))).at(-1)?.rows ?? []) as T[];
  const bounded = options.bounded ?? (<T>(work: Promise<T>) => work);
  return {
    query: (sql, params) => bounded(run(pg, sql, params)),
    transaction: (fn) => bounded(pg.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) }))),
    ...(options.flush ? { flush: options.flush } : {}),
    close: options.close,
  };
}

/** fsyncs the WAL segment holding the latest commit. */
async function syncWal(pg: PGlite, location: string): Promise<void> {
  const rows = (await pg.exec('SELECT pg_walfile_name(pg_current_wal_lsn()) AS f')).at(-1)?.rows as { f: string }[] | undefined;
  const segment = rows?.[0]?.f;
  if (!segment || !/^[0-9A-F]{24}$/.test(segment)) return;
  const handle = await open(join(location, 'pg_wal', segment), 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
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
