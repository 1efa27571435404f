import type { LedgerEntry, PaymentReservation, PaymentState, ReserveResult, Store } from './types.ts';
import { MIGRATION_LOCK_ID, MIGRATIONS } from './migrations.ts';
import type { Surface } from '../catalogue/types.ts';

/** The little a SQL engine must offer; PGlite and PostgreSQL drivers both fit behind it. */
export interface SqlDriver {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` in one transaction on one connection. */
  transaction<R>(fn: (tx: Pick<SqlDriver, 'query'>) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

interface LedgerRow {
  payment_key: string;
  payer: string;
  network: string;
  scheme: string;
  amount: string;
  asset: string;
  pay_to: string;
  tx_hash: string;
  product: string;
  surface: Surface;
  settled_at: Date | string;
}

/** The store over any SqlDriver: the same SQL for the embedded engine and PostgreSQL. */
export class SqlStore implements Store {
  private constructor(private readonly db: SqlDriver) {}

  static async open(db: SqlDriver): Promise<SqlStore> {
    await migrate(db);
    return new SqlStore(db);
  }

  async reservePayment(r: PaymentReservation): Promise<ReserveResult> {
    const inserted = await this.db.query<{ payment_key: string }>(
      `INSERT INTO payments (payment_key, state, product, surface, network)
       VALUES ($1, 'verifying', $2, $3, $4)
       ON CONFLICT (payment_key) DO NOTHING RETURNING payment_key`,
      [r.key, r.product, r.surface, r.network],
    );
    if (inserted.length === 1) return { reserved: true };
    const state = await this.paymentState(r.key);
    // The holder may have released it between our insert and this read; report it as in flight.
    return { reserved: false, state: state ?? 'verifying' };
  }

  async markSettling(key: string): Promise<void> {
    await this.db.query(`UPDATE payments SET state = 'settling', updated_at = now() WHERE payment_key = $1`, [key]);
  }

  async releasePayment(key: string): Promise<void> {
    await this.db.query(`DELETE FROM payments WHERE payment_key = $1 AND state IN ('verifying', 'settling')`, [key]);
  }

  async markPending(key: string, detail: { txHash?: string; reason: string }): Promise<void> {
    await this.db.query(
      `UPDATE payments SET state = 'pending', tx_hash = COALESCE($2, tx_hash), detail = $3, updated_at = now()
       WHERE payment_key = $1 AND state <> 'settled'`,
      [key, detail.txHash ?? null, detail.reason],
    );
  }

  async recordSettlement(e: LedgerEntry): Promise<void> {
    // One statement, hence one atomic commit: the payment turns `settled` and gains its ledger row together.
    const inserted = await this.db.query<{ id: string }>(
      `WITH settled AS (
         UPDATE payments SET state = 'settled', tx_hash = $8, detail = NULL, updated_at = now()
         WHERE payment_key = $1 RETURNING payment_key
       )
       INSERT INTO ledger (payment_key, payer, network, scheme, amount, asset, pay_to, tx_hash, product, surface, settled_at)
       SELECT payment_key, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 FROM settled RETURNING id`,
      [e.paymentKey, e.payer, e.network, e.scheme, e.amount, e.asset, e.payTo, e.txHash, e.product, e.surface, e.settledAt],
    );
    if (inserted.length !== 1) throw new Error(`no reservation for settled payment ${e.paymentKey}`);
  }

  /**
   * Single-process start-up: reservations left by a process that died are either released
   * (it never asked for settlement) or parked as `pending` (it may have broadcast a transfer).
   */
  async recoverInterrupted(): Promise<void> {
    await this.db.query(`DELETE FROM payments WHERE state = 'verifying'`);
    await this.db.query(
      `UPDATE payments SET state = 'pending', detail = 'interrupted during settlement', updated_at = now() WHERE state = 'settling'`,
    );
  }

  async paymentState(key: string): Promise<PaymentState | undefined> {
    const rows = await this.db.query<{ state: PaymentState }>(`SELECT state FROM payments WHERE payment_key = $1`, [key]);
    return rows[0]?.state;
  }

  async ledger(options: { limit?: number } = {}): Promise<LedgerEntry[]> {
    const rows = await this.db.query<LedgerRow>(
      `SELECT payment_key, payer, network, scheme, amount::text AS amount, asset, pay_to, tx_hash, product, surface, settled_at
       FROM ledger ORDER BY id DESC LIMIT $1`,
      [options.limit ?? 1000],
    );
    return rows.map((r) => ({
      paymentKey: r.payment_key,
      payer: r.payer,
      network: r.network,
      scheme: r.scheme,
      amount: r.amount,
      asset: r.asset,
      payTo: r.pay_to,
      txHash: r.tx_hash,
      product: r.product,
      surface: r.surface,
      settledAt: new Date(r.settled_at),
    }));
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Applies pending migrations in one transaction under an advisory lock (safe with concurrent starts). */
async function migrate(db: SqlDriver): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock($1)`, [MIGRATION_LOCK_ID]);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = new Set(
      (await tx.query<{ version: number }>(`SELECT version FROM schema_migrations`)).map((r) => Number(r.version)),
    );
    for (const m of MIGRATIONS) {
      if (applied.has(m.version)) continue;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query(`INSERT INTO schema_migrations (version) VALUES ($1)`, [m.version]);
    }
  });
}

/** Migrations hold several statements; parameterised query protocols take one at a time. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}
