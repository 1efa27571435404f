import { FacilitatorTimeoutError } from '@x402/core/server';
import { SettleError, VerifyError } from '@x402/core/types';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { AvailableProduct, Surface } from '../catalogue/types.ts';
import type { Logger } from '../log.ts';
import type { LedgerEntry, Store } from '../store/types.ts';
import { publicReason, type FailureCategory, type PaymentFailure } from './failures.ts';
import { paymentKey } from './payment-key.ts';
import type { X402Rail } from './x402-rail.ts';

export interface PaidCall {
  product: AvailableProduct;
  surface: Surface;
  payload: PaymentPayload;
  /** Already validated against the product's input schema. */
  input: unknown;
}

export type GateResult =
  | { status: 'served'; output: unknown; settlement: SettleResponse; requirements: PaymentRequirements }
  | { status: 'payment_failed'; failure: PaymentFailure; settlement?: SettleResponse }
  | { status: 'product_failed'; error: unknown }
  /** Facilitator unreachable or failing: nothing was charged; retry later. */
  | { status: 'unavailable'; detail: string }
  /** Settlement was requested but its outcome is unknown: no body, the payment stays blocked until reconciled. */
  | { status: 'pending'; detail: string };

/** Facilitator reasons that mean "broadcast, not yet confirmed" rather than a definite failure. */
const PENDING_REASONS = new Set(['settlement_pending', 'transaction_pending', 'settlement_timeout']);

/**
 * The payment gate, shared by every door (HTTP routes, MCP tools): reserve the authorization
 * (replay guard) → verify → run the product → settle → ledger. A product that fails is never
 * settled; a result is only handed back after settlement succeeded.
 */
export class PaymentGate {
  constructor(
    private readonly rail: X402Rail,
    private readonly store: Store,
    private readonly log: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async execute(call: PaidCall): Promise<GateResult> {
    const { product, surface, payload } = call;
    const requirements = this.rail.match(product, surface, payload);
    if (!requirements) return failed('payment_requirement_not_accepted', 'no_matching_payment_requirements', payload.accepted?.network);

    const key = paymentKey(payload);
    const reservation = await this.store.reservePayment({ key, product: product.id, surface, network: requirements.network });
    if (!reservation.reserved) {
      const reason = reservation.state === 'settled' ? 'payment_already_used' : 'payment_already_in_progress';
      return failed('payment_verification_failed', reason, requirements.network);
    }

    // From here on the reservation must end released, pending or settled.
    let released = false;
    const release = async () => {
      released = true;
      await this.store.releasePayment(key);
    };
    try {
      const verified = await this.verify(payload, requirements);
      if (verified.status !== 'valid') {
        await release();
        return verified.result;
      }

      let output: unknown;
      try {
        output = await product.run(call.input, { now: this.clock(), signal: AbortSignal.timeout(60_000) });
      } catch (error) {
        await release();
        return { status: 'product_failed', error };
      }

      await this.store.markSettling(key);
      const settled = await this.settle(payload, requirements);
      if (settled.status === 'pending') {
        await this.store.markPending(key, { txHash: settled.txHash, reason: settled.detail });
        this.log.error({ product: product.id, surface, txHash: settled.txHash, reason: settled.detail }, 'settlement outcome unknown; payment parked as pending');
        return { status: 'pending', detail: settled.detail };
      }
      if (settled.status !== 'settled') {
        await release();
        return settled.result;
      }

      const settlement = settled.settlement;
      await this.recordLedger({
        paymentKey: key,
        payer: settlement.payer ?? verified.payer ?? 'unknown',
        network: settlement.network ?? requirements.network,
        scheme: requirements.scheme,
        amount: settlement.amount ?? requirements.amount,
        asset: requirements.asset,
        payTo: requirements.payTo,
        txHash: settlement.transaction,
        product: product.id,
        surface,
        settledAt: this.clock(),
      });
      return { status: 'served', output, settlement, requirements };
    } catch (error) {
      // A store or programming error mid-flight: the payment was not settled by this call.
      if (!released) await this.store.releasePayment(key).catch(() => undefined);
      throw error;
    }
  }

  private async verify(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<{ status: 'valid'; payer?: string } | { status: 'invalid'; result: GateResult }> {
    try {
      const result = await this.rail.server.verifyPayment(payload, requirements);
      if (result.isValid) return { status: 'valid', payer: result.payer };
      return { status: 'invalid', result: failed('payment_verification_failed', result.invalidReason ?? 'invalid_payment', requirements.network) };
    } catch (error) {
      if (error instanceof VerifyError) {
        return { status: 'invalid', result: failed('payment_verification_failed', error.invalidReason ?? 'invalid_payment', requirements.network) };
      }
      this.log.warn({ err: describeError(error) }, 'facilitator verify failed');
      return { status: 'invalid', result: { status: 'unavailable', detail: 'the payment facilitator could not be reached to verify the payment' } };
    }
  }

  private async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<
    | { status: 'settled'; settlement: SettleResponse }
    | { status: 'failed'; result: GateResult }
    | { status: 'pending'; detail: string; txHash?: string }
  > {
    let settlement: SettleResponse;
    try {
      settlement = await this.rail.server.settlePayment(payload, requirements);
    } catch (error) {
      if (error instanceof SettleError) {
        const reason = error.errorReason ?? 'settlement_failed';
        if (PENDING_REASONS.has(reason)) return { status: 'pending', detail: reason, txHash: (error as { transaction?: string }).transaction };
        return { status: 'failed', result: failed('settlement_failed', reason, requirements.network) };
      }
      if (!(error instanceof FacilitatorTimeoutError) && isConnectionRefused(error)) {
        // The request never reached the facilitator, so nothing can have been broadcast.
        return { status: 'failed', result: { status: 'unavailable', detail: 'the payment facilitator could not be reached to settle the payment' } };
      }
      this.log.warn({ err: describeError(error) }, 'facilitator settle failed with unknown outcome');
      return { status: 'pending', detail: 'settlement_outcome_unknown' };
    }
    if (settlement.success) return { status: 'settled', settlement };
    const reason = settlement.errorReason ?? 'settlement_failed';
    if (PENDING_REASONS.has(reason)) return { status: 'pending', detail: reason, txHash: settlement.transaction || undefined };
    return { status: 'failed', result: { ...failed('settlement_failed', reason, requirements.network), settlement } as GateResult };
  }

  /** A settled payment must reach the ledger: retry briefly, then log the full entry for reconciliation. */
  private async recordLedger(entry: LedgerEntry): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.recordSettlement(entry);
        return;
      } catch (error) {
        if (attempt >= 3) {
          this.log.error({ entry, err: describeError(error) }, 'settled payment could not be written to the ledger');
          return;
        }
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }
}

function failed(category: FailureCategory, reason: string, network?: string): GateResult {
  return { status: 'payment_failed', failure: { category, reason: publicReason(reason, category), network } };
}

function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED';
}

/**
 * Error name and message only, never whole objects (they may echo request data), and with URLs
 * removed: RPC and facilitator URLs often carry API keys.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  return `${error.name}: ${error.message}`.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '[url]').slice(0, 300);
}
