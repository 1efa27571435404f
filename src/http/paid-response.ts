import type { Context } from 'hono';
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { SettleResponse } from '@x402/core/types';
import type { CheckoutResult } from '../checkout/types.ts';
import type { PaymentGate } from '../payments/gate.ts';
import type { MppRail } from '../payments/mpp/index.ts';
import type { EncodedQuote } from '../payments/x402-rail.ts';
import { EventStreamOutput } from '../products/event-stream.ts';
import { deliveryReport, watchDelivery } from './delivery.ts';
import { mppChallengeHeaders, mppProblemResponse, mppReceiptHeaders } from './mpp-door.ts';
import { problemResponse } from './problem.ts';

export interface HttpAnswerDeps {
  gate: Pick<PaymentGate, 'delivered' | 'undelivered'>;
  /** The MPP rail, when this instance offers it. */
  mpp?: MppRail;
}

/**
 * The HTTP encoding of a checkout result, for the paid routes, the order doors and the MPP door
 * alike. A paid answer that does not reach the caller is reported, so the same payment can collect it.
 */
export async function httpAnswer(c: Context, result: CheckoutResult, deps: HttpAnswerDeps): Promise<Response> {
  switch (result.kind) {
    case 'quote': {
      const mpp = result.offerMpp ? await mppChallengeHeaders(result.product, deps.mpp) : undefined;
      return paymentRequired(result.quote.encoded(), result.settlement, mpp);
    }
    case 'problem': {
      const headers: Record<string, string> = {};
      if (result.retryAfter !== undefined) headers['retry-after'] = String(result.retryAfter);
      if (result.allow) headers.allow = result.allow.join(', ');
      return problemResponse(result.problem, headers);
    }
    case 'proof_required':
      return new Response(JSON.stringify(result.request), {
        status: 401,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': `Proof realm="${result.route}", error="${result.request.error}"` },
      });
    case 'mpp_problem':
      return mppProblemResponse(result.problem);
    case 'served': {
      const { paymentKey } = result;
      if (paymentKey !== undefined) watchDelivery(c, deliveryReport(deps.gate, paymentKey));
      const receipt =
        result.rail === 'mpp'
          ? await mppReceiptHeaders(result.receipt ?? result.settlement)
          : { 'cache-control': 'private, no-store', 'payment-response': encodePaymentResponseHeader(result.settlement) };
      return paidResponse(result.output, receipt);
    }
    case 'free': {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'private, no-store', 'free-tier-wallet': result.wallet };
      if (result.remaining !== undefined) headers['free-tier-remaining'] = String(result.remaining);
      return new Response(JSON.stringify(result.output), { status: 200, headers });
    }
  }
}

/**
 * The 200 of a paid call on any rail: the product's output as JSON, or as server-sent events when the
 * product streamed, with the rail's own receipt headers (`PAYMENT-RESPONSE` or `Payment-Receipt`).
 */
export function paidResponse(output: unknown, receiptHeaders: Record<string, string>): Response {
  const stream = output instanceof EventStreamOutput;
  const headers = new Headers(receiptHeaders);
  headers.set('content-type', stream ? 'text/event-stream' : 'application/json');
  return new Response(stream ? output.toEventStream() : JSON.stringify(output), { status: 200, headers });
}

/** 402 with the quote in the PAYMENT-REQUIRED header and, identical, as the JSON body. */
export function paymentRequired(quote: EncodedQuote, settlement?: SettleResponse, extraHeaders?: Record<string, string>): Response {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'payment-required': quote.header,
    ...extraHeaders,
  };
  if (settlement) headers['payment-response'] = encodePaymentResponseHeader(settlement);
  // As the x402 SDK's own middleware: an `upto` payer whose Permit2 approval is missing gets 412,
  // so its client knows to approve Permit2 once and retry rather than re-sign.
  const status = quote.error === PERMIT2_ALLOWANCE_REQUIRED ? 412 : 402;
  return new Response(quote.body, { status, headers });
}

const PERMIT2_ALLOWANCE_REQUIRED = 'permit2_allowance_required';
