import { createHash } from 'node:crypto';
import type { Receipt } from 'mppx';
import { priceFor } from '../catalogue/index.ts';
import type { AvailableProduct } from '../catalogue/types.ts';
import type { Logger } from '../log.ts';
import { usdToAtomic } from '../money.ts';
import { endpointKey, requestDigest, type GateResult, type PaymentGate } from '../payments/gate.ts';
import type { MppProblem, MppRail, MppRoute } from '../payments/mpp/index.ts';
import type { Origin, Telemetry } from '../telemetry/counters.ts';
import { gateProblem, problemResult } from './outcome.ts';
import { problems } from './problems.ts';
import type { CheckoutResult, MppCredential } from './types.ts';

/** The door an MPP challenge of a product names: its HTTP route (MPP is sold on routes only). */
export function mppRoute(product: AvailableProduct): MppRoute {
  return { method: product.http!.method, path: product.http!.path, id: `${product.id}:http` };
}

/** MPP charges the route's price (products that meter with `upto` are charged their base price here). */
export function mppAmount(product: AvailableProduct): bigint {
  return usdToAtomic(priceFor(product, 'http'));
}

export interface MppCallDeps {
  mpp: Pick<MppRail, 'verify' | 'gateFailureProblem'>;
  gate: Pick<PaymentGate, 'execute' | 'executeExternal' | 'claimIdempotency' | 'finishIdempotency'>;
  telemetry: Pick<Telemetry, 'failure'>;
  log: Logger;
}

/**
 * A paid call carrying an MPP credential, input already valid: the credential checked by the MPP rail
 * (HMAC-bound challenge for this route and amount, single use), then the same gate as x402 (replay
 * guard on the EIP-3009 tuple, verify, run, settle through our facilitator). An `Idempotency-Key`
 * makes a retry with the same credential and request return the stored answer.
 */
export async function mppPaidCall(deps: MppCallDeps, product: AvailableProduct, input: unknown, credential: MppCredential, origin: Origin | undefined): Promise<CheckoutResult> {
  const { idempotencyKey } = credential;
  if (idempotencyKey === undefined) return mppPaidCallOnce(deps, product, input, credential, origin);
  if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
    return problemResult(problems.invalidInput([{ field: 'Idempotency-Key', message: '8 to 255 visible ASCII characters' }]));
  }
  // The credential's challenge is single use, so a retry is recognised before verification, by the
  // credential itself: only its holder can present it.
  const key = `mpp-credential:${createHash('sha256').update(credential.authorization).digest('hex')}`;
  const claim = await deps.gate.claimIdempotency(idempotencyKey, key, requestDigest(endpointKey(product, 'http'), input));
  if (claim !== 'claimed') {
    // A stored answer handed out again: no payment of its own to redeem if it does not arrive.
    if (claim.status === 'served') return { kind: 'served', rail: 'mpp', output: claim.output, settlement: claim.settlement, replay: true };
    return claim.status === 'payment_failed' ? mppRefused(deps, product, claim) : gateProblem(claim, product, product.id, deps.log);
  }
  let result: GateResult | undefined;
  try {
    return await mppPaidCallOnce(deps, product, input, credential, origin, (r) => (result = r));
  } finally {
    await deps.gate.finishIdempotency(idempotencyKey, result);
  }
}

/** `Idempotency-Key` (IETF httpapi draft): a client-chosen unique string. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,255}$/;

async function mppPaidCallOnce(
  deps: MppCallDeps,
  product: AvailableProduct,
  input: unknown,
  credential: MppCredential,
  origin: Origin | undefined,
  onResult: (result: GateResult) => void = () => undefined,
): Promise<CheckoutResult> {
  const verified = await deps.mpp.verify({ authorization: credential.authorization }, mppRoute(product), mppAmount(product), product.title);
  if (!verified.ok) {
    deps.telemetry.failure(endpointKey(product, 'http'), 'payment_verification_failed', problemKind(verified.problem), undefined);
    return { kind: 'mpp_problem', problem: verified.problem };
  }
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
      return { kind: 'served', rail: 'mpp', output: result.output, settlement: result.settlement, paymentKey: result.paymentKey, ...(receipt ? { receipt } : {}), ...(result.replay ? { replay: true as const } : {}) };
    case 'payment_failed':
      return mppRefused(deps, product, result);
    default:
      return gateProblem(result, product, product.id, deps.log);
  }
}

/** A payment the gate refused after the rail accepted the credential: a paymentauth.org problem with a fresh challenge. */
async function mppRefused(deps: MppCallDeps, product: AvailableProduct, result: Extract<GateResult, { status: 'payment_failed' }>): Promise<CheckoutResult> {
  return { kind: 'mpp_problem', problem: await deps.mpp.gateFailureProblem(result.failure, mppRoute(product), mppAmount(product), product.title) };
}

/** `https://paymentauth.org/problems/invalid-challenge` → `mpp_invalid-challenge`, a telemetry detail. */
function problemKind(p: MppProblem): string {
  return `mpp_${p.type.slice(p.type.lastIndexOf('/') + 1)}`;
}
