import { z } from 'zod';
import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type { PaymentPayload } from '@x402/core/types';
import { withinDepth } from '../json-depth.ts';

/**
 * An x402 v2 PaymentPayload from anything a caller sent (a decoded header, an MCP `_meta` value),
 * checked against the official SDK's schema: undefined for anything else (numbers, arrays, v1
 * payloads, missing or mistyped `accepted`), so no later step ever reads a field that is not there.
 * The signed part (`payload`) must also have the shape its network's schemes read (see signedShape):
 * the SDK's facilitator schemes read those fields without checking them, and what they throw would
 * otherwise look like an unreachable facilitator (503) rather than an invalid payment (402).
 */
export function readPaymentPayload(value: unknown): PaymentPayload | undefined {
  if (!withinDepth(value, MAX_PAYLOAD_DEPTH)) return undefined;
  const parsed = PaymentPayloadV2Schema.safeParse(value);
  if (!parsed.success) return undefined;
  const payload = value as PaymentPayload;
  const shape = signedShape(payload.accepted.network, payload.accepted.scheme, payload.payload);
  return !shape || shape.safeParse(payload.payload).success ? payload : undefined;
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

/**
 * Far deeper than any genuine payload (about 4 levels). A deeper value would overflow the recursive
 * serialisers it meets later (JSON.stringify a few thousand levels down, the payment key's canonical JSON).
 */
const MAX_PAYLOAD_DEPTH = 32;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint = z.string().regex(/^\d{1,78}$/);
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const hex = z.string().regex(/^0x(?:[0-9a-fA-F]{2})+$/);

/** EIP-3009 `transferWithAuthorization` (x402 `exact` on EVM), as the official client signs it. */
const eip3009Payload = z.object({
  authorization: z.object({ from: address, to: address, value: uint, validAfter: uint, validBefore: uint, nonce: bytes32 }),
  signature: hex,
});

/** Permit2 `permitWitnessTransferFrom` (x402 `upto`, and `exact` for tokens without EIP-3009). */
const permit2Payload = z.object({
  permit2Authorization: z.object({
    from: address,
    permitted: z.object({ token: address, amount: uint }),
    spender: address,
    nonce: uint,
    deadline: uint,
    witness: z.object({ to: address, validAfter: uint, facilitator: address.optional() }),
  }),
  signature: hex,
});

/** A partially signed Solana transaction (x402 `exact` on Solana). */
const svmPayload = z.object({ transaction: z.string().min(1) });

/** x402 `batch-settlement`: a channel's configuration and the cumulative voucher every payload carries. */
const channelConfig = z.object({
  payer: address,
  payerAuthorizer: address,
  receiver: address,
  receiverAuthorizer: address,
  token: address,
  withdrawDelay: z.number().int().nonnegative(),
  salt: bytes32,
});
const voucher = z.object({ channelId: bytes32, maxClaimableAmount: uint, signature: hex });
const depositAuthorization = z.union([
  z.object({ erc3009Authorization: z.object({ validAfter: uint, validBefore: uint, salt: bytes32, signature: hex }) }),
  z.object({
    permit2Authorization: z.object({
      from: address,
      permitted: z.object({ token: address, amount: uint }),
      spender: address,
      nonce: uint,
      deadline: uint,
      witness: z.object({ channelId: bytes32 }),
      signature: hex,
    }),
  }),
]);
const batchPayload = z.discriminatedUnion('type', [
  z.object({ type: z.literal('voucher'), channelConfig, voucher }),
  z.object({ type: z.literal('deposit'), channelConfig, voucher, deposit: z.object({ amount: uint, authorization: depositAuthorization }) }),
  z.object({ type: z.literal('refund'), channelConfig, voucher, amount: uint.optional() }),
]);

/** The schema the signed payload of a network must satisfy; undefined for networks offered nowhere (no requirement will match). */
function signedShape(network: string, scheme: string, signed: Record<string, unknown>): z.ZodType | undefined {
  if (network.startsWith('eip155:') && scheme === 'batch-settlement') return batchPayload;
  if (network.startsWith('eip155:')) return 'permit2Authorization' in signed ? permit2Payload : eip3009Payload;
  if (network.startsWith('solana:')) return svmPayload;
  return undefined;
}
