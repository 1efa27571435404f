import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { mkdir, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { bindLiterals, literal } from './literals.ts';
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
    const wal = location === 'memory://' ? undefined : walSyncer(pg, location);
    const driver = pgliteDriver(pg, {
      bounded,
      // PGlite's WebAssembly file system never calls fsync (strace shows none, even with fsync=on): its
      // writes reach the OS page cache, which survives a killed process but not an OS crash. A ledger
      // row acknowledged to a payer must survive that too, so the WAL segment is fsynced from here.
      ...(wal ? { flush: wal.sync } : {}),
      close: async () => {
        await wal?.close();
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
 * A store over a memory-only PGlite the caller owns: closing the store calls `release` instead of
 * closing the engine. Tests reuse booted engines this way (test/helpers/store-pool.ts): PGlite's
 * start is most of a test service's start.
 */
export async function embeddedStoreOn(pg: PGlite, release: () => Promise<void>): Promise<SqlStore> {
  const store = new SqlStore(pgliteDriver(pg, { close: release }), true);
  await store.ensureSchema();
  return store;
}

/**
 * The SqlDriver over one PGlite. PGlite is in-process: the extended protocol's parse/bind round trips
 * cost more CPU than the statements themselves, so parameters are bound as escaped literals and sent
 * as one simple query. `bounded` limits each statement or transaction.
 *
 * PGlite runs one statement at a time on the main thread, and most of a small write's cost is fixed
 * (the protocol round trip, the commit and its WAL write). Single statements that arrive while one is
 * running (concurrent paid calls) are therefore sent together as one multi-statement query: one
 * commit for the group, each statement's own result handed back (see statementGroups).
 */
function pgliteDriver(pg: PGlite, options: Pick<SqlDriver, 'flush' | 'close'> & { bounded?: <T>(work: Promise<T>) => Promise<T> }): SqlDriver {
  const run = async <T>(target: Pick<PGlite, 'exec'>, sql: string, params?: unknown[]) => ((await target.exec(bindLiterals(sql, params))).at(-1)?.rows ?? []) as T[];
  const bounded = options.bounded ?? (<T>(work: Promise<T>) => work);
  const grouped = statementGroups(pg);
  const prepared = preparedStatements(pg);
  return {
    // A template holding `;` may be several statements: it runs alone (its last result, as before).
    query: <T>(sql: string, params?: unknown[]) =>
      bounded(sql.includes(';') ? run<T>(pg, sql, params) : prepared(sql, params).then((statement) => grouped(statement) as Promise<T[]>)),
    transaction: (fn) => bounded(pg.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) }))),
    ...(options.flush ? { flush: sharedFlush(options.flush) } : {}),
    close: options.close,
  };
}

/** Templates prepared at most; parameter lists longer than this (IN lists of varying length) are not prepared. */
const MAX_PREPARED = 256;
const MAX_PREPARED_PARAMS = 24;

/**
 * The statement to send for a template and its parameters. A template with parameters seen a
 * second time is prepared once (PREPARE, its parameter types inferred by PostgreSQL) and then run as
 * EXECUTE with the parameters as literals: parsing, analysis and planning are done once per template
 * instead of on every call. A template PostgreSQL cannot prepare (a parameter whose type it cannot
 * infer) keeps being sent with its literals bound in, as before.
 */
function preparedStatements(pg: PGlite): (sql: string, params?: unknown[]) => Promise<string> {
  const templates = new Map<string, { seen: number; name?: Promise<string | undefined> }>();
  let next = 0;
  return async (sql, params) => {
    if (!params || params.length === 0 || params.length > MAX_PREPARED_PARAMS) return bindLiterals(sql, params);
    let template = templates.get(sql);
    if (!template) {
      if (templates.size >= MAX_PREPARED) return bindLiterals(sql, params);
      template = { seen: 0 };
      templates.set(sql, template);
    }
    if (++template.seen < 2) return bindLiterals(sql, params);
    template.name ??= (async () => {
      const name = `percall_${next++}`;
      try {
        await pg.exec(`PREPARE ${name} AS ${sql}`);
        return name;
      } catch {
        return undefined;
      }
    })();
    const name = await template.name;
    return name ? `EXECUTE ${name}(${params.map(literal).join(', ')})` : bindLiterals(sql, params);
  };
}

/** Most statements sent in one query. */
const MAX_GROUP = 64;

/**
 * Single statements queued while the previous query runs go out together as one multi-statement
 * query, which PostgreSQL runs as one implicit transaction: either all commit, or none does. A group
 * that fails is therefore sent again one statement at a time, so one failing statement never fails
 * another caller's. A statement waits for nothing but the query before it (a lone one goes at once).
 */
function statementGroups(pg: PGlite): (sql: string) => Promise<unknown[]> {
  let queue: { sql: string; resolve(rows: unknown[]): void; reject(error: unknown): void }[] = [];
  let draining = false;
  const alone = async (item: (typeof queue)[number]) => {
    try {
      item.resolve((await pg.exec(item.sql)).at(-1)?.rows ?? []);
    } catch (error) {
      item.reject(error);
    }
  };
  const drain = async () => {
    draining = true;
    while (queue.length > 0) {
      const group = queue.length <= MAX_GROUP ? queue : queue.slice(0, MAX_GROUP);
      queue = queue.length <= MAX_GROUP ? [] : queue.slice(MAX_GROUP);
      if (group.length === 1) {
        await alone(group[0]!);
        continue;
      }
      let results: Awaited<ReturnType<PGlite['exec']>>;
      try {
        results = await pg.exec(group.map((g) => g.sql).join(';\n'));
      } catch {
        for (const item of group) await alone(item);
        continue;
      }
      // One result per statement (each template is one statement: no `;` outside its literals).
      if (results.length !== group.length) {
        const error = new Error(`embedded store: ${results.length} results for ${group.length} grouped statements`);
        for (const item of group) item.reject(error);
        continue;
      }
      group.forEach((item, i) => item.resolve(results[i]!.rows));
    }
    draining = false;
  };
  return (sql) =>
    new Promise((resolve, reject) => {
      queue.push({ sql, resolve, reject });
      if (!draining) void drain();
    });
}

/**
 * Concurrent flushes share the work: a caller waits for a flush that starts after its call (its
 * commit is then covered), so callers arriving while one runs share the next.
 */
function sharedFlush(flush: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const current = flush().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };
  return () => {
    if (!running) return start();
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}

/**
 * fsyncs the WAL segment holding the latest commit. The segment's file stays open until the WAL
 * moves on to the next one (a segment holds 16 MB of WAL), saving an open and a close per sync.
 */
function walSyncer(pg: PGlite, location: string): { sync(): Promise<void>; close(): Promise<void> } {
  let current: { segment: string; handle: FileHandle } | undefined;
  const drop = async () => {
    const old = current;
    current = undefined;
    await old?.handle.close().catch(() => undefined);
  };
  return {
    async sync() {
      const rows = (await pg.exec('SELECT pg_walfile_name(pg_current_wal_lsn()) AS f')).at(-1)?.rows as { f: string }[] | undefined;
      const segment = rows?.[0]?.f;
      if (!segment || !/^[0-9A-F]{24}$/.test(segment)) return;
      if (current?.segment !== segment) {
        await drop();
        current = { segment, handle: await open(join(location, 'pg_wal', segment), 'r+') };
      }
      try {
        // The segment's size never changes (WAL files are created at full size): its data is what
        // must reach the disk, as PostgreSQL's own default (wal_sync_method=fdatasync) has it.
        await current.handle.datasync();
      } catch (error) {
        await drop();
        throw error;
      }
    },
    close: drop,
  };
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
