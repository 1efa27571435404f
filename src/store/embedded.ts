import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SqlStore, type SqlDriver } from './sql-store.ts';

/**
 * The embedded default: PGlite (PostgreSQL compiled to WebAssembly) keeping its files under
 * `<dataDir>/db`. It runs the very SQL the PostgreSQL store runs, so one schema serves both.
 * PGlite lives on a worker thread (see pglite-worker.mjs). Pass `memory://` for a throwaway store.
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
    const driver = await startWorkerDriver(location, unlock);
    const store = await SqlStore.open(driver);
    // The lock makes this process the directory's only user: whatever is in flight belongs to a dead process.
    await store.recoverInterrupted();
    return store;
  } catch (error) {
    await unlock();
    throw error;
  }
}

interface Reply {
  id: number;
  rows?: unknown[];
  error?: { message: string; code?: string };
}

async function startWorkerDriver(location: string, onClosed: () => Promise<void>): Promise<SqlDriver> {
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { location } });
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => resolve());
  });
  worker.on('message', (reply: Reply) => {
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (reply.error) waiter.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    else waiter.resolve(reply.rows ?? []);
  });
  worker.on('error', (error) => {
    failure = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  });

  const send = (message: { op?: 'close'; sql?: string; params?: unknown[] }): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });

  // The worker runs statements in arrival order, so a transaction is BEGIN…COMMIT sent back to back
  // while nothing else is sent: other callers wait on this gate.
  let gate: Promise<unknown> = Promise.resolve();
  const query = async <T>(sql: string, params?: unknown[]) => {
    await gate;
    return (await send({ sql, params })) as T[];
  };
  return {
    query,
    transaction: async (fn) => {
      const previous = gate;
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      await previous;
      const tx = { query: async <T>(sql: string, params?: unknown[]) => (await send({ sql, params })) as T[] };
      try {
        await tx.query('BEGIN');
        const result = await fn(tx);
        await tx.query('COMMIT');
        return result;
      } catch (error) {
        await tx.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        release();
      }
    },
    close: async () => {
      await send({ op: 'close' });
      await worker.terminate();
      await onClosed();
    },
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
