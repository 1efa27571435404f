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
  upstreamPayments: 'upstream_payments',
  upstreamSpendAtomic: 'upstream_spend_atomic',
} as const;

/** Where a counted request came from: its country (ISO code or `unknown`). */
export interface Origin {
  country: string;
}

/** Dimension holding the all-endpoints total of a per-endpoint metric. */
export const TOTAL = '*';

export interface TelemetryOptions {
  /** Payers whose calls are the operator's own self-tests: counted apart, never revenue or payers. */
  selfTestWallets?: ReadonlySet<string>;
  /**
   * The networks this service takes payments on (x402 offers and MPP): a failure names one of them,
   * `other` (a network a caller wrote that we do not offer) or `unknown` (none could be read).
   */
  networks?: ReadonlySet<string>;
  clock?: () => Date;
  enabled?: boolean;
}

/** Label of anything a caller could vary that is not in the closed set of its key. */
export const OTHER = 'other';
/** Most distinct values one key may take per process; further values are counted as `other`. */
export const MAX_DIMENSIONS = 64;
/** What a failure detail may look like: a short machine code (facilitator reasons, ours). */
const DETAIL_CODE = /^[a-z][a-z0-9_-]{0,79}$/;
export const isDetailCode = (key: string): boolean => DETAIL_CODE.test(key);

/**
 * Event counting without a database write per request: increments accumulate in memory and are
 * flushed as one transaction every `intervalMs` and on shutdown. Counters are additive, so the
 * totals of several instances sum up in the shared store. Every dimension comes from a closed set:
 * endpoints from the catalogue, categories from the four public ones, networks from the configured
 * ones, countries from the offline database; failure details must be short codes and are capped in
 * number, so nothing a caller writes reaches the public report verbatim or grows it without bound.
 */
export class Telemetry {
  /** metric → dimension → accumulated delta (nested maps: no key strings built per request). */
  private pending = new Map<string, Map<string, number>>();
  private payers = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  private readonly selfTestWallets: ReadonlySet<string>;
  private readonly networks: ReadonlySet<string>;
  private readonly clock: () => Date;
  private readonly enabled: boolean;
  /** Distinct failure details seen by this process (bounded by MAX_DIMENSIONS). */
  private readonly details = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    options: TelemetryOptions = {},
  ) {
    this.selfTestWallets = options.selfTestWallets ?? new Set();
    this.networks = options.networks ?? new Set();
    this.clock = options.clock ?? (() => new Date());
    this.enabled = options.enabled ?? true;
  }

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

  /** An upstream x402 seller paid from the operator's wallet for `product` (a product id: a closed set). */
  upstream(product: string, amountAtomic: bigint): void {
    if (!this.enabled) return;
    this.add(METRICS.upstreamPayments, product);
    this.add(METRICS.upstreamSpendAtomic, product, Number(amountAtomic));
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
    this.add(METRICS.failureDetails, this.detailLabel(reason), 1, false);
    this.add(METRICS.failureNetworks, network === undefined ? 'unknown' : this.networks.has(network) ? network : OTHER, 1, false);
  }

  private detailLabel(reason: string): string {
    if (!isDetailCode(reason)) return OTHER;
    if (this.details.has(reason)) return reason;
    if (this.details.size >= MAX_DIMENSIONS) return OTHER;
    this.details.add(reason);
    return reason;
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
