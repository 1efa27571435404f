import type { StoredVerification, VerificationRecords } from '../products/kit/payments-desk.ts';

/**
 * settlement_verify's answers in the shared store (table of migration 10), read back by
 * x402_receipt_lookup on any instance. A verification is written once and never changed.
 */
export class SqlSettlementVerifications implements VerificationRecords {
  constructor(private readonly db: { query<T>(sql: string, params?: unknown[]): Promise<T[]> }) {}

  async save(v: StoredVerification): Promise<void> {
    await this.db.query(`INSERT INTO settlement_verifications (id, network, transaction, record, verified_at) VALUES ($1, $2, $3, $4, $5)`, [
      v.id,
      v.network,
      v.transaction,
      JSON.stringify(v.record),
      v.verifiedAt,
    ]);
  }

  async get(id: string): Promise<StoredVerification | undefined> {
    const [row] = await this.db.query<{ id: string; network: string; transaction: string; record: string; verified_at: Date | string }>(
      `SELECT id, network, transaction, record, verified_at FROM settlement_verifications WHERE id = $1`,
      [id],
    );
    if (!row) return undefined;
    return { id: row.id, network: row.network, transaction: row.transaction, record: JSON.parse(row.record) as Record<string, unknown>, verifiedAt: new Date(row.verified_at) };
  }
}
