import type { Surface } from '../catalogue/types.ts';

/**
 * Life of a payment authorization in the replay guard:
 * `verifying` (reserved, not yet sent for settlement) → `settling` (settlement requested)
 * → `settled` (ledger row written) or `pending` (outcome unknown: reconciled later, never served twice).
 * A reservation whose call failed before settlement is deleted, so the same authorization may be used again.
 */
export type PaymentState = 'verifying' | 'settling' | 'settled' | 'pending';

export interface PaymentReservation {
  /** Identity of the authorization, unique per signed payment (see payments/payment-key.ts). */
  key: string;
  product: string;
  surface: Surface;
  network: string;
}

export type ReserveResult = { reserved: true } | { reserved: false; state: PaymentState };

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

/**
 * Everything percall keeps. One interface; the embedded store (PGlite, a file under the data
 * directory) is the default, and a PostgreSQL store shares the same SQL and migrations.
 */
export interface Store {
  /** Atomically reserves a payment key; exactly one concurrent caller wins. */
  reservePayment(reservation: PaymentReservation): Promise<ReserveResult>;
  /** Moves a reservation to `settling` just before settlement is requested. */
  markSettling(key: string): Promise<void>;
  /** Deletes a reservation that never reached a settled state (nothing was charged). */
  releasePayment(key: string): Promise<void>;
  /** Keeps the key blocked: settlement outcome unknown, to be reconciled. */
  markPending(key: string, detail: { txHash?: string; reason: string }): Promise<void>;
  /** Marks the payment settled and writes its ledger row, in one transaction. */
  recordSettlement(entry: LedgerEntry): Promise<void>;
  paymentState(key: string): Promise<PaymentState | undefined>;
  /** Newest first. */
  ledger(options?: { limit?: number }): Promise<LedgerEntry[]>;
  close(): Promise<void>;
}
