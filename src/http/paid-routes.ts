import type { Context, Hono } from 'hono';
import { encodePaymentResponseHeader } from '@x402/core/http';
import { decodePaymentHeader } from '../payments/payment-payload.ts';
import type { PaymentPayload, SettleResponse } from '@x402/core/types';
import type { Catalogue } from '../catalogue/index.ts';
import { ProductInputError, type AvailableProduct, type Product } from '../catalogue/types.ts';
import { endpointKey, type GateResult, type PaymentGate } from '../payments/gate.ts';
import type { Telemetry } from '../telemetry/counters.ts';
import type { Store } from '../store/types.ts';
import { originOf } from '../telemetry/geo.ts';
import type { ProofVerifier } from '../identity/proof-request.ts';
import { encodeQuote, type EncodedQuote, type X402Rail } from '../payments/x402-rail.ts';
import type { MppRail } from '../payments/mpp-rail.ts';
import { mppChallengeHeaders, mppPaidCall, paysWithMpp } from './mpp-door.ts';
import { paidResponse } from './paid-response.ts';
import { ProductTimeoutError } from '../products/runner.ts';
import { watchDelivery } from './delivery.ts';
import { SIGN_IN_WITH_X, type FreeTierDoor } from '../payments/free-tier.ts';
import { parseSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { describeError, type Logger } from '../log.ts';
import { parseJsonBody, queryInput, readBodyLimited, validate, type InputResult } from './input.ts';
import { problemResponse, problems } from './problem.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface PaidRouteDeps {
  catalogue: Catalogue;
  rail: X402Rail;
  gate: PaymentGate;
  freeTier: FreeTierDoor;
  proofs: ProofVerifier;
  /** Header carrying the client address, set by the operator's proxy; the socket address otherwise. */
  trustedProxyHeader?: string;
  store: Store;
  telemetry: Telemetry;
  log: Logger;
  maxBodyBytes: number;
  /** Origin used in the 402 `resource.url`; the request's own origin when undefined. */
  publicBaseUrl?: string;
  /** Per-client limits of free requests that create state (proof requests, free-tier calls). */
  limiter: RateLimiter;
  /** The MPP rail, when this instance offers it. */
  mpp?: MppRail;
  mppAccepts?(product: AvailableProduct): boolean;
}

/** Methods that always get the 402 quote on a paid path (crawlers read prices with any of them). */
const QUOTED_METHODS = new Set(['GET', 'HEAD', 'POST']);

/** Registers every HTTP product of the catalogue; unavailable ones answer 501 without charging. */
export function registerPaidRoutes(app: Hono, deps: PaidRouteDeps): void {
  for (const product of deps.catalogue.httpProducts()) {
    app.all(product.http!.path, (c) => handlePaidRequest(c, product, deps));
  }
}

async function handlePaidRequest(c: Context, product: Product, deps: PaidRouteDeps): Promise<Response> {
  const method = c.req.method;
  const declared = product.http!.method;
  if (!QUOTED_METHODS.has(method)) {
    return problemResponse(problems.methodNotAllowed(method, [declared]), { allow: allowHeader(declared) });
  }
  const paymentHeader = c.req.header('payment-signature') ?? c.req.header('x-payment');
  const methodMatches = method === declared || (method === 'HEAD' && declared === 'GET');
  const body = methodMatches && declared === 'POST' ? await readBodyLimited(c, deps.maxBodyBytes) : undefined;
  if (!product.requiresProof) return paidRequest(c, product, deps, { methodMatches, body, paymentHeader });
  // The proof comes before everything, payment included: without it, 401 and nothing charged. A paid
  // request holds the proof's nonce; it is spent only if this request is served, else given back.
  const proof = await proofGate(c, product, body, Boolean(paymentHeader), deps);
  if (proof instanceof Response) return proof;
  return deps.proofs.whileHeld(proof.held, () => paidRequest(c, product, deps, { methodMatches, body, paymentHeader }), (response) => response.status === 200);
}

async function paidRequest(
  c: Context,
  product: Product,
  deps: PaidRouteDeps,
  { methodMatches, body, paymentHeader }: { methodMatches: boolean; body: RawBody | undefined; paymentHeader: string | undefined },
): Promise<Response> {
  const method = c.req.method;
  const declared = product.http!.method;
  if (product.status !== 'available') return problemResponse(problems.notImplemented(product.id, product.reason));
  if (!deps.rail.ready) {
    return problemResponse(problems.facilitatorUnavailable('the payment facilitator cannot be reached, so no price can be quoted'), { 'retry-after': '5' });
  }
  if (!deps.store.healthy) {
    // A payment could not be guarded or recorded now: say so before anyone signs one.
    return problemResponse(problems.storeUnavailable(), { 'retry-after': '5' });
  }

  const requestUrl = new URL(c.req.url);
  const input = methodMatches ? readInput(requestUrl, product, body, deps.maxBodyBytes) : undefined;
  const resourceUrl = `${deps.publicBaseUrl ?? requestUrl.origin}${product.http!.path}`;

  const endpoint = endpointKey(product, 'http');
  // Only free-tier products need the origin as a URL (for wallet-proof challenges): not built per 402 otherwise.
  const origin = () => new URL(deps.publicBaseUrl ?? requestUrl.origin);
  const quote = (error?: string): EncodedQuote => {
    if (!product.freeTier) return deps.rail.encodedPaymentRequired(product, 'http', resourceUrl, error);
    // A free tier invites a wallet proof (Sign-In-With-X) beside the payment options; fresh nonce each time.
    const required = deps.rail.paymentRequired(product, 'http', resourceUrl, error);
    return encodeQuote({ ...required, extensions: { ...required.extensions, ...deps.freeTier.challenge(resourceUrl, origin(), resourceUrl) } });
  };
  const mppPayment = paysWithMpp(c, product, deps);
  if (mppPayment && paymentHeader) {
    return problemResponse(problems.badRequest('send one payment: PAYMENT-SIGNATURE (x402) or Authorization: Payment (MPP), not both'));
  }
  if (!paymentHeader && !mppPayment) {
    const proof = c.req.header(SIGN_IN_WITH_X);
    if (product.freeTier && proof && methodMatches && method !== 'HEAD') {
      return (await deps.limiter.take('free', deps.limiter.client(c))) ?? freeCall(product, input!, proof, resourceUrl, origin(), quote, deps);
    }
    deps.telemetry.challenge(endpoint, originOf(c, deps.trustedProxyHeader));
    // Always the quote; if the input would be rejected, say so now so nobody signs a doomed payment.
    const inputError = input && !input.ok ? `invalid_input: ${input.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}` : undefined;
    return paymentRequired(quote(inputError), undefined, await mppChallengeHeaders(product, deps));
  }
  if (!methodMatches || method === 'HEAD') {
    return problemResponse(problems.methodNotAllowed(method, [declared]), { allow: allowHeader(declared) });
  }
  if (mppPayment) {
    if (!input!.ok) return problemResponse(input!.status === 413 ? problems.tooLarge(deps.maxBodyBytes) : problems.invalidInput(input!.errors));
    return mppPaidCall(c, product, input!.value, deps, (result) => gateResponse(c, product, result, quote, deps));
  }

  const payload = decodePayment(paymentHeader!, endpoint, deps);
  if (!payload) return paymentRequired(quote(INVALID_PAYMENT_HEADER));
  if (!input!.ok) {
    const problem = input!.status === 413 ? problems.tooLarge(deps.maxBodyBytes) : problems.invalidInput(input!.errors);
    return problemResponse(problem);
  }

  const result = await deps.gate.execute({ product, surface: 'http', payload, resource: resourceUrl, input: input!.value, origin: originOf(c, deps.trustedProxyHeader) });
  return gateResponse(c, product, result, quote, deps);
}

export const INVALID_PAYMENT_HEADER = 'invalid_payment_header: PAYMENT-SIGNATURE is not base64 JSON of an x402 v2 PaymentPayload';

/** The PaymentPayload of a PAYMENT-SIGNATURE header; an undecodable or malformed one is counted as a processing error. */
export function decodePayment(header: string, endpoint: string, deps: Pick<PaidRouteDeps, 'telemetry'>): PaymentPayload | undefined {
  const payload = decodePaymentHeader(header);
  if (!payload) deps.telemetry.failure(endpoint, 'payment_processing_error', 'invalid_payment_header', undefined);
  return payload;
}

/**
 * The HTTP answer to what the gate did: 200 with PAYMENT-RESPONSE, 402 with the reason, or a problem.
 * A served response that does not reach the caller is reported, so the same payment can collect it.
 */
export function gateResponse(c: Context, product: Product, result: GateResult, quote: (error?: string) => EncodedQuote, deps: Pick<PaidRouteDeps, 'gate' | 'log'>): Response {
  const log = deps.log;
  switch (result.status) {
    case 'served':
      watchDelivery(c, () => void deps.gate.undelivered(result.paymentKey));
      return paidResponse(result.output, { 'cache-control': 'private, no-store', 'payment-response': encodePaymentResponseHeader(result.settlement) });
    case 'payment_failed':
      return paymentRequired(quote(result.failure.reason), result.settlement);
    case 'product_failed':
      return productFailure(product, result.error, log);
    case 'unavailable':
      return problemResponse(problems.serviceUnavailable(result.detail), { 'retry-after': '5' });
    case 'pending':
      return problemResponse(problems.settlementPending(), { 'retry-after': '30' });
    case 'conflict':
      return problemResponse(problems.idempotencyConflict(result.detail), result.inProgress ? { 'retry-after': '5' } : {});
  }
}

/** A free-tier call: the wallet proof in SIGN-IN-WITH-X instead of a payment. */
async function freeCall(
  product: AvailableProduct,
  input: InputResult,
  header: string,
  resourceUrl: string,
  origin: URL,
  quote: (error?: string) => EncodedQuote,
  deps: PaidRouteDeps,
): Promise<Response> {
  if (!input.ok) return problemResponse(input.status === 413 ? problems.tooLarge(deps.maxBodyBytes) : problems.invalidInput(input.errors));
  let proof: unknown;
  try {
    proof = parseSIWxHeader(header);
  } catch {
    return paymentRequired(quote('invalid_siwx_payload'));
  }
  const free = await deps.freeTier.serve(product, input.value, proof, resourceUrl, origin);
  if (free.status === 'denied') return paymentRequired(quote(free.reason));
  if (free.status === 'product_failed') return productFailure(product, free.error, deps.log);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'private, no-store', 'free-tier-wallet': free.wallet };
  if (free.remaining !== undefined) headers['free-tier-remaining'] = String(free.remaining);
  return new Response(JSON.stringify(free.output), { status: 200, headers });
}

type RawBody = Awaited<ReturnType<typeof readBodyLimited>>;

function readInput(url: URL, product: Product, body: RawBody | undefined, limit: number): InputResult {
  if (product.http!.method === 'GET') return validate(product.input, queryInput(url));
  if (!body?.ok) return { ok: false, status: 413, errors: [{ field: 'body', message: `larger than ${limit} bytes` }] };
  const json = parseJsonBody(body.text);
  return json.ok ? validate(product.input, json.value) : json;
}

/**
 * Route-scoped proof: an unproven request, paid or not, gets 401 with a PROOF-REQUEST as its JSON
 * body (a fresh nonce within the client's budget, rate-limited per client). A proven unpaid request
 * goes on to the 402 (its nonce stays open for the paid retry); a proven paid request holds the
 * nonce, which `proofs.whileHeld` then spends or gives back.
 */
async function proofGate(c: Context, product: Product, body: RawBody | undefined, paid: boolean, deps: PaidRouteDeps): Promise<Response | { held?: string }> {
  const route = `${product.http!.method} ${product.http!.path}`;
  const parsed = body?.ok ? parseJsonBody(body.text) : undefined;
  const json = parsed?.ok ? parsed.value : undefined;
  const check = json === undefined ? { ok: false as const, reason: 'proof_missing' } : await deps.proofs.check(route, json, { hold: paid });
  if (check.ok) return paid ? { held: check.nonce } : {};
  const client = deps.limiter.client(c);
  const limited = await deps.limiter.take('proof', client);
  if (limited) return limited;
  const proofRequest = await deps.proofs.proofRequest(route, json ?? {}, client);
  return new Response(JSON.stringify({ ...proofRequest, error: check.reason }), {
    status: 401,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': `Proof realm="${route}", error="${check.reason}"` },
  });
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

function productFailure(product: Product, error: unknown, log: Logger): Response {
  if (error instanceof ProductInputError) {
    return problemResponse({
      status: error.status,
      code: 'input-rejected',
      title: 'The product rejected the input',
      detail: `${error.message}. The payment was not settled, nothing was charged`,
      ...(error.field ? { errors: [{ field: error.field, message: error.message }] } : {}),
    });
  }
  if (error instanceof ProductTimeoutError) {
    log.warn({ product: product.id }, 'product over its time limit');
    return problemResponse(problems.serviceUnavailable(`${error.message}; nothing was charged`), { 'retry-after': '30' });
  }
  log.error({ product: product.id, err: describeError(error) }, 'product failed');
  return problemResponse(problems.productFailed(product.id));
}

function allowHeader(declared: 'GET' | 'POST'): string {
  return declared === 'GET' ? 'GET, HEAD' : 'POST, GET, HEAD';
}
