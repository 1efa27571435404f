import type { Surface } from '../catalogue/types.ts';

/**
 * Life of a payment authorization in the replay guard:
 * `verifying` (reserved, not yet sent for settlement) → `settling` (settlement requested)
 * → `settled` (ledger row written), `pending` (outcome unknown: reconciled against the chain) or
 * `failed` (can never settle). A reservation whose call failed before settlement is deleted, so the
 * same authorization may be used again.
 */
export type PaymentState = 'verifying' | 'settling' | 'settled' | 'pending' | 'failed';

export interface PaymentReservation {
  /** Identity of the authorization, unique per signed payment (see payments/payment-key.ts). */
  key: string;
  product: string;
  surface: Surface;
  network: string;
  scheme: string;
  asset: string;
  payTo: string;
  /** Atomic units authorized. */
  amount: string;
  /** Who signed, when the payload says (EIP-3009 `from`). */
  payer?: string;
  /** Unix seconds after which the authorization can never execute, when the payload says. */
  validBefore?: number;
  /** The instance holding the reservation; the reconciler treats rows of dead instances as orphans. */
  owner: string;
}

export type ReserveResult = { reserved: true } | { reserved: false; state: PaymentState; delivered: boolean };

export interface LedgerEntry {
  paymentKey: string;
  payer: string;
  network: string;
  scheme: string;
  /** Atomic units of `asset`. */
  amount: string;
  asset: string;
  payTo: string;
  txHash: string;
  product: string;
  surface: Surface;
  settledAt: Date;
}

/** A reservation that has not reached `settled` or `failed`, as the reconciler sees it. */
export interface UnresolvedPayment extends Omit<PaymentReservation, 'owner'> {
  owner: string;
  state: 'verifying' | 'settling' | 'pending';
  txHash?: string;
  updatedAt: Date;
}

export interface StoredSigningKey {
  kid: string;
  /** JWK JSON. */
  publicJwk: string;
  /** JWK JSON; never leaves the store except to sign. */
  privateJwk: string;
  createdAt: Date;
  retiredAt?: Date;
}

export interface NewHypothesis {
  hypothesis: string;
  publicClaim: string;
  observation: string;
  opportunity: string | null;
  target: string;
  horizonDays: number;
  lens: string;
}

export interface Hypothesis extends NewHypothesis {
  id: number;
  createdAt: Date;
  status: 'registered' | 'evaluated' | 'abandoned';
  verdict: string | null;
  measuredValue: string | null;
}

/** A counter increment; counters add up across instances. */
export interface CounterDelta {
  metric: string;
  dimension: string;
  value: number;
}

export interface TelemetrySnapshot {
  /** `metric` → `dimension` → value. */
  counters: Record<string, Record<string, number>>;
  uniquePayers: number;
  observingSince?: Date;
}

/**
 * Everything percall keeps, shared by all instances. One interface; the embedded store (PGlite, a
 * file under the data directory) is the default, PostgreSQL serves several instances, and both run
 * the same SQL and migrations.
 */
export interface Store {
  /** Applies migrations; safe to call again after a failure (e.g. the database was down). */
  ensureSchema(): Promise<void>;
  /** True when one process owns the database (embedded): all other owners are dead by definition. */
  readonly exclusive: boolean;
  /** False after a statement failed for lack of a database, until one succeeds again. */
  readonly healthy: boolean;

  /** Atomically reserves a payment key; exactly one concurrent caller wins. */
  reservePayment(reservation: PaymentReservation): Promise<ReserveResult>;
  /** Moves a reservation to `settling` just before settlement is requested. */
  /** Settlement is about to be requested; `amount` is what will be charged when it differs from the reserved maximum (`upto`). */
  markSettling(key: string, amount?: string): Promise<void>;
  /** Deletes a reservation that never reached a final state (nothing was charged). */
  releasePayment(key: string): Promise<void>;
  /** Keeps the key blocked: settlement outcome unknown, to be reconciled. */
  markPending(key: string, detail: { txHash?: string; reason: string }): Promise<void>;
  /** The authorization can never execute (expired unused): final, nothing was charged. */
  markFailed(key: string, reason: string): Promise<void>;
  /** Marks the payment settled and writes its ledger row, in one statement. */
  recordSettlement(entry: LedgerEntry, options: { delivered: boolean }): Promise<void>;
  /** Claims the one response a settled-but-undelivered payment is owed; true for exactly one caller. */
  claimDelivery(key: string): Promise<boolean>;
  /** Gives a claim back when the response could not be produced after all. */
  unclaimDelivery(key: string): Promise<void>;
  paymentState(key: string): Promise<PaymentState | undefined>;
  settlement(key: string): Promise<LedgerEntry | undefined>;
  /** Newest first. */
  ledger(options?: { limit?: number }): Promise<LedgerEntry[]>;
  unresolvedPayments(): Promise<UnresolvedPayment[]>;

  /** Records that an instance is alive; the reconciler leaves live instances' reservations alone. */
  heartbeat(instanceId: string): Promise<void>;
  liveInstances(since: Date): Promise<Set<string>>;

  /** Takes one unit of a per-wallet daily quota; false when `limit` is already used up. */
  consumeQuota(wallet: string, product: string, day: string, limit: number): Promise<boolean>;
  quotaUsed(wallet: string, product: string, day: string): Promise<number>;
  /** Gives one unit back (the free call it was taken for produced nothing). */
  refundQuota(wallet: string, product: string, day: string): Promise<void>;
  /** Records a single-use nonce (wallet proofs); false when it was used before. Old nonces expire after a day. */
  useNonce(nonce: string): Promise<boolean>;

  /** Identity signing keys, newest first; the one without `retiredAt` is active. */
  signingKeys(): Promise<StoredSigningKey[]>;
  /**
   * Adds a signing key and makes it the active one. With `rotate` the active key is retired in the
   * same transaction; without it the insert only succeeds when there is no active key (first start
   * of several instances at once: one wins, the others read its key).
   */
  addSigningKey(key: Omit<StoredSigningKey, 'createdAt' | 'retiredAt'>, options: { rotate: boolean }): Promise<boolean>;
  createRegistration(id: string, expiresAt: Date): Promise<void>;
  registration(id: string): Promise<{ id: string; createdAt: Date; expiresAt: Date } | undefined>;
  /** Revokes a token until it would have expired anyway; shared by all instances. */
  revokeToken(jti: string, expiresAt: Date): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
  /** Records a proof-request nonce we issued for a route. */
  issueProofNonce(nonce: string, route: string, expiresAt: Date): Promise<void>;
  /** Whether an issued nonce for the route is still unused and unexpired (does not spend it). */
  proofNonceOpen(nonce: string, route: string): Promise<boolean>;
  /** Takes an issued, unexpired nonce for the route; exactly one caller ever gets true. */
  consumeProofNonce(nonce: string, route: string): Promise<boolean>;

  addHypothesis(h: NewHypothesis): Promise<Hypothesis>;
  /**
   * Closes a registered hypothesis as `evaluated` or `abandoned`; undefined when there is no such
   * hypothesis, `{ conflict }` when it is not `registered` any more (the only legal transitions).
   */
  closeHypothesis(id: number, status: 'evaluated' | 'abandoned', result: { verdict: string | null; measuredValue: string | null }): Promise<Hypothesis | { conflict: Hypothesis['status'] } | undefined>;
  /** Open ones (all) and the most recently closed (`closedLimit`), with totals. */
  hypotheses(closedLimit: number): Promise<{ open: Hypothesis[]; closed: Hypothesis[]; openTotal: number; closedTotal: number }>;

  /** Adds buffered counter deltas and payers seen, in one transaction. */
  addTelemetry(deltas: CounterDelta[], payers: string[]): Promise<void>;
  telemetry(): Promise<TelemetrySnapshot>;

  close(): Promise<void>;
}
