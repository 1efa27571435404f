import { FacilitatorTimeoutError, type x402ResourceServer } from '@x402/core/server';
import { SettleError, VerifyError } from '@x402/core/types';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { withDeadline } from '../deadline.ts';
import { describeError, type Logger } from '../log.ts';
import { publicReason, type FailureCategory } from './failures.ts';
import type { GateResult } from './gate.ts';

/** How a settlement ended: moved, definitely not moved (the result says why), or not known yet. */
export type SettleOutcome =
  | { status: 'settled'; settlement: SettleResponse }
  | { status: 'failed'; result: GateResult }
  | { status: 'pending'; detail: string; txHash?: string };

export type VerifyOutcome = { status: 'valid'; payer?: string } | { status: 'invalid'; result: GateResult };

/**
 * One way of moving a reserved payment's money; the gate's settle skeleton is the same for all:
 * reserve → verify → run → settle → ledger. `settle` is called only after the product succeeded,
 * with the amount to charge (the actual charge for metered schemes).
 */
export interface Settler {
  verify(): Promise<VerifyOutcome>;
  settle(amount: string): Promise<SettleOutcome>;
  /** A verified payment that will not be settled (the product failed, or nothing moved): let go of what verify held. */
  release?(): Promise<void>;
  /** The ledger's reference for a charge that moves no money on chain when it is made (a channel voucher). */
  offChainReference?: string;
}

export function failed(category: FailureCategory, reason: string, network?: string): GateResult {
  return { status: 'payment_failed', failure: { category, reason: publicReason(reason, category), network } };
}

/**
 * Facilitator reasons that mean "broadcast, not yet confirmed" rather than a definite failure. The
 * "already used" ones too: the gate settles a payment once, so a settle that finds it used may be its
 * own earlier broadcast (the SDK retries a pending settle once); only the chain can say whose it was.
 */
const PENDING_REASONS = new Set(['settlement_pending', 'transaction_pending', 'settlement_timeout', 'duplicate_settlement', 'invalid_exact_evm_nonce_already_used']);

/**
 * Failure reasons a facilitator gives before it broadcasts anything (its own re-verification):
 * only these free the payment at once. Any other failure may have followed a broadcast that landed,
 * so it is pending and the chain decides.
 */
function nothingMoved(reason: string): boolean {
  if (PENDING_REASONS.has(reason) || /(transaction_failed|transfer_event_mismatch|transaction_state)$/.test(reason)) return false;
  return reason.startsWith('invalid_') || reason.startsWith('upto_') || PRE_BROADCAST_REASONS.has(reason);
}
const PRE_BROADCAST_REASONS = new Set(['insufficient_funds', 'unsupported_payload_type', 'unsupported_scheme', 'asset_not_deployed_contract', 'smart_wallet_deployment_failed']);

/** A transaction reference as the network writes it: an EVM hash, a Solana signature. */
export function isTransactionReference(reference: unknown, network: string): reference is string {
  if (typeof reference !== 'string') return false;
  if (network.startsWith('eip155:')) return /^0x[0-9a-fA-F]{64}$/.test(reference);
  if (network.startsWith('solana:')) return /^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(reference);
  return reference.length > 0 && reference.length <= 200;
}

/**
 * A facilitator's success answer, checked and reduced to what we can stand behind: the network is
 * the one quoted, an amount only if it is an integer no larger than the charge. Anything else in a
 * "success" (no transaction, `success: "yes"`) is not proof that money moved, nor that it did not.
 */
function checkedSettlement(answer: SettleResponse, network: string, charged: string): SettleResponse | undefined {
  if (answer.success !== true) return undefined;
  // An `upto` charge of 0 moves nothing: no transaction to name.
  if (BigInt(charged) === 0n) return { success: true, transaction: '', network: network as SettleResponse['network'], amount: '0', ...(typeof answer.payer === 'string' ? { payer: answer.payer } : {}) };
  if (!isTransactionReference(answer.transaction, network)) return undefined;
  const amount = typeof answer.amount === 'string' && /^\d{1,78}$/.test(answer.amount) && BigInt(answer.amount) <= BigInt(charged) ? answer.amount : undefined;
  const payer = typeof answer.payer === 'string' && answer.payer.length > 0 && answer.payer.length <= 128 ? answer.payer : undefined;
  return { success: true, transaction: answer.transaction, network: network as SettleResponse['network'], ...(payer ? { payer } : {}), ...(amount ? { amount } : {}) };
}

/** The facilitator did not answer within the gate's deadline. */
class FacilitatorDeadlineError extends Error {
  override name = 'FacilitatorDeadlineError';
}

/**
 * x402 payloads (and MPP evm credentials, turned into x402 `exact` terms): verified and settled by
 * the facilitator through the SDK's resource server. Verify waits at most `timeoutMs` (then 503,
 * nothing moved); settle at most twice that (broadcast, then its receipt), then it is pending.
 */
export function facilitatorSettler(
  deps: { server: x402ResourceServer; log: Logger; timeoutMs: number },
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  check: (answer: SettleResponse, network: string, charged: string) => SettleResponse | undefined = checkedSettlement,
): Settler {
  const bounded = <T>(work: Promise<T>, timeouts: number) => {
    const ms = deps.timeoutMs * timeouts;
    return withDeadline(work, ms, () => new FacilitatorDeadlineError(`the facilitator did not answer within ${ms} ms`));
  };
  const { network } = requirements;
  return {
    async verify() {
      try {
        const result = await bounded(deps.server.verifyPayment(payload, requirements), 1);
        if (result.isValid) return { status: 'valid', payer: result.payer };
        return { status: 'invalid', result: failed('payment_verification_failed', result.invalidReason ?? 'invalid_payment', network) };
      } catch (error) {
        if (error instanceof VerifyError) return { status: 'invalid', result: failed('payment_verification_failed', error.invalidReason ?? 'invalid_payment', network) };
        deps.log.warn({ err: describeError(error) }, 'facilitator verify failed');
        return { status: 'invalid', result: { status: 'unavailable', detail: 'the payment facilitator could not be reached to verify the payment' } };
      }
    },
    async settle(amount) {
      let settlement: SettleResponse;
      try {
        settlement = await bounded(deps.server.settlePayment(payload, { ...requirements, amount }), 2);
      } catch (error) {
        if (error instanceof SettleError) {
          const reason = error.errorReason ?? 'settlement_failed';
          if (!nothingMoved(reason)) return { status: 'pending', detail: publicReason(reason, 'settlement_failed'), txHash: transactionHint(error.transaction, network) };
          return { status: 'failed', result: failed('settlement_failed', reason, network) };
        }
        if (!(error instanceof FacilitatorTimeoutError) && isConnectionRefused(error)) {
          // The request never reached the facilitator, so nothing can have been broadcast.
          return { status: 'failed', result: { status: 'unavailable', detail: 'the payment facilitator could not be reached to settle the payment' } };
        }
        deps.log.warn({ err: describeError(error) }, 'facilitator settle failed with unknown outcome');
        return { status: 'pending', detail: 'settlement_outcome_unknown' };
      }
      const checked = check(settlement, network, amount);
      if (checked) return { status: 'settled', settlement: checked };
      if (settlement.success !== false) {
        deps.log.warn({ network }, 'facilitator answered settle with an unreadable success; outcome left to the chain');
        return { status: 'pending', detail: 'settlement_answer_malformed', txHash: transactionHint(settlement.transaction, network) };
      }
      const reason = typeof settlement.errorReason === 'string' ? settlement.errorReason : 'settlement_failed';
      if (!nothingMoved(reason)) return { status: 'pending', detail: publicReason(reason, 'settlement_failed'), txHash: transactionHint(settlement.transaction, network) };
      const result = failed('settlement_failed', reason, network);
      return { status: 'failed', result: result.status === 'payment_failed' ? { ...result, settlement } : result };
    },
  };
}

/**
 * x402 `batch-settlement`: the SDK's server scheme keeps the channel (SqlChannelStorage) and, through
 * the facilitator, verifies vouchers and sends a channel's first deposit. Settling a voucher only
 * raises the channel's charged amount, durably, before the response leaves; claims move the money
 * later (BatchClaims). A refused voucher gets the channel's state back (the corrective 402), and a
 * voucher whose product failed gives back its hold on the channel at once.
 */
export function channelSettler(
  deps: { server: x402ResourceServer; log: Logger; timeoutMs: number },
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  corrective: (reason: string) => Promise<PaymentRequirements[] | undefined>,
  reference: string,
): Settler {
  const base = facilitatorSettler(deps, payload, requirements, checkedChannelSettlement);
  return {
    offChainReference: reference,
    async verify() {
      const verified = await base.verify();
      if (verified.status === 'valid' || verified.result.status !== 'payment_failed') return verified;
      const accepts = await corrective(verified.result.failure.reason);
      return accepts ? { status: 'invalid', result: { ...verified.result, failure: { ...verified.result.failure, accepts } } } : verified;
    },
    settle: base.settle,
    async release() {
      await deps.server
        .createPaymentCancellationDispatcher(payload, requirements)
        .cancel({ reason: 'handler_failed' })
        .catch((error: unknown) => deps.log.warn({ err: describeError(error) }, 'could not release a channel after a failed call; it frees itself when the hold expires'));
    },
  };
}

/**
 * A batch-settlement answer: the charge is `extra.chargedAmount` (a deposit's amount is the deposit,
 * not the charge), never above what was asked; the transaction is the deposit's, or none for a
 * voucher. `extra` (the channel's new state) is kept: the client counts its next voucher from it.
 */
function checkedChannelSettlement(answer: SettleResponse, network: string, charged: string): SettleResponse | undefined {
  if (answer.success !== true) return undefined;
  const extra = answer.extra as { chargedAmount?: unknown } | undefined;
  const transaction = isTransactionReference(answer.transaction, network) ? answer.transaction : '';
  const chargedAmount = typeof extra?.chargedAmount === 'string' && /^\d{1,78}$/.test(extra.chargedAmount) ? extra.chargedAmount : transaction ? charged : undefined;
  if (chargedAmount === undefined || BigInt(chargedAmount) > BigInt(charged)) return undefined;
  const payer = typeof answer.payer === 'string' && answer.payer.length > 0 && answer.payer.length <= 128 ? answer.payer : undefined;
  return { success: true, transaction, network: network as SettleResponse['network'], amount: chargedAmount, ...(payer ? { payer } : {}), ...(answer.extra ? { extra: answer.extra } : {}) };
}

/**
 * A payment whose rail settles it itself (MPP `tempo`: the client's signed transaction is broadcast).
 * Nothing to verify beyond what the rail did; a broadcast that failed may still have landed, so it is
 * pending, never released.
 */
export function broadcastSettler(
  broadcast: () => Promise<{ reference: string }>,
  terms: { network: string; amount: string; payer?: string },
  log: Logger,
): Settler {
  return {
    verify: async () => ({ status: 'valid', payer: terms.payer }),
    async settle() {
      try {
        const { reference } = await broadcast();
        if (!isTransactionReference(reference, terms.network)) return { status: 'pending', detail: 'settlement_answer_malformed' };
        return { status: 'settled', settlement: { success: true, transaction: reference, network: terms.network as SettleResponse['network'], payer: terms.payer ?? 'unknown', amount: terms.amount } };
      } catch (error) {
        log.error({ err: describeError(error) }, 'external settlement outcome unknown');
        return { status: 'pending', detail: 'settlement_outcome_unknown' };
      }
    },
  };
}

/** A broadcast transaction a failure answer names, kept for the reconciler when it reads as one. */
function transactionHint(reference: unknown, network: string): string | undefined {
  return isTransactionReference(reference, network) ? reference : undefined;
}

function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED';
}
