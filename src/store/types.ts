import type { Surface } from '../catalogue/types.ts';
import type { BatchChannelStorage } from './channel-storage.ts';
import type { BazaarSnapshotStore } from './bazaar-snapshots.ts';
import type { ToolUsageSnapshot, ToolUsageStore } from './tool-usage.ts';
import type { VerificationRecords } from '../products/kit/payments-desk.ts';
import type { OperatorLedger } from './operator-ledger.ts';

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
  /** Solana: the recent blockhash the signed transaction lives by; once the chain calls it invalid the transaction can never land. */
  recentBlockhash?: string;
  /** The instance holding the reservation; the reconciler treats rows of dead instances as orphans. */
  owner: string;
  /** Digest of the request paid for (see requestDigest in payments/gate.ts): only the same request redeems its result. */
  requestDigest?: string;
}

export type ReserveResult = { reserved: true } | { reserved: false; state: PaymentState; delivered: boolean; requestDigest?: string };

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
  /** Set when a check found that the chain does not have this row's transaction (a dev chain restarted from older state). */
  missingOnChainAt?: Date;
}

export type DeliveryClaim = 'claimed' | 'in_delivery' | 'not_owed';

/** A reservation that has not reached `settled` or `failed`, as the reconciler sees it. */
export interface UnresolvedPayment extends Omit<PaymentReservation, 'owner'> {
  owner: string;
  state: 'verifying' | 'settling' | 'pending';
  txHash?: string;
  /** Milliseconds since the row last changed, by the database's clock. */
  ageMs: number;
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

export interface IdempotencyRecord {
  paymentKey: string;
  requestDigest: string;
  /** Present once the call was served. */
  response?: string;
  settlement?: string;
}

export interface IssuedNonce {
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
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
  /** The per-tool blocks' figures (absent where they were not read). */
  tools?: ToolUsageSnapshot;
}

/** A saved analytics query (see src/index). */
export interface SavedQueryRecord {
  id: number;
  name: string;
  description: string;
  sql: string;
  createdAt: Date;
}

/** A stored analytics execution; `result` is the JSON text of the result. */
export interface AnalyticsExecutionRecord {
  id: string;
  chain: string;
  network: string;
  sql: string;
  savedQueryId: number | null;
  indexedBlock: number | null;
  result: string;
  executedAt: Date;
  expiresAt: Date;
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
  /**
   * Marks the payment settled and writes its ledger row, in one statement. `response` (the JSON of
   * the result) is kept until `redeemableUntil`, so a payer whose connection dropped collects the
   * very same result with the same payment; after that time an undelivered payment is no longer owed.
   */
  recordSettlement(entry: LedgerEntry, options: { delivered: boolean; response?: string; redeemableUntil?: Date }): Promise<void>;
  /**
   * Claims the one response a settled payment is owed, within its redeem window: 'claimed' for
   * exactly one caller when it is owed (never delivered, or handed to a caller whose delivery was
   * not confirmed within `staleAfterMs`: that process died); 'in_delivery' while a recent hand-over
   * is unconfirmed; 'not_owed' otherwise.
   */
  claimDelivery(key: string, staleAfterMs: number): Promise<DeliveryClaim>;
  /** The response was written to its caller in full: no longer owed. */
  confirmDelivery(key: string): Promise<void>;
  /** The response did not reach its caller: owed again. */
  unclaimDelivery(key: string): Promise<void>;
  /** The stored result of a settled payment, while it is redeemable. */
  storedResponse(key: string): Promise<string | undefined>;
  paymentState(key: string): Promise<PaymentState | undefined>;
  settlement(key: string): Promise<LedgerEntry | undefined>;
  /** Newest first. */
  ledger(options?: { limit?: number }): Promise<LedgerEntry[]>;
  /** Flags a ledger row whose transaction the chain does not have (kept, never deleted). */
  markMissingOnChain(paymentKey: string): Promise<void>;
  unresolvedPayments(): Promise<UnresolvedPayment[]>;

  /** Records that an instance is alive; the reconciler leaves live instances' reservations alone. */
  heartbeat(instanceId: string): Promise<void>;
  /** Instances whose last heartbeat is at most `maxAgeMs` old, by the database's clock (instance clocks may be skewed). */
  liveInstances(maxAgeMs: number): Promise<Set<string>>;

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
  /**
   * Issues a proof-request nonce for a route to a client, within a budget: while the client holds
   * `budget` open nonces for the route, its newest one is returned again instead of a new row, so
   * unproven requests cannot fill the store and a PROOF-REQUEST stays valid across retries.
   */
  issueProofNonce(request: { nonce: string; route: string; client: string; issuedAt: Date; expiresAt: Date; budget: number }): Promise<IssuedNonce>;
  /** Whether an issued nonce for the route is still unused and unexpired (does not spend it). */
  proofNonceOpen(nonce: string, route: string): Promise<boolean>;
  /**
   * Holds an open nonce for one request (until `holdMs` from now, in case its owner dies); exactly one
   * concurrent caller gets true. The request then spends it (served) or releases it (not served).
   */
  holdProofNonce(nonce: string, route: string, holdMs: number): Promise<boolean>;
  releaseProofNonce(nonce: string): Promise<void>;
  /** Spends a nonce for good. */
  consumeProofNonce(nonce: string): Promise<void>;

  /**
   * Counts one request of a client in a fixed window of a rate-limit bucket, shared by all
   * instances; returns the count so far in this window and when the window ends.
   */
  hitRateLimit(bucket: string, client: string, windowSeconds: number): Promise<{ hits: number; resetAt: Date }>;
  /**
   * Claims an idempotency key (x402 `payment-identifier`, MPP `Idempotency-Key`) for one payment and
   * request; when it is already claimed, returns what was recorded under it (the stored response
   * once the call was served).
   */
  claimIdempotency(claim: { id: string; paymentKey: string; requestDigest: string; expiresAt: Date }): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }>;
  /** Stores the served response (JSON) and settlement (JSON) under a claimed key. */
  completeIdempotency(id: string, response: string, settlement: string): Promise<void>;
  /** Frees a claimed key whose call was not served (nothing was charged). */
  releaseIdempotency(id: string): Promise<void>;
  /** Deletes what has expired: registrations, proof nonces, revocations, used nonces, old rate-limit windows, stored responses past their redeem window. */
  purgeExpired(): Promise<Record<string, number>>;

  addHypothesis(h: NewHypothesis): Promise<Hypothesis>;
  /**
   * Closes a registered hypothesis as `evaluated` or `abandoned`; undefined when there is no such
   * hypothesis, `{ conflict }` when it is not `registered` any more (the only legal transitions).
   */
  closeHypothesis(id: number, status: 'evaluated' | 'abandoned', result: { verdict: string | null; measuredValue: string | null }): Promise<Hypothesis | { conflict: Hypothesis['status'] } | undefined>;
  /** Open ones (all) and the most recently closed (`closedLimit`), with totals. */
  hypotheses(closedLimit: number): Promise<{ open: Hypothesis[]; closed: Hypothesis[]; openTotal: number; closedTotal: number }>;

  /**
   * The x402 batch-settlement channel state (the SDK's ChannelStorage) on this database, shared by
   * every instance on it: `updateChannel` is atomic across all of them.
   */
  channelStorage(): BatchChannelStorage;
  /** Bazaar discovery snapshots (src/bazaar), shared by every instance on this database. */
  bazaarSnapshots(): BazaarSnapshotStore;
  /** settlement_verify's verifications, read back by x402_receipt_lookup on any instance. */
  settlementVerifications(): VerificationRecords;
  /** Settled calls of the tools with their own observatory block (the feed's polls, reprice_regret's queries). */
  toolUsage(): ToolUsageStore;
  /** The ledger's `out` direction: what the operator's wallet paid upstream sellers, and the daily spend cap's reservations. */
  operatorLedger(): OperatorLedger;
  /**
   * Takes (or renews) the named lease for `holder` for `ttlMs` when it is free, expired or already
   * the holder's: one instance at a time does the work it guards. False when another holds it.
   */
  takeLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Who holds the named lease now (unexpired), if anyone. */
  leaseHolder(name: string): Promise<string | undefined>;
  /** Records an on-chain transaction of batch-settlement channels (a claim, settle or refund). */
  recordBatchTransaction(t: { kind: 'claim' | 'settle' | 'refund'; network: string; txHash: string; vouchers?: number; channelId?: string }): Promise<void>;
  batchTransactions(limit: number): Promise<{ kind: string; network: string; txHash: string; vouchers: number; channelId?: string; at: Date }[]>;

  /** analytics-query: the operator's saved queries, by number (ids are never reused). */
  addSavedQuery(q: { name: string; description: string; sql: string }): Promise<SavedQueryRecord>;
  savedQueries(): Promise<SavedQueryRecord[]>;
  /** False when there was no such query. */
  removeSavedQuery(id: number): Promise<boolean>;
  /** Keeps an analytics execution (its result as JSON text) until `expiresAt`. */
  saveAnalyticsExecution(e: AnalyticsExecutionRecord): Promise<void>;
  /** The execution, while it has not expired. */
  analyticsExecution(id: string): Promise<AnalyticsExecutionRecord | undefined>;

  /** Adds buffered counter deltas and payers seen, in one transaction. */
  addTelemetry(deltas: CounterDelta[], payers: string[]): Promise<void>;
  telemetry(): Promise<TelemetrySnapshot>;

  close(): Promise<void>;
}
