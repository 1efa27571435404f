import { createHash } from 'node:crypto';
import { extractPaymentIdentifier, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { canonicalJson } from '../canonical-json.ts';
import { withDeadline } from '../deadline.ts';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { ProductRunner } from '../products/runner.ts';
import { priceFor } from '../catalogue/index.ts';
import type { AvailableProduct, ProductContext, Surface } from '../catalogue/types.ts';
import { usdToAtomic } from '../money.ts';
import { describeError, type Logger } from '../log.ts';
import { SettlementRecordedError, StoreUnavailableError } from '../store/sql-store.ts';
import type { LedgerEntry, PaymentReservation, ReserveResult, Store } from '../store/types.ts';
import type { Origin } from '../telemetry/counters.ts';
import type { PaymentFailure } from './failures.ts';
import { ledgerEntry } from './ledger-entry.ts';
import { correctiveAccepts } from './batch/scheme.ts';
import { BATCH_SCHEME, batchVoucherOf, payloadKindOf } from './payloads/index.ts';
import type { Reconciler } from './reconciler.ts';
import { broadcastSettler, channelSettler, facilitatorSettler, failed, type Settler } from './settlers.ts';
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
  /** Told of every paid call's outcome (telemetry counts them). */
  hooks?: GateHook[];
  reconciler: Reconciler;
  /** Owner recorded on reservations (this process). */
  instanceId: string;
  /** How long a settled result that did not reach its caller stays redeemable with the same payment. */
  redeemWindowMs: number;
  /**
   * Longest wait for the facilitator to verify; settling may take twice that (broadcast, then its
   * receipt). Past it a verify answers 503 and a settle parks as pending: every paid call ends.
   */
  facilitatorTimeoutMs?: number;
  clock?: () => Date;
}

/** What a hook learns of one paid call: where it came in, the amount signed, and how it ended. */
export interface GateCallInfo {
  endpoint: string;
  origin?: Origin;
  signedAmount: string;
  /** The product's id and the validated input it was called with (per-tool observatory blocks read them). */
  product: string;
  input: unknown;
}

export type GateHook = (call: GateCallInfo, result: GateResult) => void;

/**
 * A response handed to a caller and not confirmed written within this long belongs to a process that
 * died: the payment may collect it again. Until then a second presentation is told to retry later.
 */
const DELIVERY_CONFIRM_MS = 120_000;
/** How long a presentation waits for this process's own door to confirm a response it just handed over. */
const HAND_OVER_WAIT_MS = 5_000;

/** Results larger than this are not kept for redemption; a redeemed call then runs the product again. */
const MAX_STORED_RESPONSE_BYTES = 1024 * 1024;

/** Telemetry key of a door: `GET /api/v1/paid/time` for HTTP, `tool server_time` for MCP. */
export function endpointKey(product: AvailableProduct, surface: Surface): string {
  return surface === 'http' ? `${product.http!.method} ${product.http!.path}` : `tool ${product.mcp!.tool}`;
}

/** One reserved payment on its way through the settle skeleton. */
interface PaidAttempt {
  product: AvailableProduct;
  surface: Surface;
  input: unknown;
  reservation: PaymentReservation;
  settler: Settler;
  /** `upto` (and channel vouchers on metered products): the product may report its charge, clamped to the authorization. */
  metering?: Metering;
  /** The payment is already reserved (or done): what this presentation gets instead. */
  alreadyReserved(reserved: Held): Promise<GateResult>;
}

/** What the store holds of a payment presented again. */
type Held = Extract<ReserveResult, { reserved: false }>;

interface Metering {
  context: NonNullable<ProductContext['metered']>;
  charge(): bigint;
}

/**
 * The payment gate, shared by every door (HTTP routes, MCP tools, orders, MPP): reserve the payment
 * (replay guard) → verify → run the product → settle → ledger, the same skeleton for every rail (see
 * settlers.ts). A product that fails is never settled; a result is only handed back after settlement.
 */
export class PaymentGate {
  /** Responses this process handed to a door and is waiting to hear were written (see delivered). */
  private readonly handedOver = new Map<string, { written: Promise<void>; end(): void }>();
  /** Settled payments whose ledger row could not be written yet (see flushLedger). */
  private readonly unrecorded = new Map<string, { entry: LedgerEntry; response?: string; redeemableUntil: Date; delivered: boolean }>();
  /** When this gate (this process) started: hand-overs older than this were made by a process before it. */
  private readonly startedAt = Date.now();

  constructor(private readonly deps: GateDeps) {}

  execute(call: PaidCall): Promise<GateResult> {
    return this.observed({ endpoint: call.endpoint ?? endpointKey(call.product, call.surface), origin: call.origin, signedAmount: call.payload.accepted.amount, product: call.product.id, input: call.input }, () => this.executeX402(call));
  }

  /** The gate for a rail that settles itself (see ExternalPaidCall). */
  executeExternal(call: ExternalPaidCall): Promise<GateResult> {
    const { terms } = call;
    return this.observed({ endpoint: endpointKey(call.product, call.surface), origin: call.origin, signedAmount: terms.amount, product: call.product.id, input: call.input }, () =>
      this.attempt({
        product: call.product,
        surface: call.surface,
        input: call.input,
        reservation: { key: call.key, product: call.product.id, surface: call.surface, ...terms, owner: this.deps.instanceId },
        settler: broadcastSettler(call.settle, terms, this.deps.log),
        alreadyReserved: async () => failed('payment_verification_failed', 'payment_already_used', terms.network),
      }),
    );
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

  /** Runs one paid call and tells the hooks its outcome; an unreachable database is `unavailable`, nothing charged. */
  private async observed(info: GateCallInfo, run: () => Promise<GateResult>): Promise<GateResult> {
    const result = await run().catch((error: unknown): GateResult => {
      if (error instanceof StoreUnavailableError) {
        this.deps.log.warn({ err: describeError(error) }, 'payment database unavailable');
        return { status: 'unavailable', detail: 'the payment database is unavailable' };
      }
      throw error;
    });
    for (const hook of this.deps.hooks ?? []) hook(info, result);
    return result;
  }

  /** An x402 payload: it must name this resource; a payment identifier makes it idempotent. */
  private async executeX402(call: PaidCall): Promise<GateResult> {
    const { product, surface, payload } = call;
    if (!call.requirements && call.resource !== undefined && !resourceMatches(call.resource, payload.resource)) {
      return failed('payment_requirement_not_accepted', payload.resource ? 'payment_resource_mismatch' : 'payment_resource_missing', payload.accepted?.network);
    }
    const identifier = paymentIdentifierOf(payload);
    if (!identifier.valid) return failed('payment_processing_error', 'invalid_payment_identifier', payload.accepted.network);
    if (identifier.id === undefined) return this.settleX402(call);
    const digest = requestDigest(call.resource ?? endpointKey(product, surface), call.input);
    return this.idempotent(identifier.id, payloadKindOf(payload).key, digest, () => this.settleX402(call));
  }

  /** Matches the payload to the quote and hands it to the skeleton with the facilitator as settler. */
  private settleX402(call: PaidCall): Promise<GateResult> {
    const { rail, log } = this.deps;
    const { product, surface, payload } = call;
    const requirements = call.requirements ?? rail.match(product, surface, payload);
    if (!requirements) return Promise.resolve(failed('payment_requirement_not_accepted', 'no_matching_payment_requirements', payload.accepted?.network));
    const reservation = this.reservationFor(call, requirements);
    const deps = { server: rail.server, log, timeoutMs: this.deps.facilitatorTimeoutMs ?? 15_000 };
    let settler: Settler;
    if (requirements.scheme === BATCH_SCHEME) {
      // Refunds are made by the service itself (idle channels, see BatchClaims), not sold at a route.
      if (batchVoucherOf(payload)?.type === 'refund') return Promise.resolve(failed('payment_requirement_not_accepted', 'batch_refund_not_accepted_here', payload.accepted.network));
      settler = channelSettler(deps, payload, requirements, (reason) => this.correctiveAccepts(call, reason), reservation.key);
    } else {
      settler = facilitatorSettler(deps, payload, requirements);
    }
    return this.attempt({
      product,
      surface,
      input: call.input,
      reservation,
      settler,
      metering: this.metering(call, requirements),
      alreadyReserved: (held) => this.alreadyReserved(call, reservation, held),
    });
  }

  /** A refused batch-settlement payment's terms with its channel's state, for the client to re-sync. */
  private correctiveAccepts(call: PaidCall, reason: string): Promise<PaymentRequirements[] | undefined> {
    return correctiveAccepts(this.deps.rail.server, this.deps.rail.requirementsFor(call.product, call.surface), call.payload, reason);
  }

  /**
   * The settle skeleton, the same for every rail: reserve → verify → run → settle → ledger. From the
   * reservation on it ends released (nothing moved), pending (outcome unknown: the reconciler asks the
   * chain) or settled with its ledger row.
   */
  private async attempt(a: PaidAttempt): Promise<GateResult> {
    const { store, log } = this.deps;
    const reserved = await store.reservePayment(a.reservation);
    if (!reserved.reserved) return a.alreadyReserved(reserved);
    const key = a.reservation.key;
    let keep = false;
    let verifiedHold = false;
    try {
      const verified = await a.settler.verify();
      if (verified.status !== 'valid') return verified.result;
      verifiedHold = true;
      const payer = verified.payer ?? a.reservation.payer;

      let output: unknown;
      try {
        output = await this.run(a, payer, a.metering?.context, { key, amount: BigInt(a.reservation.amount) });
      } catch (error) {
        return { status: 'product_failed', error };
      }

      // `upto` settles the actual charge, never more than authorized; the rest the quoted amount. The
      // charge is recorded first, so a reconciler that finds the payment used on chain knows what moved.
      const amount = a.metering ? a.metering.charge().toString() : a.reservation.amount;
      await store.markSettling(key, a.metering ? amount : undefined);
      const settled = await a.settler.settle(amount);
      if (settled.status === 'failed') return settled.result;
      keep = true;
      if (settled.status === 'pending') {
        await store.markPending(key, { txHash: settled.txHash, reason: settled.detail });
        log.error({ product: a.product.id, surface: a.surface, txHash: settled.txHash, reason: settled.detail }, 'settlement outcome unknown; payment parked as pending');
        return (await this.settledAfterAll(key, output)) ?? { status: 'pending', detail: settled.detail };
      }
      const { settlement } = settled;
      const terms = { ...a.reservation, amount, payer };
      const moved = { txHash: settlement.transaction || a.settler.offChainReference || '', amount: settlement.amount, payer: settlement.payer, network: settlement.network };
      await this.recordLedger(ledgerEntry(terms, moved, this.now()), output);
      this.handOver(key);
      return { status: 'served', output, settlement, paymentKey: key };
    } finally {
      // Nothing moved: the payment is free again.
      if (!keep) {
        if (verifiedHold) await a.settler.release?.();
        await store.releasePayment(key).catch(() => undefined);
      }
    }
  }

  /**
   * A settlement whose outcome the facilitator could not tell may be on chain already: asked at once,
   * a payment found settled gets the result that was just computed (the reconciler wrote its row).
   */
  private async settledAfterAll(key: string, output: unknown): Promise<GateResult | undefined> {
    const { store, reconciler } = this.deps;
    try {
      if ((await reconciler.resolveKey(key)) !== 'settled') return undefined;
      const entry = await store.settlement(key);
      if (!entry || (await store.claimDelivery(key, DELIVERY_CONFIRM_MS)) !== 'claimed') return undefined;
      return { status: 'served', output, settlement: settlementOf(entry), paymentKey: key };
    } catch (error) {
      this.deps.log.warn({ err: describeError(error) }, 'could not check a pending settlement at once; the reconciler will');
      return undefined;
    }
  }

  /**
   * The same authorization again. A settled payment whose response was never delivered (the
   * reconciler found it on chain after a crash) is owed exactly one response: the first caller to
   * claim it with the request it paid for gets it. A pending one is checked on chain right now. Once
   * settled, a payment's signed authorization is public on chain, so anyone could present it again:
   * the request it paid for (its digest, kept with the reservation) is what only its payer knows.
   */
  private async alreadyReserved(call: PaidCall, reservation: PaymentReservation, held: Held): Promise<GateResult> {
    const { key } = reservation;
    const { state, delivered } = held;
    const network = call.payload.accepted.network;
    // Only the request the payment paid for collects its result (rows from before the digest have none).
    const owedHere = held.requestDigest === undefined || held.requestDigest === reservation.requestDigest;
    if (state === 'pending') {
      if (!owedHere) return failed('payment_verification_failed', 'payment_already_used', network);
      const resolution = await this.deps.reconciler.resolveKey(key);
      if (resolution !== 'settled') {
        return resolution === 'failed'
          ? failed('payment_verification_failed', 'payment_authorization_expired', network)
          : { status: 'pending', detail: 'settlement of this payment is still being confirmed' };
      }
      return this.redeem(call, key);
    }
    if (state === 'settled' && !delivered && owedHere) return this.redeem(call, key);
    if (state === 'settled' && call.payload.accepted.scheme === BATCH_SCHEME) {
      // A voucher the channel has already charged: the terms with the channel's state, so the
      // client signs its next voucher from there (the scheme's own answer to a stale cumulative).
      const reason = 'invalid_batch_settlement_evm_cumulative_amount_mismatch';
      const result = failed('payment_verification_failed', reason, network);
      const accepts = await this.correctiveAccepts(call, reason);
      return accepts && result.status === 'payment_failed' ? { ...result, failure: { ...result.failure, accepts } } : result;
    }
    if (state === 'settled' && owedHere && this.deps.store.exclusive && !this.handedOver.has(key)) {
      const owed = await this.orphanedHandOver(call, key);
      if (owed) return owed;
    }
    if (state === 'settled' || state === 'failed') return failed('payment_verification_failed', 'payment_already_used', network);
    return failed('payment_verification_failed', 'payment_already_in_progress', network);
  }

  /**
   * A response handed over (settled, marked delivered) by a process before this one and never
   * confirmed written, on a store this process alone uses (embedded): that process stopped between
   * settling and writing the response, and nothing can confirm it any more, so the payment is owed
   * its result now, once. Hand-overs made by this process, or confirmed, are not (undefined).
   */
  private async orphanedHandOver(call: PaidCall, key: string): Promise<GateResult | undefined> {
    const { store } = this.deps;
    const entry = await store.settlement(key);
    if (!entry || entry.product !== call.product.id) return undefined;
    // Stale means: last touched before this process started.
    if ((await store.claimDelivery(key, Math.max(0, Date.now() - this.startedAt))) !== 'claimed') return undefined;
    try {
      const stored = await store.storedResponse(key);
      const output = stored !== undefined ? JSON.parse(stored) : await this.run(call, entry.payer);
      return { status: 'served', output, settlement: settlementOf(entry), paymentKey: key, replay: true };
    } catch (error) {
      await store.unclaimDelivery(key);
      return { status: 'product_failed', error };
    }
  }

  /**
   * Hands a settled, undelivered payment its one response: the stored result when there is one (the
   * very result that was paid for), else the product is run again (a result settled by the
   * reconciler after a crash, or one too large to keep).
   */
  private async redeem(call: PaidCall, key: string): Promise<GateResult> {
    const { store } = this.deps;
    const entry = await store.settlement(key);
    // Handed over by this process a moment ago: its door is about to say whether it was written.
    const handOver = this.handedOver.get(key);
    if (handOver) await withDeadline(handOver.written, HAND_OVER_WAIT_MS, () => new Error('hand-over still unconfirmed')).catch(() => undefined);
    const claim = entry && entry.product === call.product.id ? await store.claimDelivery(key, DELIVERY_CONFIRM_MS) : 'not_owed';
    if (claim === 'in_delivery') return { status: 'pending', detail: 'the response to this payment is being delivered; if it does not arrive, present the payment again later' };
    if (claim !== 'claimed' || !entry) return failed('payment_verification_failed', 'payment_already_used', call.payload.accepted.network);
    try {
      const stored = await store.storedResponse(key);
      const output = stored !== undefined ? JSON.parse(stored) : await this.run(call, entry.payer);
      return { status: 'served', output, settlement: settlementOf(entry), paymentKey: key, replay: true };
    } catch (error) {
      await store.unclaimDelivery(key);
      return { status: 'product_failed', error };
    }
  }

  /**
   * A served response reached its caller in full: the payment is no longer owed a response. Until
   * then it is handed over but unconfirmed, and a crash between settling and writing the response
   * leaves it redeemable once DELIVERY_CONFIRM_MS have passed.
   */
  async delivered(paymentKey: string): Promise<void> {
    const unrecorded = this.unrecorded.get(paymentKey);
    if (unrecorded) unrecorded.delivered = true;
    await this.deps.store.confirmDelivery(paymentKey).catch((error: unknown) =>
      this.deps.log.warn({ paymentKey, err: describeError(error) }, 'could not mark a response delivered; it stays redeemable once'),
    );
    this.handedOver.get(paymentKey)?.end();
  }

  /** Notes a response handed to its door; settled by delivered or undelivered, or dropped after the confirm limit. */
  private handOver(key: string): void {
    let resolve!: () => void;
    const written = new Promise<void>((r) => (resolve = r));
    const timer = setTimeout(() => this.handedOver.get(key)?.end(), DELIVERY_CONFIRM_MS);
    timer.unref();
    this.handedOver.set(key, {
      written,
      end: () => {
        clearTimeout(timer);
        this.handedOver.delete(key);
        resolve();
      },
    });
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
    this.handedOver.get(paymentKey)?.end();
  }

  /**
   * Writes the ledger rows that could not be written when their payment settled (the database was
   * away); the reconciler runs this before each pass, so the row is ours, with its response.
   */
  async flushLedger(): Promise<void> {
    for (const [key, pending] of this.unrecorded) {
      try {
        await this.deps.store.recordSettlement(pending.entry, { delivered: pending.delivered, response: pending.response, redeemableUntil: pending.redeemableUntil });
      } catch (error) {
        if (!(error instanceof SettlementRecordedError)) continue;
      }
      this.unrecorded.delete(key);
      this.deps.log.info({ product: pending.entry.product, txHash: pending.entry.txHash }, 'settled payment written to the ledger after the database came back');
    }
  }

  private run(call: Pick<PaidCall, 'product' | 'input'>, caller: string | undefined, metered?: ProductContext['metered'], payment?: ProductContext['payment']): Promise<unknown> {
    return this.deps.runner.run(call.product, call.input, 'paid', { now: this.now(), metered, caller: caller?.toLowerCase(), ...(payment ? { payment } : {}) });
  }

  /**
   * For `upto` payments: the product's price is the default charge, the product may report another
   * (usage), and the result is clamped to the authorization. Undefined for fixed-amount schemes.
   */
  private metering(call: PaidCall, requirements: PaymentRequirements): Metering | undefined {
    // A channel voucher on a metered product authorises the maximum and is charged the actual cost.
    if (requirements.scheme !== 'upto' && !(requirements.scheme === BATCH_SCHEME && call.product.mode.kind === 'upto')) return undefined;
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
    const { kind, key } = payloadKindOf(call.payload);
    const facts = kind.facts(call.payload);
    return {
      key,
      product: call.product.id,
      surface: call.surface,
      requestDigest: requestDigest(call.resource ?? endpointKey(call.product, call.surface), call.input),
      network: requirements.network,
      scheme: requirements.scheme,
      asset: requirements.asset,
      payTo: requirements.payTo,
      amount: requirements.amount,
      ...facts,
      owner: this.deps.instanceId,
    };
  }

  /**
   * A settled payment must reach the ledger, its response handed to this call (confirmed when the
   * door reports it written, see delivered):
   * retry briefly; if the database stays away, the entry is kept here and written before the next
   * reconciliation pass (flushLedger). The caller gets the response either way.
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
          this.deps.log.error({ product: entry.product, txHash: entry.txHash, err: describeError(error) }, 'settled payment could not be written to the ledger yet; kept to write when the database is back');
          this.unrecorded.set(entry.paymentKey, { entry, response, redeemableUntil, delivered: false });
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

/** The settlement answer of a payment the ledger holds. */
function settlementOf(entry: LedgerEntry): SettleResponse {
  return { success: true, transaction: entry.txHash, network: entry.network as SettleResponse['network'], payer: entry.payer, amount: entry.amount };
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
