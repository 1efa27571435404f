/**
 * What service_gateway and fetch_x402_content return of an upstream the operator's wallet paid: its
 * answer (JSON as JSON, text as text, anything else as base64) and its settlement as the upstream's
 * PAYMENT-RESPONSE said it; and how the operator's refusals and failures reach the caller.
 */
import { z } from 'zod';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { atomicToUsd } from '../../money.ts';
import { OperatorCapReached, UpstreamError } from '../kit/index.ts';
import type { SafeResponse } from '../../providers/safe-fetch.ts';

export const contentSchema = {
  status: z.int().describe("HTTP status of the upstream's answer"),
  content_type: z.string().describe("The answer's content type"),
  body_encoding: z.enum(['json', 'text', 'base64']).describe('How `body` holds the answer: parsed JSON, UTF-8 text, or base64 of the bytes'),
  body: z.unknown().describe("The upstream's answer body"),
};

export const upstreamPaymentSchema = z.object({
  amount: z.string().describe('USD paid to the upstream, decimal string'),
  amount_atomic: z.string().describe('The same in USDC atomic units (6 decimals)'),
  network: z.string().describe('CAIP-2 network the upstream was paid on'),
  asset: z.string().describe('USDC contract paid with'),
  pay_to: z.string().describe("The upstream's recipient address"),
  settlement: z
    .object({
      success: z.boolean().describe('Whether the upstream reported the settlement a success'),
      transaction: z.string().describe('Settlement transaction hash'),
      network: z.string().describe('Network of the settlement'),
      payer: z.string().nullable().describe("The paying address (the operator's wallet)"),
    })
    .describe("The upstream's settlement: its PAYMENT-RESPONSE header, decoded"),
});

export const termsSchema = z.object({
  x402_version: z.int().describe('x402 version of the terms'),
  accepts: z
    .array(
      z.object({
        scheme: z.string().describe('x402 scheme'),
        network: z.string().describe('Network'),
        amount_atomic: z.string().describe('Amount in the asset’s atomic units'),
        asset: z.string().describe('Token contract or mint'),
        pay_to: z.string().describe('Recipient'),
      }),
    )
    .describe('Each payment option the upstream offered'),
});

/** The answer's body as the products return it. */
export function contentOf(response: SafeResponse): z.infer<z.ZodObject<typeof contentSchema>> {
  const contentType = response.contentType || response.headers['content-type'] || 'application/octet-stream';
  const base = { status: response.status, content_type: contentType };
  if (/json/i.test(contentType)) {
    try {
      return { ...base, body_encoding: 'json', body: JSON.parse(response.body.toString('utf8')) };
    } catch {
      // not JSON after all: as text below
    }
  }
  if (/^text\/|json|xml|javascript/i.test(contentType)) return { ...base, body_encoding: 'text', body: response.body.toString('utf8') };
  return { ...base, body_encoding: 'base64', body: response.body.toString('base64') };
}

export function paymentOf(requirements: PaymentRequirements, settlement: SettleResponse): z.infer<typeof upstreamPaymentSchema> {
  return {
    amount: atomicToUsd(requirements.amount),
    amount_atomic: requirements.amount,
    network: requirements.network,
    asset: requirements.asset,
    pay_to: requirements.payTo,
    settlement: { success: settlement.success, transaction: settlement.transaction, network: settlement.network, payer: settlement.payer ?? null },
  };
}

export function termsOf(terms: PaymentRequired): z.infer<typeof termsSchema> {
  return {
    x402_version: terms.x402Version,
    accepts: (terms.accepts ?? []).map((r) => ({
      scheme: String(r.scheme),
      network: String(r.network),
      amount_atomic: String(r.amount ?? (r as { maxAmountRequired?: unknown }).maxAmountRequired ?? ''),
      asset: String(r.asset),
      pay_to: String(r.payTo),
    })),
  };
}

/** The operator's daily cap is reached: 503 until the next UTC day; nothing was signed or charged. */
export function capFailure(error: unknown): unknown {
  if (!(error instanceof OperatorCapReached)) return error;
  return new UpstreamError("the operator's daily spend cap for paying upstream sellers is reached; try again tomorrow (UTC)", 503, undefined, error.secondsToNextDay);
}

/** An upstream that was paid (or may have been) and did not deliver: its failure, not the caller's; the operator's loss is in the ledger. */
export function paidButFailed(status: number, field: string): UpstreamError {
  return new UpstreamError(`the upstream answered HTTP ${status} after payment; that payment is the operator's loss, recorded`, 502, field);
}
