import type { SettleResponse } from '@x402/core/types';
import type { Receipt } from 'mppx';
import type { MppProblem } from '../payments/mpp/problems.ts';

/** The MPP wire format of the HTTP door: credentials, problem responses, receipts (paymentauth.org). */

/** mppx, loaded by the first receipt: an instance without the MPP rail never loads it (README, "Memory"). */
const mppx = () => import('mppx');

export const PAYMENT_RECEIPT_HEADER = 'Payment-Receipt';
export const WWW_AUTHENTICATE_HEADER = 'WWW-Authenticate';

/** True when an `Authorization` value carries a `Payment` credential (route it to MPP). */
export function hasPaymentCredential(authorization: string | null | undefined): boolean {
  // As mppx's Credential.extractPaymentScheme reads it: one of the comma-separated parts starts with `Payment `.
  return !!authorization && authorization.split(',').some((part) => /^Payment\s+/i.test(part.trim()));
}

/** The RFC 9457 body (as mppx writes it) for a problem. */
export function problemBody(problem: MppProblem): Record<string, unknown> {
  const { type, title, status, detail, hint, challengeId } = problem;
  return { type, title, status, detail, ...(hint ? { hint } : {}), challengeId };
}

/** Headers of a problem response: the fresh challenge, `no-store`, `application/problem+json`. */
export function problemHeaders(problem: MppProblem): Record<string, string> {
  return { [WWW_AUTHENTICATE_HEADER]: problem.wwwAuthenticate, 'Cache-Control': 'no-store', 'Content-Type': 'application/problem+json' };
}

export function problemResponse(problem: MppProblem): Response {
  return new Response(JSON.stringify(problemBody(problem)), { status: problem.status, headers: problemHeaders(problem) });
}

/** `private` added to a Cache-Control value (a paid response must not be served from a shared cache); `public` dropped. */
function withPrivate(value: string | null | undefined): string {
  const directives = (value ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d && d.toLowerCase() !== 'public');
  if (!directives.some((d) => d.toLowerCase() === 'private')) directives.push('private');
  return directives.join(', ');
}

/** mppx's Receipt for a settlement (evm: the x402 facilitator's transaction hash). */
export async function receiptOf(settlement: SettleResponse | Receipt.Receipt, timestamp: Date = new Date()): Promise<Receipt.Receipt> {
  const { Receipt } = await mppx();
  if ('reference' in settlement) return Receipt.from(settlement);
  return Receipt.from({ method: 'evm', reference: settlement.transaction, status: 'success', timestamp: timestamp.toISOString() });
}

/** The `Payment-Receipt` header value. */
export async function receiptHeader(settlement: SettleResponse | Receipt.Receipt, timestamp?: Date): Promise<string> {
  const { Receipt } = await mppx();
  return Receipt.serialize(await receiptOf(settlement, timestamp));
}

/** Headers of a paid response: the receipt and `Cache-Control: private` (merged into an existing value). */
export async function receiptHeaders(settlement: SettleResponse | Receipt.Receipt, cacheControl?: string | null): Promise<Record<string, string>> {
  return { [PAYMENT_RECEIPT_HEADER]: await receiptHeader(settlement), 'Cache-Control': withPrivate(cacheControl) };
}
