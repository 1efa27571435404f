import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { problemResponse as httpProblem, problems } from './problem.ts';
import { priceFor } from '../catalogue/index.ts';
import type { AvailableProduct } from '../catalogue/types.ts';
import { usdToAtomic } from '../money.ts';
import { endpointKey, requestDigest, type GateResult, type PaymentGate } from '../payments/gate.ts';
import type { Receipt } from 'mppx';
import { hasPaymentCredential, problemResponse, type MppProblem, type MppRail, type MppRoute } from '../payments/mpp-rail.ts';
import type { Telemetry } from '../telemetry/counters.ts';
import { originOf } from '../telemetry/geo.ts';
import { paidResponse } from './paid-response.ts';
import { watchDelivery } from './delivery.ts';

/**
 * The MPP door of a paid HTTP route (`Authorization: Payment`): its challenge beside the x402 quote
 * on every 402, and the paid retry: credential checked by the MPP rail (HMAC-bound challenge for this
 * route and amount, single use), then the same gate as x402 (replay guard on the EIP-3009 tuple,
 * verify, run, settle through our facilitator), answered with `Payment-Receipt`.
 */
export interface MppDoorDeps {
  mpp?: MppRail;
  /** Whether a product takes MPP on HTTP on this instance (declared so, and priced above the network minimum). */
  mppAccepts?(product: AvailableProduct): boolean;
  gate: PaymentGate;
  telemetry: Telemetry;
  trustedProxyHeader?: string;
}

/** Whether this request pays with MPP: the product takes it, the rail is on and the header is a Payment credential. */
export function paysWithMpp(c: Context, product: AvailableProduct, deps: MppDoorDeps): boolean {
  return Boolean(deps.mpp && deps.mppAccepts?.(product) && hasPaymentCredential(c.req.header('authorization')));
}

/** `WWW-Authenticate: Payment …` for a 402 of this product, or nothing when it does not take MPP. */
export async function mppChallengeHeaders(product: AvailableProduct, deps: MppDoorDeps): Promise<Record<string, string>> {
  if (!deps.mpp || !deps.mppAccepts?.(product)) return {};
  return { 'www-authenticate': await deps.mpp.challengeHeader(mppRoute(product), mppAmount(product), product.title) };
}

/**
 * A paid retry carrying an MPP credential whose input already validated. Non-payment outcomes
 * (product failed, facilitator or database away, settlement pending) answer as on x402 via `otherwise`.
 */
export async function mppPaidCall(
  c: Context,
  product: AvailableProduct,
  input: unknown,
  deps: MppDoorDeps,
  otherwise: (result: GateResult) => Response,
): Promise<Response> {
  const mpp = deps.mpp!;
  const idempotencyKey = c.req.header('idempotency-key');
  if (idempotencyKey === undefined) return mppPaidCallOnce(c, product, input, deps, otherwise);
  if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
    return httpProblem(problems.invalidInput([{ field: 'Idempotency-Key', message: '8 to 255 visible ASCII characters' }]));
  }
  // The credential's challenge is single use, so a retry is recognised before verification, by the
  // credential itself: only its holder can present it.
  const credential = `mpp-credential:${createHash('sha256').update(c.req.header('authorization') ?? '').digest('hex')}`;
  const claim = await deps.gate.claimIdempotency(idempotencyKey, credential, requestDigest(endpointKey(product, 'http'), input));
  if (claim !== 'claimed') {
    return claim.status === 'served' ? paidResponse(claim.output, mpp.successHeaders(claim.settlement, 'no-store')) : otherwise(claim);
  }
  let result: GateResult | undefined;
  try {
    return await mppPaidCallOnce(c, product, input, deps, otherwise, (r) => (result = r));
  } finally {
    await deps.gate.finishIdempotency(idempotencyKey, result);
  }
}

/** `Idempotency-Key` (IETF httpapi draft): a client-chosen unique string. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,255}$/;

async function mppPaidCallOnce(
  c: Context,
  product: AvailableProduct,
  input: unknown,
  deps: MppDoorDeps,
  otherwise: (result: GateResult) => Response,
  onResult: (result: GateResult) => void = () => undefined,
): Promise<Response> {
  const mpp = deps.mpp!;
  const route = mppRoute(product);
  const amount = mppAmount(product);
  const endpoint = endpointKey(product, 'http');
  const verified = await mpp.verify(c.req.raw, route, amount, product.title);
  if (!verified.ok) {
    deps.telemetry.failure(endpoint, 'payment_verification_failed', problemKind(verified.problem), undefined);
    return problemResponse(verified.problem);
  }
  const origin = originOf(c, deps.trustedProxyHeader);
  // evm: an EIP-3009 authorization the gate settles through the x402 facilitator; tempo: mppx broadcasts
  // the client's signed transaction, through the same gate, after the product succeeded.
  let receipt: Receipt.Receipt | undefined;
  const result =
    verified.method === 'evm'
      ? await deps.gate.execute({ product, surface: 'http', payload: verified.payload, requirements: verified.requirements, input, origin })
      : await deps.gate.executeExternal({
          product,
          surface: 'http',
          input,
          origin,
          key: `mpp-tempo:${verified.challengeId}`,
          terms: verified.terms,
          settle: async () => {
            receipt = await verified.settle();
            return { reference: receipt.reference };
          },
        });
  onResult(result);
  switch (result.status) {
    case 'served':
      watchDelivery(c, () => void deps.gate.undelivered(result.paymentKey));
      return paidResponse(result.output, mpp.successHeaders(receipt ?? result.settlement, 'no-store'));
    case 'payment_failed':
      return problemResponse(await mpp.gateFailureProblem(result.failure, route, amount, product.title));
    default:
      return otherwise(result);
  }
}

function mppRoute(product: AvailableProduct): MppRoute {
  return { method: product.http!.method, path: product.http!.path, id: `${product.id}:http` };
}

/** MPP charges the route's price (products that meter with `upto` are charged their base price here). */
function mppAmount(product: AvailableProduct): bigint {
  return usdToAtomic(priceFor(product, 'http'));
}

/** `https://paymentauth.org/problems/invalid-challenge` → `mpp_invalid-challenge`, a telemetry detail. */
function problemKind(p: MppProblem): string {
  return `mpp_${p.type.slice(p.type.lastIndexOf('/') + 1)}`;
}

