import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type { PaymentPayload } from '@x402/core/types';

/**
 * An x402 v2 PaymentPayload from anything a caller sent (a decoded header, an MCP `_meta` value),
 * checked against the official SDK's schema: undefined for anything else (numbers, arrays, v1
 * payloads, missing or mistyped `accepted`), so no later step ever reads a field that is not there.
 */
export function readPaymentPayload(value: unknown): PaymentPayload | undefined {
  const parsed = PaymentPayloadV2Schema.safeParse(value);
  return parsed.success ? (value as PaymentPayload) : undefined;
}

/** The PaymentPayload of a `PAYMENT-SIGNATURE` (or `X-PAYMENT`) header: base64 of its JSON. */
export function decodePaymentHeader(header: string): PaymentPayload | undefined {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  return readPaymentPayload(json);
}
