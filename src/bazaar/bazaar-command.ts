/**
 * `percall bazaar snapshot`: takes a Bazaar snapshot now, with a progress bar. With ADMIN_TOKEN set
 * and the service running (PERCALL_URL, default http://127.0.0.1:4021) the snapshot runs inside the
 * service (which can read its own catalogue, the `self` source); otherwise this process opens the
 * store itself and snapshots the URLs of BAZAAR_DISCOVERY_URLS. `percall bazaar runs` lists the
 * latest runs.
 */
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import type { BazaarSnapshotRecord } from '../store/bazaar-snapshots.ts';
import { BazaarSnapshotService } from './service.ts';
import { SELF_SOURCE } from './settings.ts';
import type { SnapshotOutcome, SnapshotProgress } from './snapshotter.ts';

const USAGE = `usage:
  percall bazaar snapshot   take a snapshot of BAZAAR_DISCOVERY_URLS now (progress bar)
  percall bazaar runs       the latest snapshot runs

With ADMIN_TOKEN set and the service running (PERCALL_URL, default http://127.0.0.1:4021) the work runs
inside the service; otherwise this process opens the store itself (URL sources only).`;

/** `[#######.............] 350/1,000 items · 4 pages · 2 malformed · source` */
export function progressBar(p: SnapshotProgress, width = 24): string {
  const ratio = p.total ? Math.min(1, p.items / p.total) : 0;
  const filled = Math.round(ratio * width);
  const bar = p.total ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` : '';
  const of = p.total ? `/${p.total.toLocaleString('en-US')}` : '';
  return `${bar}${p.items.toLocaleString('en-US')}${of} items · ${p.pages} pages · ${p.malformed} malformed · ${p.duplicates} duplicates · ${p.source}`;
}

function describe(outcome: SnapshotOutcome | { kind: 'busy' } | { kind: 'error'; detail: string }): string {
  switch (outcome.kind) {
    case 'complete':
      return `snapshot ${outcome.snapshotId} (${outcome.day}) complete: ${outcome.listings} listings, ${outcome.stats.malformed} malformed items skipped, ${outcome.stats.duplicates} duplicates, ${outcome.stats.pages} pages`;
    case 'failed':
      return `snapshot ${outcome.snapshotId} (${outcome.day}) failed: ${outcome.detail}`;
    case 'busy':
      return 'another instance is taking a snapshot now (lease held); try again later';
    case 'error':
      return `snapshot not taken: ${outcome.detail}`;
  }
}

function progressWriter(): (text: string, final: boolean) => void {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return (text, final) => {
    if (tty) process.stderr.write(`\r\x1b[2K${text}${final ? '\n' : ''}`);
    else if (final || Date.now() - last >= 2_000) {
      process.stderr.write(`${text}\n`);
      last = Date.now();
    }
  };
}

async function remote<T>(base: string, token: string, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  const body = (await response.json().catch(() => ({}))) as T & { detail?: string };
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}${body.detail ? `: ${body.detail}` : ''}`);
  return body;
}

async function reachable(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

export async function runBazaarCommand(args: string[]): Promise<number> {
  const [sub] = args;
  if (sub !== 'snapshot' && sub !== 'runs') {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const base = (process.env.PERCALL_URL ?? `http://127.0.0.1:${config.port}`).replace(/\/$/, '');
  const token = config.adminToken;
  const progress = progressWriter();
  if (token && (await reachable(base))) {
    if (sub === 'runs') {
      printRuns((await remote<{ runs: BazaarSnapshotRecord[] }>(base, token, '/admin/bazaar/snapshots')).runs);
      return 0;
    }
    await remote(base, token, '/admin/bazaar/snapshots', { method: 'POST' });
    for (;;) {
      const run = await remote<{ state: string; progress: SnapshotProgress | null; outcome: Parameters<typeof describe>[0] | null }>(base, token, '/admin/bazaar/snapshots/current');
      if (run.progress) progress(progressBar(run.progress), run.state === 'done');
      if (run.state === 'done' && run.outcome) {
        console.log(describe(run.outcome));
        return run.outcome.kind === 'complete' ? 0 : 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  if (config.bazaar.sources.includes(SELF_SOURCE)) {
    console.error(`the source \`self\` (this instance's own catalogue) is read inside the running service: start it, set ADMIN_TOKEN, and run this again (or set BAZAAR_DISCOVERY_URLS to lists to fetch)`);
    return 1;
  }
  const store = config.databaseUrl
    ? (await import('../store/postgres.ts')).openPostgresStore({ url: config.databaseUrl, poolSize: 2, statementTimeoutMs: config.databaseStatementTimeoutMs })
    : await (await import('../store/embedded.ts')).openEmbeddedStore(config.dataDir, { statementTimeoutMs: config.databaseStatementTimeoutMs });
  try {
    await store.ensureSchema();
    const service = new BazaarSnapshotService({ store, settings: config.bazaar, fetchPolicy: config.fetchPolicy, log: createLogger('warn'), instanceId: config.instanceId });
    if (sub === 'runs') {
      printRuns(await service.runs(20));
      return 0;
    }
    const outcome = await service.runOnce((p) => progress(progressBar(p), false));
    progress('', true);
    console.log(describe(outcome));
    return outcome.kind === 'complete' ? 0 : 1;
  } finally {
    await store.close();
  }
}

function printRuns(runs: BazaarSnapshotRecord[]): void {
  for (const r of runs) console.log(`${r.id}\t${r.day}\t${r.state}\t${r.listings} listings\t${r.malformed} malformed\t${r.duplicates} duplicates\t${r.pages} pages\t${r.sources.join(',')}${r.detail ? `\t${r.detail}` : ''}`);
}
