import { createHash } from 'node:crypto';
import { FacilitatorTimeoutError } from '@x402/core/server';
import { extractPaymentIdentifier, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { canonicalJson } from '../canonical-json.ts';
import { SettleError, VerifyError } from '@x402/core/types';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { ProductRunner } from '../products/runner.ts';
import { priceFor } from '../catalogue/index.ts';
import type { AvailableProduct, ProductContext, Surface } from '../catalogue/types.ts';
import { usdToAtomic } from '../money.ts';
import { describeError, type Logger } from '../log.ts';
import { SettlementRecordedError, StoreUnavailableError } from '../store/sql-store.ts';
import type { LedgerEntry, PaymentReservation, Store } from '../store/types.ts';
import type { Origin, Telemetry } from '../telemetry/counters.ts';
import { publicReason, type FailureCategory, type PaymentFailure } from './failures.ts';
import { paymentKey } from './payment-key.ts';
import type { Reconciler } from './reconciler.ts';
import type { X402Rail } from './x402-rail.ts';

export interface PaidCall {
  product: AvailableProduct;
  surface: Surface;
  payload: PaymentPayload;
  /** Already validated against the product's input schema. */
  input: unknown;
  /**
   * The resource this door quoted (the 402's `resource.url`): the HTTP route's URL, the order door's
   * URL naming the product, or `mcp://tool/<name>`. An x402 payload must name it (see resourceMatches).
   */
  resource?: string;
  /** Where the call came from, for telemetry. */
  origin?: Origin;
  /** Telemetry key when the call came through another door than the product's own (e.g. an order). */
  endpoint?: string;
  /**
   * The requirements the payment answers when another rail already matched them (MPP: the challenge
   * it signed, as x402 `exact` terms). x402 payloads are matched against the quote here.
   */
  requirements?: PaymentRequirements;
}

/**
 * A payment whose rail settles it itself rather than through the x402 facilitator (MPP `tempo`:
 * mppx broadcasts the client's signed transaction). Same reservation, run-then-settle order and ledger.
 */
export interface ExternalPaidCall {
  product: AvailableProduct;
  surface: Surface;
  input: unknown;
  origin?: Origin;
  /** Replay key of the payment on its rail, e.g. `mpp-tempo:<challenge id>`. */
  key: string;
  /** Ledger terms: CAIP-2 network, scheme label, token, recipient, atomic amount, payer if known. */
  terms: { network: string; scheme: string; asset: string; payTo: string; amount: string; payer?: string };
  /** Broadcasts the payment; called only after the product succeeded. Returns the transaction reference. */
  settle(): Promise<{ reference: string }>;
}

export type GateResult =
  /** `paymentKey`: the door reports through `undelivered(paymentKey)` a response that did not reach the caller. */
  | { status: 'served'; output: unknown; settlement: SettleResponse; paymentKey: string; /** a stored result handed out again: not a new sale */ replay?: true }
  /** The idempotency key was used with another payment or request (or its call is still running): 409, nothing charged. */
  | { status: 'conflict'; detail: string; inProgress: boolean }
  | { status: 'payment_failed'; failure: PaymentFailure; settlement?: SettleResponse }
  | { status: 'product_failed'; error: unknown }
  /** Facilitator or database unreachable: nothing was charged; retry later. */
  | { status: 'unavailable'; detail: string }
  /** Settlement was requested but its outcome is unknown: no body, the payment stays blocked until reconciled. */
  | { status: 'pending'; detail: string };

export interface GateDeps {
  runner: ProductRunner;
  rail: X402Rail;
  store: Store;
  log: Logger;
  telemetry: Telemetry;
  reconciler: Reconciler;
  /** Owner recorded on reservations (this process). */
  instanceId: string;
  /** How long a settled result that did not reach its caller stays redeemable with the same payment. */
  redeemWindowMs: number;
  clock?: () => Date;
}

/** Results larger than this are not kept for redemption; a redeemed call then runs the product again. */
const MAX_STORED_RESPONSE_BYTES = 1024 * 1024;

/** Facilitator reasons that mean "broadcast, not yet confirmed" rather than a definite failure. */
const PENDING_REASONS = new Set(['settlement_pending', 'transaction_pending', 'settlement_timeout']);

/** Telemetry key of a door: `GET /api/v1/paid/time` for HTTP, `tool server_time` for MCP. */
export function endpointKey(product: AvailableProduct, surface: Surface): string {
  return surface === 'http' ? `${product.http!.method} ${product.http!.path}` : `tool ${product.mcp!.tool}`;
}

/**
 * The payment gate, shared by every door (HTTP routes, MCP tools): reserve the authorization
 * (replay guard) → verify → run the product → settle → ledger. A product that fails is never
 * settled; a result is only handed back after settlement succeeded.
 */
export class PaymentGate {
  constructor(private readonly deps: GateDeps) {}

  execute(call: PaidCall): Promise<GateResult> {
    return this.counted(call.endpoint ?? endpointKey(call.product, call.surface), call.origin, call.payload.accepted.amount, () => this.executeUncounted(call));
  }

  /** The gate for a rail that settles itself (see ExternalPaidCall), counted like any paid call. */
  executeExternal(call: ExternalPaidCall): Promise<GateResult> {
    return this.counted(endpointKey(call.product, call.surface), call.origin, call.terms.amount, () => this.executeExternalUncounted(call));
  }

  /**
   * Idempotent retries (x402 `payment-identifier` here; MPP's `Idempotency-Key` in its door, through
   * claimIdempotency and finishIdempotency): the first call with a key
   * claims it; once served, the same key with the same payment and the same request gets the stored
   * response and original settlement again, free, until the key expires (the redeem window). The same
   * key with another payment or request is a conflict. Only the holder of the signed payment can
   * present it, so nobody else can read a stored response. A call not served frees its key.
   */
  private async idempotent(id: string, paymentKey: string, digest: string, run: () => Promise<GateResult>): Promise<GateResult> {
    const claim = await this.claimIdempotency(id, paymentKey, digest);
    if (claim !== 'claimed') return claim;
    let result: GateResult | undefined;
    try {
      result = await run();
      return result;
    } finally {
      await this.finishIdempotency(id, result);
    }
  }

  /**
   * Claims an idempotency key for a payment and request. Already claimed: the stored result (served
   * again, free) when payment and request match and the call was served, else a conflict.
   */
  async claimIdempotency(id: string, paymentKey: string, digest: string): Promise<'claimed' | GateResult> {
    const claim = await this.deps.store.claimIdempotency({ id, paymentKey, requestDigest: digest, expiresAt: new Date(this.now().getTime() + this.deps.redeemWindowMs) });
    if (claim.claimed) return 'claimed';
    const record = claim.record;
    if (record.paymentKey !== paymentKey || record.requestDigest !== digest) {
      return { status: 'conflict', detail: 'this idempotency key was used with another payment or another request', inProgress: false };
    }
    if (record.response === undefined || record.settlement === undefined) {
      return { status: 'conflict', detail: 'the call with this idempotency key is still in progress', inProgress: true };
    }
    return { status: 'served', output: JSON.parse(record.response), settlement: JSON.parse(record.settlement) as SettleResponse, paymentKey, replay: true };
  }

  /** Stores a served result under its key; any other outcome (nothing charged) frees the key. */
  async finishIdempotency(id: string, result: GateResult | undefined): Promise<void> {
    const { store } = this.deps;
    if (result?.status === 'served') {
      await store.completeIdempotency(id, JSON.stringify(result.output ?? null), JSON.stringify(result.settlement)).catch((error: unknown) =>
        this.deps.log.error({ err: describeError(error) }, 'idempotent response could not be stored; a retry with this key will get a conflict'),
      );
    } else {
      await store.releaseIdempotency(id).catch(() => undefined);
    }
  }

  /** Runs one paid call and counts its outcome; an unreachable database is `unavailable`, nothing charged. */
  private async counted(endpoint: string, origin: Origin | undefined, signedAmount: string, run: () => Promise<GateResult>): Promise<GateResult> {
    const result = await run().catch((error: unknown): GateResult => {
      if (error instanceof StoreUnavailableError) {
        this.deps.log.warn({ err: describeError(error) }, 'payment database unavailable');
        return { status: 'unavailable', detail: 'the payment database is unavailable' };
      }
      throw error;
    });
    if (result.status === 'served' && !result.replay) {
      // `exact` settlements do not echo the amount: it is the one signed.
      this.deps.telemetry.paid(endpoint, result.settlement.amount ?? signedAmount, result.settlement.payer ?? 'unknown', origin);
    } else if (result.status === 'payment_failed') {
      const { category, reason, network } = result.failure;
      this.deps.telemetry.failure(endpoint, category, reason, network);
    }
    return result;
  }

  private async executeExternalUncounted(call: ExternalPaidCall): Promise<GateResult> {
    const { store } = this.deps;
    const { terms } = call;
    const reserved = await store.reservePayment({ key: call.key, product: call.product.id, surface: call.surface, ...terms, owner: this.deps.instanceId });
    if (!reserved.reserved) return failed('payment_verification_failed', 'payment_already_used', terms.network);
    let finished = false;
    try {
      let output: unknown;
      try {
        output = await this.run(call, terms.payer);
      } catch (error) {
        return { status: 'product_failed', error };
      }
      await store.markSettling(call.key);
      let reference: string;
      try {
        reference = (await call.settle()).reference;
      } catch (error) {
        // A broadcast that failed may still have landed: park it for the operator, never release it.
        finished = true;
        this.deps.log.error({ product: call.product.id, err: describeError(error) }, 'external settlement outcome unknown; payment parked as pending');
        await store.markPending(call.key, { reason: 'external settlement outcome unknown' });
        return { status: 'pending', detail: 'settlement_outcome_unknown' };
      }
      finished = true;
      const payer = terms.payer ?? 'unknown';
      await this.recordLedger({ paymentKey: call.key, payer, network: terms.network, scheme: terms.scheme, amount: terms.amount, asset: terms.asset, payTo: terms.payTo, txHash: reference, product: call.product.id, surface: call.surface, settledAt: this.now() }, output);
      const settlement: SettleResponse = { success: true, transaction: reference, network: terms.network as SettleResponse['network'], payer, amount: terms.amount };
      return { status: 'served', output, settlement, paymentKey: call.key };
    } finally {
      if (!finished) await store.releasePayment(call.key).catch(() => undefined);
    }
  }

  private async executeUncounted(call: PaidCall): Promise<GateResult> {
    const { product, surface, payload } = call;
    if (!call.requirements && call.resource !== undefined && !resourceMatches(call.resource, payload.resource)) {
      return failed('payment_requirement_not_accepted', payload.resource ? 'payment_resource_mismatch' : 'payment_resource_missing', payload.accepted?.network);
    }
    const identifier = paymentIdentifierOf(payload);
    if (!identifier.valid) return failed('payment_processing_error', 'invalid_payment_identifier', payload.accepted.network);
    if (identifier.id === undefined) return this.settleCall(call);
    const digest = requestDigest(call.resource ?? endpointKey(product, surface), call.input);
    return this.idempotent(identifier.id, paymentKey(payload), digest, () => this.settleCall(call));
  }

  /** Match, reserve, verify, run, settle, record: one paid call whose payment names this resource. */
  private async settleCall(call: PaidCall): Promise<GateResult> {
    const { rail, store } = this.deps;
    const { product, surface, payload } = call;
    const requirements = call.requirements ?? rail.match(product, surface, payload);
    if (!requirements) return failed('payment_requirement_not_accepted', 'no_matching_payment_requirements', payload.accepted?.network);

    const reservation = this.reservationFor(call, requirements);
    const reserved = await store.reservePayment(reservation);
    if (!reserved.reserved) return this.alreadyReserved(call, reservation.key, reserved.state, reserved.delivered);

    // From here on the reservation must end released, pending or settled.
    const key = reservation.key;
    let finished = false;
    try {
      const verified = await this.verify(payload, requirements);
      if (verified.status !== 'valid') return verified.result;

      const metering = this.metering(call, requirements);
      let output: unknown;
      try {
        output = await this.run(call, verified.payer ?? reservation.payer, metering?.context);
      } catch (error) {
        return { status: 'product_failed', error };
      }

      // `upto` settles the actual charge, never more than authorized; `exact` the quoted amount. The charge
      // is recorded first, so a reconciler that finds the authorization used on chain knows what moved.
      const charged = metering ? { ...requirements, amount: metering.charge().toString() } : requirements;
      await store.markSettling(key, metering ? charged.amount : undefined);
      const settled = await this.settle(payload, charged);
      if (settled.status === 'pending') {
        finished = true;
        await store.markPending(key, { txHash: settled.txHash, reason: settled.detail });
        this.deps.log.error({ product: product.id, surface, txHash: settled.txHash, reason: settled.detail }, 'settlement outcome unknown; payment parked as pending');
        return { status: 'pending', detail: settled.detail };
      }
      if (settled.status !== 'settled') return settled.result;

      finished = true;
      const settlement = settled.settlement;
      await this.recordLedger({
        paymentKey: key,
        payer: settlement.payer ?? verified.payer ?? reservation.payer ?? 'unknown',
        network: settlement.network ?? requirements.network,
        scheme: requirements.scheme,
        amount: settlement.amount ?? charged.amount,
        asset: requirements.asset,
        payTo: requirements.payTo,
        txHash: settlement.transaction,
        product: product.id,
        surface,
        settledAt: this.now(),
      }, output);
      return { status: 'served', output, settlement, paymentKey: key };
    } finally {
      // Anything that did not settle or park as pending charged nothing: the authorization is free again.
      if (!finished) await store.releasePayment(key).catch(() => undefined);
    }
  }

  /**
   * The same authorization again. A settled payment whose response was never delivered (the
   * reconciler found it on chain after a crash) is owed exactly one response: the first caller to
   * claim it gets it. A pending one is checked on chain right now.
   */
  private async alreadyReserved(call: PaidCall, key: string, state: string, delivered: boolean): Promise<GateResult> {
    const network = call.payload.accepted.network;
    if (state === 'pending') {
      const resolution = await this.deps.reconciler.resolveKey(key);
      if (resolution !== 'settled') {
        return resolution === 'failed'
          ? failed('payment_verification_failed', 'payment_authorization_expired', network)
          : { status: 'pending', detail: 'settlement of this payment is still being confirmed' };
      }
      return this.redeem(call, key);
    }
    if (state === 'settled' && !delivered) return this.redeem(call, key);
    if (state === 'settled' || state === 'failed') return failed('payment_verification_failed', 'payment_already_used', network);
    return failed('payment_verification_failed', 'payment_already_in_progress', network);
  }

  /**
   * Hands a settled, undelivered payment its one response: the stored result when there is one (the
   * very result that was paid for), else the product is run again (a result settled by the
   * reconciler after a crash, or one too large to keep).
   */
  private async redeem(call: PaidCall, key: string): Promise<GateResult> {
    const { store } = this.deps;
    const entry = await store.settlement(key);
    if (!entry || entry.product !== call.product.id || !(await store.claimDelivery(key))) {
      return failed('payment_verification_failed', 'payment_already_used', call.payload.accepted.network);
    }
    try {
      const stored = await store.storedResponse(key);
      const output = stored !== undefined ? JSON.parse(stored) : await this.run(call, entry.payer);
      const settlement: SettleResponse = { success: true, transaction: entry.txHash, network: entry.network as SettleResponse['network'], payer: entry.payer, amount: entry.amount };
      return { status: 'served', output, settlement, paymentKey: key, replay: true };
    } catch (error) {
      await store.unclaimDelivery(key);
      return { status: 'product_failed', error };
    }
  }

  /**
   * A served response did not reach its caller (the connection closed before it was written): the
   * payment is owed that response again, once, for the redeem window.
   */
  async undelivered(paymentKey: string): Promise<void> {
    try {
      await this.deps.store.unclaimDelivery(paymentKey);
      this.deps.log.warn({ paymentKey }, 'paid response not delivered (connection closed); redeemable with the same payment');
    } catch (error) {
      this.deps.log.error({ paymentKey, err: describeError(error) }, 'could not mark an undelivered response redeemable');
    }
  }

  private run(call: Pick<PaidCall, 'product' | 'input'>, caller: string | undefined, metered?: ProductContext['metered']): Promise<unknown> {
    return this.deps.runner.run(call.product, call.input, 'paid', { now: this.now(), metered, caller: caller?.toLowerCase() });
  }

  /**
   * For `upto` payments: the product's price is the default charge, the product may report another
   * (usage), and the result is clamped to the authorization. Undefined for fixed-amount schemes.
   */
  private metering(call: PaidCall, requirements: PaymentRequirements): { context: NonNullable<ProductContext['metered']>; charge(): bigint } | undefined {
    if (requirements.scheme !== 'upto') return undefined;
    const maximum = BigInt(requirements.amount);
    const base = usdToAtomic(priceFor(call.product, call.surface));
    let reported: bigint | undefined;
    return {
      context: { base, maximum, charge: (atomic) => void (reported = atomic) },
      charge: () => {
        const amount = reported ?? base;
        return amount < 0n ? 0n : amount > maximum ? maximum : amount;
      },
    };
  }

  private reservationFor(call: PaidCall, requirements: PaymentRequirements): PaymentReservation {
    const signed = call.payload.payload as { authorization?: { from?: unknown; validBefore?: unknown }; permit2Authorization?: { from?: unknown; deadline?: unknown } };
    const authorization = signed.authorization ?? (signed.permit2Authorization && { from: signed.permit2Authorization.from, validBefore: signed.permit2Authorization.deadline });
    const validBefore = Number(authorization?.validBefore);
    return {
      key: paymentKey(call.payload),
      product: call.product.id,
      surface: call.surface,
      network: requirements.network,
      scheme: requirements.scheme,
      asset: requirements.asset,
      payTo: requirements.payTo,
      amount: requirements.amount,
      payer: typeof authorization?.from === 'string' ? authorization.from : undefined,
      validBefore: Number.isSafeInteger(validBefore) ? validBefore : undefined,
      owner: this.deps.instanceId,
    };
  }

  private async verify(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<{ status: 'valid'; payer?: string } | { status: 'invalid'; result: GateResult }> {
    try {
      const result = await this.deps.rail.server.verifyPayment(payload, requirements);
      if (result.isValid) return { status: 'valid', payer: result.payer };
      return { status: 'invalid', result: failed('payment_verification_failed', result.invalidReason ?? 'invalid_payment', requirements.network) };
    } catch (error) {
      if (error instanceof VerifyError) {
        return { status: 'invalid', result: failed('payment_verification_failed', error.invalidReason ?? 'invalid_payment', requirements.network) };
      }
      this.deps.log.warn({ err: describeError(error) }, 'facilitator verify failed');
      return { status: 'invalid', result: { status: 'unavailable', detail: 'the payment facilitator could not be reached to verify the payment' } };
    }
  }

  private async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<
    | { status: 'settled'; settlement: SettleResponse }
    | { status: 'failed'; result: GateResult }
    | { status: 'pending'; detail: string; txHash?: string }
  > {
    let settlement: SettleResponse;
    try {
      settlement = await this.deps.rail.server.settlePayment(payload, requirements);
    } catch (error) {
      if (error instanceof SettleError) {
        const reason = error.errorReason ?? 'settlement_failed';
        if (PENDING_REASONS.has(reason)) return { status: 'pending', detail: reason, txHash: (error as { transaction?: string }).transaction };
        return { status: 'failed', result: failed('settlement_failed', reason, requirements.network) };
      }
      if (!(error instanceof FacilitatorTimeoutError) && isConnectionRefused(error)) {
        // The request never reached the facilitator, so nothing can have been broadcast.
        return { status: 'failed', result: { status: 'unavailable', detail: 'the payment facilitator could not be reached to settle the payment' } };
      }
      this.deps.log.warn({ err: describeError(error) }, 'facilitator settle failed with unknown outcome');
      return { status: 'pending', detail: 'settlement_outcome_unknown' };
    }
    if (settlement.success) return { status: 'settled', settlement };
    const reason = settlement.errorReason ?? 'settlement_failed';
    if (PENDING_REASONS.has(reason)) return { status: 'pending', detail: reason, txHash: settlement.transaction || undefined };
    const result = failed('settlement_failed', reason, requirements.network);
    return { status: 'failed', result: result.status === 'payment_failed' ? { ...result, settlement } : result };
  }

  /**
   * A settled payment must reach the ledger: retry briefly; if the database stays away, the row stays
   * `settling` and the reconciler writes it from the chain later. The caller gets the response either way.
   */
  private async recordLedger(entry: LedgerEntry, output: unknown): Promise<void> {
    const json = JSON.stringify(output);
    const response = json !== undefined && Buffer.byteLength(json) <= MAX_STORED_RESPONSE_BYTES ? json : undefined;
    const redeemableUntil = new Date(this.now().getTime() + this.deps.redeemWindowMs);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.store.recordSettlement(entry, { delivered: true, response, redeemableUntil });
        return;
      } catch (error) {
        // An earlier attempt committed although its answer was lost: recorded, exactly once.
        if (error instanceof SettlementRecordedError) return;
        if (attempt >= 3) {
          this.deps.log.error({ entry, err: describeError(error) }, 'settled payment could not be written to the ledger; the reconciler will');
          return;
        }
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }
}

function failed(category: FailureCategory, reason: string, network?: string): GateResult {
  return { status: 'payment_failed', failure: { category, reason: publicReason(reason, category), network } };
}

/** The `payment-identifier` extension's id, when the payload carries one; `valid: false` for a malformed one. */
function paymentIdentifierOf(payload: PaymentPayload): { id?: string; valid: boolean } {
  // Clients echo the 402's declaration (no id) when they do not use the extension.
  const declared = payload.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined;
  if (declared?.info?.id === undefined) return { valid: true };
  const id = extractPaymentIdentifier(payload, true);
  return id === null ? { valid: false } : { id, valid: true };
}

/** What an idempotency key binds besides the payment: the resource (or door) and the exact input. */
export function requestDigest(resource: string, input: unknown): string {
  return createHash('sha256').update(`${resource}\n${canonicalJson(input ?? null)}`).digest('hex');
}

/**
 * Whether a payload names the resource it is presented at. x402 clients copy the 402's `resource`
 * into the payload; a payment quoted for one route, order or tool is refused at another, even at the
 * same price. Compared: the path and query (and the scheme for `mcp://`), not the host, which may
 * differ behind proxies. The signature does not cover this field (EIP-3009 and Permit2 sign only the
 * transfer), so it keeps honest payments where they were meant to go; the replay guard is what
 * makes one payment buy one response.
 */
export function resourceMatches(expected: string, given: PaymentPayload['resource']): boolean {
  if (!given || typeof given.url !== 'string') return false;
  let a: URL;
  let b: URL;
  try {
    a = new URL(expected);
    b = new URL(given.url);
  } catch {
    return false;
  }
  if (a.protocol === 'mcp:' || b.protocol === 'mcp:') return a.href === b.href;
  return a.pathname === b.pathname && a.search === b.search;
}

function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED';
}
