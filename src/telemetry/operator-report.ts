import { atomicToUsdNumber } from '../money.ts';
import type { TelemetrySnapshot } from '../store/types.ts';
import { METRICS } from './counters.ts';

/** A product that pays upstream sellers from the operator's wallet, and the endpoints it is sold at. */
export interface OperatorProduct {
  product: string;
  /** Its telemetry endpoint keys (`POST /api/v1/paid/…`, `tool …`). */
  endpoints: string[];
}

export interface OperatorPaymentsFigures {
  product: string;
  upstream_payments: number;
  upstream_spend_usdc: number;
  revenue_usdc: number;
  margin_usdc: number;
}

/**
 * Upstream volume, spend and margin of the products that pay upstream sellers: what callers paid
 * for them (their endpoints' revenue, self-tests excluded) less what the operator's wallet paid
 * upstream for them (free-tier calls and upstream failures included: they are the operator's cost).
 */
export function operatorPayments(snapshot: TelemetrySnapshot, products: readonly OperatorProduct[]): { totals: Omit<OperatorPaymentsFigures, 'product'>; products: OperatorPaymentsFigures[] } {
  const c = (metric: string) => snapshot.counters[metric] ?? {};
  const rows = products.map((p) => {
    const revenue = p.endpoints.reduce((sum, e) => sum + BigInt(c(METRICS.revenueAtomic)[e] ?? 0), 0n);
    const spend = BigInt(c(METRICS.upstreamSpendAtomic)[p.product] ?? 0);
    return { product: p.product, payments: c(METRICS.upstreamPayments)[p.product] ?? 0, revenue, spend };
  });
  const figures = (payments: number, revenue: bigint, spend: bigint) => ({
    upstream_payments: payments,
    upstream_spend_usdc: atomicToUsdNumber(spend),
    revenue_usdc: atomicToUsdNumber(revenue),
    margin_usdc: signedUsd(revenue - spend),
  });
  return {
    totals: figures(
      rows.reduce((n, r) => n + r.payments, 0),
      rows.reduce((n, r) => n + r.revenue, 0n),
      rows.reduce((n, r) => n + r.spend, 0n),
    ),
    products: rows.map((r) => ({ product: r.product, ...figures(r.payments, r.revenue, r.spend) })),
  };
}

function signedUsd(atomic: bigint): number {
  return atomic < 0n ? -atomicToUsdNumber(-atomic) : atomicToUsdNumber(atomic);
}
