import type { PaymentPayload } from '@x402/core/types';
import { payloadKindOf } from './payloads/index.ts';

/**
 * The identity of a signed payment, the replay guard's key: the once-only tuple its chain enforces
 * (see payloads/ for each kind).
 */
export function paymentKey(payload: PaymentPayload): string {
  return payloadKindOf(payload).key;
}
