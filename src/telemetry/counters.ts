import { describeError, type Logger } from '../log.ts';
import type { CounterDelta, Store } from '../store/types.ts';

/** Metric names as stored; the observatory report (see the telemetry issue) reads them back. */
export const METRICS = {
  challenges: 'challenges',
  paidCalls: 'paid_calls',
  revenueAtomic: 'revenue_atomic',
  failures: 'payment_failures',
  failureReasons: 'payment_failure_reasons',
  failureDetails: 'payment_failure_details',
  failureNetworks: 'payment_failure_networks',
  selfTestCalls: 'self_test_calls',
  selfTestRevenueAtomic: 'self_test_revenue_atomic',
  countries: 'countries',
  challengesByHour: 'challenges_by_hour',
  paidCallsByHour: 'paid_calls_by_hour',
  revenueByHour: 'revenue_atomic_by_hour',
} as const;

/** Where a counted request came from: its country (ISO code or `unknown`). */
export interface Origin {
  country: string;
}

/** Dimension holding the all-endpoints total of a per-endpoint metric. */
export const TOTAL = '*';

/**
 * Event counting without a database write per request: increments accumulate in memory and are
 * flushed as one transaction every `intervalMs` and on shutdown. Counters are additive, so the
 * totals of several instances sum up in the shared store.
 */
export class Telemetry {
  /** metric → dimension → accumulated delta (nested maps: no key strings built per request). */
  private pending = new Map<string, Map<string, number>>();
  private payers = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    /** Payers whose calls are the operator's own self-tests: counted apart, never revenue or payers. */
    private readonly selfTestWallets: ReadonlySet<string> = new Set(),
    private readonly clock: () => Date = () => new Date(),
    private readonly enabled = true,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  challenge(endpoint: string, origin?: Origin): void {
    if (!this.enabled) return;
    this.add(METRICS.challenges, endpoint);
    this.bump(METRICS.challengesByHour, this.hour(), 1);
    this.country(origin);
  }

  paid(endpoint: string, amountAtomic: string, payer: string, origin?: Origin): void {
    if (!this.enabled) return;
    this.country(origin);
    if (this.selfTestWallets.has(payer.toLowerCase())) {
      this.add(METRICS.selfTestCalls, endpoint);
      this.bump(METRICS.selfTestRevenueAtomic, TOTAL, Number(amountAtomic));
      return;
    }
    this.add(METRICS.paidCalls, endpoint);
    this.add(METRICS.revenueAtomic, endpoint, Number(amountAtomic));
    this.bump(METRICS.paidCallsByHour, this.hour(), 1);
    this.bump(METRICS.revenueByHour, this.hour(), Number(amountAtomic));
    this.payers.add(payer);
  }

  private country(origin: Origin | undefined): void {
    this.bump(METRICS.countries, origin?.country ?? 'unknown', 1);
  }

  private hourLabel = '';
  private hourEndsAt = 0;

  /** UTC hour bucket, e.g. `2026-11-21T23`, for the time series the dashboard draws (recomputed hourly). */
  private hour(): string {
    const now = this.clock();
    if (now.getTime() >= this.hourEndsAt || now.getTime() < this.hourEndsAt - 3600_000) {
      this.hourLabel = now.toISOString().slice(0, 13);
      this.hourEndsAt = Math.floor(now.getTime() / 3600_000) * 3600_000 + 3600_000;
    }
    return this.hourLabel;
  }

  failure(endpoint: string, category: string, reason: string, network: string | undefined): void {
    if (!this.enabled) return;
    this.add(METRICS.failures, endpoint);
    this.add(METRICS.failureReasons, category, 1, false);
    this.add(METRICS.failureDetails, reason, 1, false);
    this.add(METRICS.failureNetworks, network ?? 'unknown', 1, false);
  }

  /** Writes what has accumulated; on failure the deltas are kept for the next flush, never lost. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0 && this.payers.size === 0) return;
      const deltas: CounterDelta[] = [];
      for (const [metric, dimensions] of this.pending) for (const [dimension, value] of dimensions) deltas.push({ metric, dimension, value });
      const payers = [...this.payers];
      this.pending = new Map();
      this.payers = new Set();
      try {
        await this.store.addTelemetry(deltas, payers);
      } catch (error) {
        for (const d of deltas) this.add(d.metric, d.dimension, d.value, false);
        for (const p of payers) this.payers.add(p);
        this.log.warn({ err: describeError(error) }, 'telemetry flush failed; will retry');
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private add(metric: string, dimension: string, value = 1, withTotal = true): void {
    this.bump(metric, dimension, value);
    if (withTotal) this.bump(metric, TOTAL, value);
  }

  private bump(metric: string, dimension: string, value: number): void {
    let dimensions = this.pending.get(metric);
    if (!dimensions) this.pending.set(metric, (dimensions = new Map()));
    dimensions.set(dimension, (dimensions.get(dimension) ?? 0) + value);
  }
}
