/**
 * The block index as the service sees it: the worker process (worker.ts) started on demand and
 * started again when it dies, the ChainIndex products read (queries, saved queries, executions),
 * and the operator's status and backfill.
 *
 * A statement gets the configured time limit inside the worker (DuckDB interrupts it); should the
 * worker not answer a few seconds after that, it is killed and started again, and the caller gets the
 * same time-limit refusal (never charged).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';
import { describeError } from '../log.ts';
import { withDeadline } from '../deadline.ts';
import type { AnalyticsExecution, ChainIndex, IndexCheckOutcome, IndexQueryOutcome, QueryResult, SavedQuery } from '../products/kit/chain-index.ts';
import type { SavedQueryRecord, Store } from '../store/types.ts';
import type { BackfillProgress } from './backfill.ts';
import type { IndexStatus, WorkerChain, WorkerInit, WorkerMessage, WorkerRequest } from './protocol.ts';
import type { IndexSettings } from './settings.ts';

export interface IndexChainSettings extends WorkerChain {
  /** CAIP-2 network of the chain behind the name (dev: `base` is `eip155:31337`). */
  network: string;
}

export interface IndexServiceOptions {
  settings: IndexSettings;
  path: string;
  /** Chains to index (each with its RPC endpoints). */
  chains: IndexChainSettings[];
  rpc: { budgetPerSecond: number; timeoutMs: number };
  store: Pick<Store, 'addSavedQuery' | 'savedQueries' | 'removeSavedQuery' | 'saveAnalyticsExecution' | 'analyticsExecution'>;
  log: Logger;
  /** Follow the chains' heads (the service does; a one-off backfill process does not). */
  follow?: boolean;
  /** Several instances on one database: one indexer at a time, under a lease (see IndexLease). */
  lease?: IndexLease;
}

/**
 * One indexer for several instances: each contends for a lease in the shared store every `renewMs`;
 * the holder runs the worker (follows the heads, answers queries), the others send their queries
 * and checks to the holder at the URL it published with the lease, with the shared token.
 */
export interface IndexLease {
  store: Pick<Store, 'takeLease' | 'releaseLease' | 'leaseHolder'>;
  instanceId: string;
  /** This instance as the others reach it, and the token every instance shares. */
  peer: { url: string; token: string };
  renewMs?: number;
}

export const INDEX_LEASE = 'block-index';
/** Where an indexing instance takes its peers' queries (http/analytics-routes.ts). */
export const PEER_PATH = '/internal/index';

/** Where the worker's code is: the TypeScript file from source (tests, tsx), the bundle's entry otherwise. */
function workerEntry(): { path: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { path: fileURLToPath(new URL('./worker.ts', here)), execArgv: ['--import', 'tsx'] };
  return { path: fileURLToPath(new URL('./index/worker.js', here)), execArgv: [] };
}

/** A ULID-style id: 48 bits of milliseconds and 80 random bits, Crockford base32 (26 characters). */
export function executionId(now = Date.now()): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = alphabet[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = alphabet[Number(bits & 31n)]! + random;
    bits >>= 5n;
  }
  return time + random;
}

export const EXECUTION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** How long a statement's caller waits for a free connection before 503. */
const QUEUE_WAIT_MS = 5_000;
/** How long a check (parse and bind, nothing run) may take before it is given up as unknown. */
const CHECK_TIMEOUT_MS = 3_000;
/** Past the statement's own limit, how long the worker gets to answer before it is killed. */
const KILL_GRACE_MS = 5_000;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  progress?: (p: BackfillProgress) => void;
}

export class IndexService implements ChainIndex {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopping = false;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private failure: string | undefined;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly networks: ReadonlyMap<string, string>;
  private saved: SavedQueryRecord[] = [];
  private savedVersion = 0;
  private savedRefresh: NodeJS.Timeout | undefined;
  /** Backfills started through the operator API, by job id. */
  readonly jobs = new Map<string, BackfillProgress>();
  /** With a lease: whether this instance holds it (runs the worker), and else the holder's URL. */
  private leading = false;
  private leader: string | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: IndexServiceOptions) {
    this.networks = new Map(options.chains.map((c) => [c.chain, c.network]));
  }

  /** Starts the worker (it opens the file and, with `follow`, follows the heads) and loads the saved queries. */
  start(): Promise<void> {
    this.stopping = false;
    void this.refreshSaved();
    this.savedRefresh ??= setInterval(() => void this.refreshSaved(), 60_000);
    this.savedRefresh.unref();
    const lease = this.options.lease;
    if (!lease) return this.spawn();
    this.leaseTimer ??= setInterval(() => void this.contend(), lease.renewMs ?? 5_000);
    this.leaseTimer.unref();
    return this.contend();
  }

  /** The peer token, when several instances share one indexer (the route that serves them checks it). */
  get peerToken(): string | undefined {
    return this.options.lease?.peer.token;
  }

  private get holderName(): string {
    const lease = this.options.lease!;
    return `${lease.instanceId} ${lease.peer.url}`;
  }

  /** Takes or renews the lease: the holder runs the worker, the others learn who holds it. */
  private async contend(): Promise<void> {
    const lease = this.options.lease!;
    const renewMs = lease.renewMs ?? 5_000;
    try {
      if (await lease.store.takeLease(INDEX_LEASE, this.holderName, 3 * renewMs)) {
        this.leader = undefined;
        if (this.leading) return;
        this.leading = true;
        this.options.log.info({ instance: lease.instanceId }, 'this instance holds the index lease: it runs the block index');
        await this.spawn().catch(() => undefined);
        return;
      }
      if (this.leading) {
        this.leading = false;
        this.options.log.warn({ instance: lease.instanceId }, 'the index lease went to another instance; stopping this index worker');
        await this.stopWorker();
      }
      this.leader = (await lease.store.leaseHolder(INDEX_LEASE))?.split(' ')[1];
    } catch (error) {
      this.options.log.warn({ err: describeError(error) }, 'the index lease could not be read or renewed');
    }
  }

  /** Forwards a query or check to the instance that holds the lease. */
  private async forward<T>(op: 'query' | 'check', chain: string, sql: string, timeoutMs: number): Promise<T | { kind: 'unavailable'; message: string }> {
    const leader = this.leader;
    if (!leader) return { kind: 'unavailable', message: 'no instance runs the block index right now (its lease is free); retry in a few seconds' };
    try {
      const response = await fetch(`${leader}${PEER_PATH}/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.lease!.peer.token}` },
        body: JSON.stringify({ chain, sql }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) return { kind: 'unavailable', message: `the indexing instance answered ${response.status}` };
      return (await response.json()) as T;
    } catch (error) {
      return { kind: 'unavailable', message: `the indexing instance did not answer (${(error as Error).name})` };
    }
  }

  /** A peer's query or check, answered here only by the lease holder (never forwarded again). */
  serve(op: 'query' | 'check', chain: string, sql: string): Promise<IndexQueryOutcome | IndexCheckOutcome> {
    if (this.options.lease && !this.leading) return Promise.resolve({ kind: 'unavailable', message: 'this instance does not run the block index' });
    return op === 'query' ? this.query(chain, sql) : this.check(chain, sql);
  }

  /** The worker is to run here: always without a lease, only while holding it with one. */
  private get runsWorker(): boolean {
    return !this.options.lease || this.leading;
  }

  private notHere(): Error {
    return new Error(`this instance does not run the block index${this.leader ? `; the instance at ${this.leader} does` : ''}`);
  }

  private spawn(): Promise<void> {
    const { path, execArgv } = workerEntry();
    const child = fork(path, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child = child;
    this.failure = undefined;
    const init: WorkerInit = {
      type: 'init',
      path: this.options.path,
      settings: this.options.settings,
      chains: this.options.chains.map(({ chain, chainId, urls, budgetPerSecond }) => ({ chain, chainId, urls, ...(budgetPerSecond ? { budgetPerSecond } : {}) })),
      follow: this.options.follow === false ? [] : this.options.chains.map((c) => c.chain),
      rpc: this.options.rpc,
    };
    this.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: WorkerMessage) => {
        if ('type' in message) {
          if (message.type === 'ready') {
            this.restarts = 0;
            resolve();
          } else if (message.type === 'fatal') {
            this.failure = message.message;
            reject(new Error(message.message));
          } else if (message.type === 'log') {
            this.options.log[message.level](message.fields ?? {}, message.msg);
          } else if (message.type === 'progress') {
            this.pending.get(message.id)?.progress?.(message.progress);
          }
          return;
        }
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(new Error(message.error));
      });
      child.on('exit', (code, signal) => {
        if (this.child === child) this.child = undefined;
        reject(new Error(this.failure ?? `the index worker exited (${signal ?? code})`));
        for (const [id, pending] of this.pending) {
          this.pending.delete(id);
          pending.reject(new Error('the index worker stopped'));
        }
        if (this.stopping || this.failure || !this.runsWorker) {
          if (this.failure) this.options.log.error({ reason: this.failure }, 'the block index could not be opened; analytics-query answers 503');
          return;
        }
        this.options.log.warn({ code, signal }, 'the index worker exited; starting it again');
        const delay = Math.min(30_000, 500 * 2 ** Math.min(this.restarts++, 6));
        this.restartTimer = setTimeout(() => void this.spawn().catch(() => undefined), delay);
        this.restartTimer.unref();
      });
    });
    child.send(init);
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private request<T>(request: WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never, timeoutMs: number, progress?: (p: BackfillProgress) => void): Promise<T> {
    const child = this.child;
    if (!child?.connected) return Promise.reject(new Error(this.failure ?? 'the index worker is not running'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              if (!this.pending.has(id)) return;
              this.pending.delete(id);
              reject(new WorkerTimeoutError());
            }, timeoutMs)
          : undefined;
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
        ...(progress ? { progress } : {}),
      });
      child.send({ ...request, id } as WorkerRequest);
    });
  }

  chains(): ReadonlyMap<string, string> {
    return this.networks;
  }

  async query(chain: string, sql: string): Promise<IndexQueryOutcome> {
    if (!this.runsWorker) return this.forward<IndexQueryOutcome>('query', chain, sql, this.options.settings.query.timeoutMs + KILL_GRACE_MS + 5_000);
    if (!(await this.slot())) return { kind: 'unavailable', busy: true, message: 'the analytics engine is busy with other queries; retry in a few seconds' };
    try {
      await this.ready;
      const limit = this.options.settings.query.timeoutMs;
      return await this.request<IndexQueryOutcome>({ type: 'query', chain, sql }, limit + KILL_GRACE_MS);
    } catch (error) {
      if (error instanceof WorkerTimeoutError) {
        // The statement ignored its interrupt: the worker goes, and comes back.
        this.options.log.warn({ chain }, 'an analytics statement did not stop at its time limit; restarting the index worker');
        this.child?.kill('SIGKILL');
        return { kind: 'refused', status: 422, code: 'query_timeout', message: `the query ran longer than ${this.options.settings.query.timeoutMs / 1000} s and was stopped` };
      }
      return { kind: 'unavailable', message: `the block index is not available (${(error as Error).message})` };
    } finally {
      this.release();
    }
  }

  private slot(): Promise<boolean> {
    if (this.inFlight < this.options.settings.query.concurrency) {
      this.inFlight++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        this.inFlight++;
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      }, QUEUE_WAIT_MS);
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  /**
   * Whether `sql` is one SELECT over the index the engine would run (parsed, guarded and bound, not
   * run). Bounded: an index that is starting, gone or slower than CHECK_TIMEOUT_MS is `unavailable`.
   */
  async check(chain: string, sql: string): Promise<IndexCheckOutcome> {
    if (!this.runsWorker) return this.forward<IndexCheckOutcome>('check', chain, sql, CHECK_TIMEOUT_MS + 2_000);
    try {
      await withDeadline(this.ready ?? Promise.reject(new Error('the index is not started')), CHECK_TIMEOUT_MS, () => new WorkerTimeoutError());
      return await this.request<IndexCheckOutcome>({ type: 'check', chain, sql }, CHECK_TIMEOUT_MS);
    } catch (error) {
      return { kind: 'unavailable', message: `the block index could not check the query (${(error as Error).message})` };
    }
  }

  async status(): Promise<IndexStatus> {
    if (!this.runsWorker) throw this.notHere();
    await this.ready;
    return this.request<IndexStatus>({ type: 'status' }, 30_000);
  }

  /** Runs a backfill in the worker; resolves with its final progress. */
  async backfill(chain: string, from: bigint, to: bigint | undefined, onProgress: (p: BackfillProgress) => void): Promise<BackfillProgress> {
    if (!this.runsWorker) throw this.notHere();
    await this.ready;
    return this.request<BackfillProgress>({ type: 'backfill', chain, from, ...(to !== undefined ? { to } : {}) }, 0, onProgress);
  }

  /** Starts a backfill as a job the operator API reports on; returns the job's id. */
  startBackfillJob(chain: string, from: bigint, to: bigint | undefined): string {
    const job = randomBytes(8).toString('hex');
    const initial: BackfillProgress = {
      chain,
      from: from.toString(),
      to: to?.toString() ?? '',
      blocks: 0,
      total: 0,
      rows: 0,
      elapsedMs: 0,
      blocksPerSecond: 0,
      rowsPerSecond: 0,
      etaSeconds: null,
      state: 'running',
    };
    this.jobs.set(job, initial);
    this.backfill(chain, from, to, (p) => this.jobs.set(job, p)).then(
      (done) => this.jobs.set(job, done),
      (error: unknown) => this.jobs.set(job, { ...(this.jobs.get(job) ?? initial), state: 'failed', error: (error as Error).message }),
    );
    return job;
  }

  // ---- Saved queries and executions (in the service's store, shared by all instances) ----

  private async refreshSaved(): Promise<void> {
    try {
      const list = await this.options.store.savedQueries();
      if (JSON.stringify(list) !== JSON.stringify(this.saved)) {
        this.saved = list;
        this.savedVersion++;
      }
    } catch (error) {
      this.options.log.warn({ err: describeError(error) }, 'saved analytics queries not loaded');
    }
  }

  /** The saved queries as last read (refreshed every minute and on every change here), for documents. */
  savedQueriesSnapshot(): { version: number; queries: SavedQuery[] } {
    return { version: this.savedVersion, queries: this.saved.map(publicSavedQuery) };
  }

  async savedQueries(): Promise<SavedQuery[]> {
    await this.refreshSaved();
    return this.saved.map(publicSavedQuery);
  }

  async savedQuery(id: number): Promise<SavedQuery | undefined> {
    const found = (await this.options.store.savedQueries()).find((q) => q.id === id);
    return found ? publicSavedQuery(found) : undefined;
  }

  async addSavedQuery(q: { name: string; description: string; sql: string }): Promise<SavedQuery> {
    const added = await this.options.store.addSavedQuery(q);
    await this.refreshSaved();
    return publicSavedQuery(added);
  }

  async removeSavedQuery(id: number): Promise<boolean> {
    const removed = await this.options.store.removeSavedQuery(id);
    await this.refreshSaved();
    return removed;
  }

  async saveExecution(e: Omit<AnalyticsExecution, 'id' | 'expiresAt' | 'executedAt'> & { executedAt: Date }): Promise<AnalyticsExecution> {
    const id = executionId(e.executedAt.getTime());
    const expiresAt = new Date(e.executedAt.getTime() + this.options.settings.executionTtlMs);
    await this.options.store.saveAnalyticsExecution({
      id,
      chain: e.chain,
      network: e.network,
      sql: e.sql,
      savedQueryId: e.savedQueryId,
      indexedBlock: e.indexedBlock,
      result: JSON.stringify(e.result),
      executedAt: e.executedAt,
      expiresAt,
    });
    return { ...e, id, executedAt: e.executedAt.toISOString(), expiresAt: expiresAt.toISOString() };
  }

  async execution(id: string): Promise<AnalyticsExecution | undefined> {
    if (!EXECUTION_ID.test(id)) return undefined;
    const row = await this.options.store.analyticsExecution(id);
    if (!row) return undefined;
    return {
      id: row.id,
      chain: row.chain,
      network: row.network,
      sql: row.sql,
      savedQueryId: row.savedQueryId,
      indexedBlock: row.indexedBlock,
      result: JSON.parse(row.result) as QueryResult,
      executedAt: row.executedAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
    };
  }

  /** Resident memory of the worker, bytes (from its status), for figures. */
  get workerPid(): number | undefined {
    return this.child?.pid;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.savedRefresh);
    this.savedRefresh = undefined;
    clearInterval(this.leaseTimer);
    this.leaseTimer = undefined;
    await this.stopWorker();
    if (this.leading) await this.options.lease!.store.releaseLease(INDEX_LEASE, this.holderName).catch(() => undefined);
    this.leading = false;
  }

  /** Stops the worker (it is not started again). */
  private async stopWorker(): Promise<void> {
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.send({ type: 'stop' });
    else child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

class WorkerTimeoutError extends Error {
  override name = 'WorkerTimeoutError';
}

function publicSavedQuery(q: SavedQueryRecord): SavedQuery {
  return { id: q.id, name: q.name, description: q.description, sql: q.sql, createdAt: q.createdAt.toISOString() };
}
