import type { PaymentRequirements } from '@x402/core/types';

/**
 * Why a payment was not accepted, in the four public categories the telemetry reports.
 * The facilitator's detailed reason (e.g. `invalid_exact_evm_payload_signature`) travels beside it.
 */
export type FailureCategory =
  | 'payment_verification_failed'
  | 'payment_processing_error'
  | 'payment_requirement_not_accepted'
  | 'settlement_failed';

export interface PaymentFailure {
  category: FailureCategory;
  /** Machine-readable detail: the facilitator's reason, or one of ours (`payment_already_used`…). */
  reason: string;
  network?: string;
  /** The terms to send back instead of the quote's own: a batch-settlement channel's state (the corrective 402). */
  accepts?: PaymentRequirements[];
}

/**
 * Reasons are shown to callers (the 402 `error`). Facilitators may put free text there, which can
 * carry RPC URLs with API keys or request data: only short machine codes pass, anything else
 * becomes the category.
 */
export function publicReason(reason: string | undefined, category: FailureCategory): string {
  return reason && /^[a-z0-9_.:-]{1,120}$/i.test(reason) ? reason : category;
}
