import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openEmbeddedStore } from '../../src/store/embedded.ts';
import { storeTemplate, tempDataDir } from './service.ts';

export interface Instance {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts `percall start` as a separate process (exactly what an operator runs) and waits until it quotes. */
export async function startInstance(env: Record<string, string>, port?: number): Promise<Instance> {
  const listenPort = port ?? (await freePort());
  const dataDir = env.PERCALL_DATA_DIR ?? (await tempDataDir());
  if (!env.DATABASE_URL) await seedEmbeddedStore(dataDir);
  const child = spawn(process.execPath, [join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../../bin/percall.js'), 'start'], {
    // As test services: no block index, Bazaar snapshots or Python sandbox unless the test asks (each is work at start).
    env: { ...process.env, LOG_LEVEL: 'warn', INDEX_CHAINS: 'off', BAZAAR_DISCOVERY_URLS: 'off', RUN_PYTHON: 'off', ...env, PERCALL_DATA_DIR: dataDir, PORT: String(listenPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  // Warnings go to stdout (pino); PERCALL_TEST_INSTANCE_LOGS=1 passes them on, for diagnosing a failure.
  child.stdout!.on('data', (chunk) => void (process.env.PERCALL_TEST_INSTANCE_LOGS && process.stderr.write(chunk)));
  const url = `http://127.0.0.1:${listenPort}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`instance exited with ${child.exitCode}: ${stderr.slice(-2000)}`);
    try {
      if ((await fetch(`${url}/api/v1/paid/time`)).status === 402) break;
    } catch {
      // not listening yet
    }
    // A cold start through tsx takes seconds; on a loaded 2-core machine, tens of them.
    if (i > 900) throw new Error(`instance on ${url} did not start: ${stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  return {
    url,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited();
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited();
    },
  };
}

/**
 * A fresh data directory gets its embedded database from the run's migrated template (test/global-setup.ts),
 * as test services do: the instance then starts as on a restart, without PGlite's initdb (seconds of CPU).
 */
async function seedEmbeddedStore(dataDir: string): Promise<void> {
  const template = storeTemplate();
  if (!template || existsSync(join(dataDir, 'db', 'PG_VERSION'))) return;
  await (await openEmbeddedStore(dataDir, { template })).close();
}
