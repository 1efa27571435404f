import type { Context } from 'hono';
import type { SettleResponse } from '@x402/core/types';
import type { Receipt } from 'mppx';
import type { AvailableProduct } from '../catalogue/types.ts';
import { mppAmount, mppRoute } from '../checkout/mpp.ts';
import type { MppCredential } from '../checkout/types.ts';
import type { MppProblem, MppRail } from '../payments/mpp/index.ts';
import { hasPaymentCredential, problemResponse, receiptHeaders } from './mpp-wire.ts';

/**
 * The MPP door of a paid HTTP route (`Authorization: Payment`), as wire format only: the credential
 * read from the request, the challenge beside the x402 quote on a 402, the paymentauth.org problems
 * and the `Payment-Receipt` of a paid answer. The checkout (checkout/mpp.ts) verifies and settles.
 */

/** The MPP credential of a request, when its `Authorization` carries the `Payment` scheme. */
export function mppCredentialOf(c: Context): MppCredential | undefined {
  const authorization = c.req.header('authorization');
  if (!authorization || !hasPaymentCredential(authorization)) return undefined;
  const idempotencyKey = c.req.header('idempotency-key');
  return { authorization, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) };
}

/** `WWW-Authenticate: Payment …` for a 402 of this product (one challenge per method). */
export async function mppChallengeHeaders(product: AvailableProduct, mpp: MppRail | undefined): Promise<Record<string, string>> {
  if (!mpp) return {};
  return { 'www-authenticate': await mpp.challengeHeader(mppRoute(product), mppAmount(product), product.title) };
}

/** Headers of an MPP-paid answer: `Payment-Receipt` and `Cache-Control: private`. */
export function mppReceiptHeaders(settlement: SettleResponse | Receipt.Receipt): Promise<Record<string, string>> {
  return receiptHeaders(settlement, 'no-store');
}

/** A refused credential: problem+json with a fresh challenge in `WWW-Authenticate`. */
export function mppProblemResponse(problem: MppProblem): Response {
  return problemResponse(problem);
}
