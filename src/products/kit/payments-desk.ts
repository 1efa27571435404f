/**
 * What the payments products reach besides chains and the fetcher (app.ts supplies it): the
 * settlement verifications kept in the shared store (settlement_verify writes them,
 * x402_receipt_lookup reads them) and this instance's own payment facts (its facilitator's URL,
 * the networks it is paid on). Products see only this interface.
 */

/** One stored settlement verification: the JSON answer of settlement_verify, under its id. */
export interface StoredVerification {
  id: string;
  network: string;
  transaction: string;
  /** The verification as settlement_verify answered it (JSON-serialisable). */
  record: Record<string, unknown>;
  verifiedAt: Date;
}

export interface VerificationRecords {
  save(verification: StoredVerification): Promise<void>;
  /** The stored verification, or undefined for an id never issued. */
  get(id: string): Promise<StoredVerification | undefined>;
}

export interface PaymentsDesk {
  verifications: VerificationRecords;
  /** This service's facilitator over HTTP (FACILITATOR_URL), when it uses a remote one. */
  facilitatorUrl?: string;
  /** CAIP-2 networks this service's facilitators settle (its own offers). */
  networks?: readonly string[];
}
