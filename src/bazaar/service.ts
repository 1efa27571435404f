/**
 * The snapshot schedule: at start (when today has no complete snapshot yet) and every
 * BAZAAR_SNAPSHOT_INTERVAL_MS, one instance at a time (a lease in the shared store) snapshots every
 * configured discovery list. Sources are read through the safe fetcher, except `self`, this
 * instance's own list, which is read in process: the service never opens its fetcher to its own
 * (private) address to read what it already holds.
 */
import { discoveryList, type DiscoveryListItem } from '../discovery/bazaar-list.ts';
import { describeError, type Logger } from '../log.ts';
import { safeFetch, type FetchPolicy } from '../providers/safe-fetch.ts';
import type { BazaarSnapshotRecord, BazaarSnapshotStore } from '../store/bazaar-snapshots.ts';
import type { Store } from '../store/types.ts';
import { SELF_SOURCE, discoveryListUrl, type BazaarSettings } from './settings.ts';
import { SnapshotError, takeSnapshot, type DiscoverySource, type SnapshotOutcome, type SnapshotProgress } from './snapshotter.ts';

const LEASE = 'bazaar-snapshot';

/** A page of a discovery list over HTTP(S), through the safe fetcher, bounded in bytes and time. */
export function urlSource(source: string, policy: FetchPolicy, settings: Pick<BazaarSettings, 'maxPageBytes' | 'timeoutMs'>): DiscoverySource {
  const listUrl = discoveryListUrl(source);
  const pagePolicy: FetchPolicy = { ...policy, maxBytes: settings.maxPageBytes, timeoutMs: Math.min(settings.timeoutMs, Math.max(policy.timeoutMs, 30_000)) };
  return {
    name: listUrl,
    page: async (limit, offset) => {
      const url = new URL(listUrl);
      url.searchParams.set('limit', String(limit));
      url.searchParams.set('offset', String(offset));
      const response = await safeFetch(url.toString(), { headers: { accept: 'application/json' } }, pagePolicy);
      if (response.status !== 200) throw new SnapshotError(`${listUrl}: HTTP ${response.status}`);
      try {
        return JSON.parse(response.body.toString('utf8')) as unknown;
      } catch {
        throw new SnapshotError(`${listUrl}: the answer is not JSON`);
      }
    },
  };
}

/** This instance's own discovery list, read in process. */
export function selfSource(items: () => readonly DiscoveryListItem[]): DiscoverySource {
  return { name: SELF_SOURCE, page: async (limit, offset) => discoveryList(items(), { limit, offset }) };
}

export interface BazaarServiceOptions {
  store: Pick<Store, 'takeLease' | 'releaseLease' | 'bazaarSnapshots'>;
  settings: BazaarSettings;
  fetchPolicy: FetchPolicy;
  /** This instance's own list (for the `self` source). */
  selfItems?: () => readonly DiscoveryListItem[];
  log: Logger;
  instanceId: string;
  clock?: () => Date;
}

export class BazaarSnapshotService {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  /** Aborted at stop: a run ends at its next page instead of holding up the shutdown. */
  private readonly stopping = new AbortController();
  private readonly snapshots: BazaarSnapshotStore;

  constructor(private readonly options: BazaarServiceOptions) {
    this.snapshots = options.store.bazaarSnapshots();
  }

  get sources(): DiscoverySource[] {
    const { settings, fetchPolicy, selfItems } = this.options;
    return settings.sources.map((source) => {
      if (source !== SELF_SOURCE) return urlSource(source, fetchPolicy, settings);
      if (!selfItems) throw new Error('the `self` discovery source needs the running service');
      return selfSource(selfItems);
    });
  }

  /** A first snapshot now when today has none, then one every interval. */
  start(): void {
    const first = setTimeout(() => void this.ensureToday(), 0);
    first.unref();
    this.timer = setInterval(() => void this.runOnce().catch(() => undefined), this.options.settings.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.running.catch(() => undefined);
    await this.options.store.releaseLease(LEASE, this.options.instanceId).catch(() => undefined);
  }

  /** Snapshots now unless today already has a complete snapshot. */
  async ensureToday(): Promise<void> {
    try {
      const [latest] = await this.snapshots.snapshots(1);
      if (latest?.day === this.now().toISOString().slice(0, 10)) return;
      await this.runOnce();
    } catch (error) {
      this.options.log.warn({ err: describeError(error) }, 'bazaar snapshot not taken; tried again next interval');
    }
  }

  /** One snapshot, under the lease: `busy` when another instance (or run) holds it. Runs never overlap. */
  runOnce(onProgress?: (progress: SnapshotProgress) => void): Promise<SnapshotOutcome | { kind: 'busy' }> {
    const run = this.running.catch(() => undefined).then(() => this.run(onProgress));
    this.running = run;
    return run;
  }

  /** The latest runs, for operators. */
  runs(limit = 10): Promise<BazaarSnapshotRecord[]> {
    return this.snapshots.runs(limit);
  }

  private async run(onProgress?: (progress: SnapshotProgress) => void): Promise<SnapshotOutcome | { kind: 'busy' }> {
    const { store, settings, log, instanceId } = this.options;
    if (!(await store.takeLease(LEASE, instanceId, settings.timeoutMs + 60_000))) return { kind: 'busy' };
    try {
      const outcome = await takeSnapshot({ store: this.snapshots, sources: this.sources, limits: settings, now: this.now(), signal: this.stopping.signal, ...(onProgress ? { onProgress } : {}) });
      if (outcome.kind === 'complete') log.info({ snapshot: outcome.snapshotId, day: outcome.day, listings: outcome.listings, ...outcome.stats }, 'bazaar snapshot complete');
      else log.warn({ snapshot: outcome.snapshotId, day: outcome.day, detail: outcome.detail, ...outcome.stats }, 'bazaar snapshot failed; the previous complete snapshot stays the latest');
      return outcome;
    } finally {
      await store.releaseLease(LEASE, instanceId).catch(() => undefined);
    }
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }
}
