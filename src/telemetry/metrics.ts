import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { TelemetrySnapshot } from '../store/types.ts';
import { METRICS, TOTAL } from './counters.ts';

/** Process metrics (memory, event loop lag, GC) of this instance, collected once per process. */
const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry, prefix: 'percall_process_' });

const SERIES: [metric: string, name: string, help: string, label: string, scale?: number][] = [
  [METRICS.challenges, 'percall_challenges', 'Unpaid requests answered with payment terms, all instances', 'endpoint'],
  [METRICS.paidCalls, 'percall_paid_calls', 'Calls whose payment settled, all instances', 'endpoint'],
  [METRICS.revenueAtomic, 'percall_revenue_usdc', 'Settled revenue in USDC, all instances', 'endpoint', 1e-6],
  [METRICS.failures, 'percall_payment_failures', 'Rejected payments, all instances', 'endpoint'],
  [METRICS.failureReasons, 'percall_payment_failure_reasons', 'Rejected payments by public reason', 'reason'],
  [METRICS.failureDetails, 'percall_payment_failure_details', 'Rejected payments by detailed (facilitator) reason', 'detail'],
  [METRICS.failureNetworks, 'percall_payment_failure_networks', 'Rejected payments by network', 'network'],
  [METRICS.selfTestCalls, 'percall_self_test_calls', 'Calls paid by the operator\'s own wallets', 'endpoint'],
  [METRICS.countries, 'percall_requests_by_country', 'Counted requests by client country', 'country'],
];

/** Prometheus exposition: the shared counters (labelled, totals under endpoint="*") and this process's metrics. */
export async function metricsText(snapshot: TelemetrySnapshot): Promise<string> {
  const registry = new Registry();
  for (const [metric, name, help, label, scale = 1] of SERIES) {
    const gauge = new Gauge({ name, help, labelNames: [label], registers: [registry] });
    for (const [dimension, value] of Object.entries(snapshot.counters[metric] ?? {})) gauge.set({ [label]: dimension === TOTAL ? '*' : dimension }, value * scale);
  }
  new Gauge({ name: 'percall_unique_payers', help: 'Distinct paying wallets, all instances', registers: [registry] }).set(snapshot.uniquePayers);
  return `${await registry.metrics()}\n${await processRegistry.metrics()}`;
}
