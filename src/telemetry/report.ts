import { atomicToUsdNumber } from '../money.ts';
import type { Store, TelemetrySnapshot } from '../store/types.ts';
import { isDetailCode, MAX_DIMENSIONS, METRICS, OTHER, TOTAL } from './counters.ts';
import { REPORT_LIMITS, toolBlocks, type ToolBlocks } from './tool-usage.ts';
import { operatorPayments, type OperatorProduct } from './operator-report.ts';

export interface KeyCount {
  key: string;
  count: number;
}

/** The public telemetry report, with exactly the fields of the service description. */
export interface ObservatoryReport {
  service: string;
  observatory: string;
  wallet: string;
  network: string;
  note: string;
  observing_since: string;
  updated_at: string;
  totals: { challenges: number; paid_calls: number; payment_failures: number; revenue_usdc: number; unique_payers: number };
  payment_failure_reasons: KeyCount[];
  payment_failure_networks: KeyCount[];
  self_test: { calls: number; usdc: number };
  endpoints: { endpoint: string; challenges: number; paid_calls: number; revenue_usdc: number; self_test_calls: number; payment_failures: number }[];
  geo: { countries: KeyCount[] };
  /** Per-tool blocks: the category-heat feed's polls per feed version, reprice_regret's calls and query log. */
  tools: ToolBlocks;
  /** Products paying upstream x402 sellers from the operator's wallet: upstream volume, spend and margin. */
  operator_payments: ReturnType<typeof operatorPayments>;
}

export interface ReportContext {
  serviceName: string;
  wallet: string;
  network: string;
  /** The networks payments are taken on; any other stored network key is shown as `other`. */
  networks: ReadonlySet<string>;
  /** Products on sale that pay upstream sellers from the operator's wallet, with their endpoints. */
  operatorProducts?: readonly OperatorProduct[];
}

const NOTE =
  'Counts of this service, all instances together. A challenge is an unpaid request answered with 402 payment terms; a paid call is one whose payment settled on chain. Self-test calls (paid by the operator\'s own wallets) are counted apart and are not revenue or payers. Figures lag by the telemetry flush interval.';

export function buildReport(snapshot: TelemetrySnapshot, ctx: ReportContext, now = new Date()): ObservatoryReport {
  const c = (metric: string) => snapshot.counters[metric] ?? {};
  const total = (metric: string) => c(metric)[TOTAL] ?? 0;
  const endpoints = new Set(
    [METRICS.challenges, METRICS.paidCalls, METRICS.selfTestCalls, METRICS.failures].flatMap((m) => Object.keys(c(m))).filter((e) => e !== TOTAL),
  );
  return {
    service: ctx.serviceName,
    observatory: `${ctx.serviceName} observatory`,
    wallet: ctx.wallet,
    network: ctx.network,
    note: NOTE,
    observing_since: (snapshot.observingSince ?? now).toISOString(),
    updated_at: now.toISOString(),
    totals: {
      challenges: total(METRICS.challenges),
      paid_calls: total(METRICS.paidCalls),
      payment_failures: total(METRICS.failures),
      revenue_usdc: atomicToUsdNumber(BigInt(total(METRICS.revenueAtomic))),
      unique_payers: snapshot.uniquePayers,
    },
    payment_failure_reasons: keyCounts(c(METRICS.failureReasons)),
    payment_failure_networks: keyCounts(c(METRICS.failureNetworks), (key) => key === 'unknown' || ctx.networks.has(key)),
    self_test: { calls: total(METRICS.selfTestCalls), usdc: atomicToUsdNumber(BigInt(total(METRICS.selfTestRevenueAtomic))) },
    endpoints: [...endpoints].sort().map((endpoint) => ({
      endpoint,
      challenges: c(METRICS.challenges)[endpoint] ?? 0,
      paid_calls: c(METRICS.paidCalls)[endpoint] ?? 0,
      revenue_usdc: atomicToUsdNumber(BigInt(c(METRICS.revenueAtomic)[endpoint] ?? 0)),
      self_test_calls: c(METRICS.selfTestCalls)[endpoint] ?? 0,
      payment_failures: c(METRICS.failures)[endpoint] ?? 0,
    })),
    geo: { countries: keyCounts(c(METRICS.countries)) },
    tools: toolBlocks(snapshot.tools),
    operator_payments: operatorPayments(snapshot, ctx.operatorProducts ?? []),
  };
}

/** Hourly series for the dashboard, oldest first (a separate document: the report's fields are fixed). */
export function buildSeries(snapshot: TelemetrySnapshot): { hours: { hour: string; challenges: number; paid_calls: number; revenue_usdc: number }[]; failure_details: KeyCount[] } {
  const c = (metric: string) => snapshot.counters[metric] ?? {};
  const hours = new Set([...Object.keys(c(METRICS.challengesByHour)), ...Object.keys(c(METRICS.paidCallsByHour))]);
  return {
    hours: [...hours].sort().map((hour) => ({
      hour,
      challenges: c(METRICS.challengesByHour)[hour] ?? 0,
      paid_calls: c(METRICS.paidCallsByHour)[hour] ?? 0,
      revenue_usdc: atomicToUsdNumber(BigInt(c(METRICS.revenueByHour)[hour] ?? 0)),
    })),
    failure_details: keyCounts(c(METRICS.failureDetails), isDetailCode),
  };
}

/**
 * Counts by key, largest first. Keys outside `known` are folded into `other`, and so is everything
 * past the MAX_DIMENSIONS largest, so rows stored before a key's set was closed (or by an older
 * version) cannot grow a public document either.
 */
function keyCounts(counts: Record<string, number>, known: (key: string) => boolean = () => true): KeyCount[] {
  const folded = new Map<string, number>();
  for (const [key, count] of Object.entries(counts)) {
    const label = known(key) ? key : OTHER;
    folded.set(label, (folded.get(label) ?? 0) + count);
  }
  const sorted = [...folded].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
  if (sorted.length <= MAX_DIMENSIONS) return sorted;
  const kept = sorted.filter((e) => e.key !== OTHER).slice(0, MAX_DIMENSIONS - 1);
  const keptKeys = new Set(kept.map((e) => e.key));
  return [...kept, { key: OTHER, count: sorted.filter((e) => !keptKeys.has(e.key)).reduce((n, e) => n + e.count, 0) }];
}

/** Reads the snapshot at most once per `maxAgeMs`: the report is public and must not load the store. */
export class SnapshotCache {
  private cached: { at: number; snapshot: Promise<TelemetrySnapshot> } | undefined;
  constructor(
    private readonly store: Store,
    private readonly maxAgeMs: number,
  ) {}

  get(): Promise<TelemetrySnapshot> {
    if (!this.cached || Date.now() - this.cached.at > this.maxAgeMs) {
      const snapshot = Promise.all([this.store.telemetry(), this.store.toolUsage().snapshot(REPORT_LIMITS)]).then(([counters, tools]) => ({ ...counters, tools }));
      this.cached = { at: Date.now(), snapshot };
      snapshot.catch(() => (this.cached = undefined));
    }
    return this.cached.snapshot;
  }

  invalidate(): void {
    this.cached = undefined;
  }
}
