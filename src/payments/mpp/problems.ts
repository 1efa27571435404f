import { Errors } from 'mppx';
import type { PaymentFailure } from '../failures.ts';

/** RFC 9457 problem details with the paymentauth.org problem types, plus the fresh challenge to send. */
export interface MppProblem {
  status: number;
  /** `https://paymentauth.org/problems/…`, exactly as mppx's `Errors` define them. */
  type: string;
  title: string;
  detail: string;
  hint?: string;
  /** Id of the fresh challenge in `wwwAuthenticate` (the problem member mppx sends). */
  challengeId: string;
  /** `WWW-Authenticate` value with a fresh challenge for the same door and amount. */
  wwwAuthenticate: string;
}

/** The paymentauth.org problem kinds the rail reports, by the last segment of their type URI. */
export type MppProblemKind =
  | 'payment-required'
  | 'malformed-credential'
  | 'invalid-challenge'
  | 'invalid-payload'
  | 'verification-failed'
  | 'payment-expired'
  | 'payment-insufficient'
  | 'method-unsupported'
  | 'bad-request'
  | 'internal-payment-error';

export function toPaymentError(error: unknown): Errors.PaymentError {
  if (error instanceof Errors.PaymentError) return error;
  // mppx rethrows the schema error when the payload does not parse (it reports InvalidPayloadError).
  if (error instanceof Error && (error.name === 'ZodError' || error.name === '$ZodError')) return new Errors.InvalidPayloadError();
  return new Errors.VerificationFailedError({ reason: 'the credential could not be validated' });
}

export function paymentErrorOf(kind: MppProblemKind, detail: string | undefined, description: string | undefined): Errors.PaymentError {
  switch (kind) {
    case 'payment-required':
      return new Errors.PaymentRequiredError({ description });
    case 'malformed-credential':
      return new Errors.MalformedCredentialError({ reason: detail });
    case 'invalid-challenge':
      return new Errors.InvalidChallengeError({ reason: detail });
    case 'invalid-payload':
      return new Errors.InvalidPayloadError({ reason: detail });
    case 'verification-failed':
      return new Errors.VerificationFailedError({ reason: detail });
    case 'payment-expired':
      return new Errors.PaymentExpiredError({});
    case 'payment-insufficient':
      return new Errors.PaymentInsufficientError({ reason: detail });
    case 'method-unsupported':
      return new Errors.PaymentMethodUnsupportedError({ method: detail });
    case 'bad-request':
      return new Errors.BadRequestError({ reason: detail });
    case 'internal-payment-error':
      return new Errors.InternalPaymentError();
  }
}

const EXPIRED_REASONS = new Set(['payment_authorization_expired', 'invalid_exact_evm_payload_authorization_valid_before']);
const USED_REASONS = new Set(['payment_already_used', 'payment_already_in_progress']);

export function gateFailureKind(failure: PaymentFailure): MppProblemKind {
  if (USED_REASONS.has(failure.reason)) return 'invalid-challenge';
  if (EXPIRED_REASONS.has(failure.reason)) return 'payment-expired';
  if (failure.category === 'payment_processing_error') return 'internal-payment-error';
  return 'verification-failed';
}
