import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { TelemetrySnapshot } from '../store/types.ts';
import { METRICS, TOTAL } from './counters.ts';
import type { ProviderStats } from '../providers/api/client.ts';
import { operatorPayments, type OperatorProduct } from './operator-report.ts';

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
  [METRICS.upstreamPayments, 'percall_upstream_payments', "Upstream x402 sellers paid from the operator's wallet, by product, all instances", 'product'],
  [METRICS.upstreamSpendAtomic, 'percall_upstream_spend_usdc', "Paid to upstream x402 sellers from the operator's wallet, by product, all instances", 'product', 1e-6],
];

/** batch-settlement channels, all instances: what vouchers charged and how much of it is claimed on chain. */
export interface ChannelTotalsSnapshot {
  channels: number;
  charged: bigint;
  claimed: bigint;
}

/**
 * Prometheus exposition: the shared counters (labelled, totals under endpoint="*"), the channel
 * totals when channels are offered, and this process's metrics.
 */
export async function metricsText(snapshot: TelemetrySnapshot, channels?: ChannelTotalsSnapshot, providers: ProviderStats[] = [], operatorProducts: readonly OperatorProduct[] = []): Promise<string> {
  const registry = new Registry();
  for (const [metric, name, help, label, scale = 1] of SERIES) {
    const gauge = new Gauge({ name, help, labelNames: [label], registers: [registry] });
    for (const [dimension, value] of Object.entries(snapshot.counters[metric] ?? {})) gauge.set({ [label]: dimension === TOTAL ? '*' : dimension }, value * scale);
  }
  new Gauge({ name: 'percall_unique_payers', help: 'Distinct paying wallets, all instances', registers: [registry] }).set(snapshot.uniquePayers);
  if (channels) {
    const usdc = (atomic: bigint) => Number(atomic) / 1e6;
    new Gauge({ name: 'percall_batch_channels', help: 'batch-settlement channels the service holds vouchers of', registers: [registry] }).set(channels.channels);
    new Gauge({ name: 'percall_batch_charged_usdc', help: 'Charged by batch-settlement vouchers, all time', registers: [registry] }).set(usdc(channels.charged));
    new Gauge({ name: 'percall_batch_claimed_usdc', help: 'Of that, claimed on chain', registers: [registry] }).set(usdc(channels.claimed));
    new Gauge({ name: 'percall_batch_unclaimed_usdc', help: 'Charged by vouchers, not claimed on chain yet', registers: [registry] }).set(usdc(channels.charged - channels.claimed));
  }
  if (providers.length) providerMetrics(registry, providers);
  if (operatorProducts.length) {
    const margin = new Gauge({ name: 'percall_operator_margin_usdc', help: 'Revenue of the products paying upstream sellers less their upstream spend, by product', labelNames: ['product'], registers: [registry] });
    for (const p of operatorPayments(snapshot, operatorProducts).products) margin.set({ product: p.product }, p.margin_usdc);
  }
  return `${await registry.metrics()}\n${await processRegistry.metrics()}`;
}

/** Third-party data providers of this instance: requests sent, cache hits, budget refusals and failures by reason. */
function providerMetrics(registry: Registry, providers: ProviderStats[]): void {
  const gauge = (name: string, help: string, labels = ['provider']) => new Gauge({ name, help, labelNames: labels, registers: [registry] });
  const requests = gauge('percall_provider_requests', 'Requests sent to a data provider by this instance');
  const hits = gauge('percall_provider_cache_hits', 'Identical provider requests answered from the short-lived cache');
  const entries = gauge('percall_provider_cache_entries', 'Answers held in a provider\'s cache now');
  const budget = gauge('percall_provider_budget_per_minute', 'Requests a minute this instance may send to a provider');
  const failures = gauge('percall_provider_failures', 'Provider requests that failed, by reason (budget: refused here, over the budget)', ['provider', 'reason']);
  for (const p of providers) {
    requests.set({ provider: p.provider }, p.requests);
    hits.set({ provider: p.provider }, p.cacheHits);
    entries.set({ provider: p.provider }, p.cacheEntries);
    budget.set({ provider: p.provider }, p.budgetPerMinute);
    for (const [reason, count] of Object.entries(p.failures)) failures.set({ provider: p.provider, reason }, count);
  }
}
