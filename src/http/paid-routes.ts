import type { Context, Hono } from 'hono';
import { parseSIWxHeader } from '@x402/extensions/sign-in-with-x';
import type { Catalogue } from '../catalogue/index.ts';
import type { Product } from '../catalogue/types.ts';
import type { Checkout } from '../checkout/checkout.ts';
import type { Caller, CheckoutRequest, PresentedPayment } from '../checkout/types.ts';
import { SIGN_IN_WITH_X } from '../payments/free-tier.ts';
import { decodePaymentHeader } from '../payments/payment-payload.ts';
import { originOf } from '../telemetry/geo.ts';
import { queryInput, readBodyLimited } from './input.ts';
import { mppCredentialOf } from './mpp-door.ts';
import { httpAnswer, type HttpAnswerDeps } from './paid-response.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface PaidRouteDeps extends HttpAnswerDeps {
  catalogue: Catalogue;
  checkout: Checkout;
  /** Header carrying the client address, set by the operator's proxy; the socket address otherwise. */
  trustedProxyHeader?: string;
  maxBodyBytes: number;
  /** Origin used in the 402 `resource.url`; the request's own origin when undefined. */
  publicBaseUrl?: string;
  /** Names clients for per-client limits. */
  limiter: Pick<RateLimiter, 'client'>;
}

/** Registers every HTTP product of the catalogue; unavailable ones answer 501 without charging. */
export function registerPaidRoutes(app: Hono, deps: PaidRouteDeps): void {
  for (const product of deps.catalogue.httpProducts()) {
    app.all(product.http!.path, (c) => handlePaidRequest(c, product, deps));
  }
}

/** A product's route: the request as the checkout reads it, the answer as HTTP (see checkout/checkout.ts). */
async function handlePaidRequest(c: Context, product: Product, deps: PaidRouteDeps): Promise<Response> {
  const url = new URL(c.req.url);
  const result = await deps.checkout.decide({
    door: { kind: 'route' },
    product,
    method: c.req.method,
    input: {
      kind: 'http',
      query: () => queryInput(url),
      body: async () => {
        const body = await readBodyLimited(c, product.maxInputBytes ?? deps.maxBodyBytes);
        return body.ok ? body.text : undefined;
      },
    },
    payment: { ...x402PaymentOf(c), mpp: mppCredentialOf(c) },
    freeClaim: freeClaimOf(c),
    publicOrigin: deps.publicBaseUrl ?? url.origin,
    caller: callerOf(c, deps),
  });
  return httpAnswer(c, result, deps);
}

export const INVALID_PAYMENT_HEADER = 'invalid_payment_header: PAYMENT-SIGNATURE is not base64 JSON of an x402 v2 PaymentPayload';

/** The x402 payment of a request (`PAYMENT-SIGNATURE`, or v1's `X-PAYMENT`): its PaymentPayload, or malformed. */
export function x402PaymentOf(c: Context): Pick<PresentedPayment, 'x402'> {
  const header = c.req.header('payment-signature') ?? c.req.header('x-payment');
  if (!header) return {};
  const payload = decodePaymentHeader(header);
  return { x402: payload ? { payload } : { malformed: INVALID_PAYMENT_HEADER } };
}

/** The wallet proof of a free-tier call, sent in the `SIGN-IN-WITH-X` header. */
function freeClaimOf(c: Context): CheckoutRequest['freeClaim'] {
  const header = c.req.header(SIGN_IN_WITH_X);
  if (!header) return undefined;
  try {
    return { proof: parseSIWxHeader(header) };
  } catch {
    return { malformed: true };
  }
}

export function callerOf(c: Context, deps: Pick<PaidRouteDeps, 'trustedProxyHeader' | 'limiter'>): Caller {
  return { origin: () => originOf(c, deps.trustedProxyHeader), key: () => deps.limiter.client(c) };
}
