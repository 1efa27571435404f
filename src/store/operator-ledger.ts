/**
 * The ledger's `out` direction (table `ledger_out`, migration 11): the operator's payments to
 * upstream x402 sellers, and each UTC day's reserved spend (`operator_spend`). A row is reserved
 * before anything is signed, in the same statement that adds its amount to the day's total, only
 * when the total stays within the cap: one conditional upsert, atomic across instances. It is then
 * `signed` (the authorization's nonce, before it is sent), `settled` (the upstream's transaction),
 * `unknown` (sent, outcome not known: the cap keeps it) or `released` (nothing moved: the day's total
 * gives it back).
 */

import type { OperatorLedger, OutboundEntry, OutboundRow, OutboundState } from '../products/kit/operator-wallet.ts';

export type { OperatorLedger, OutboundEntry, OutboundRow, OutboundState };

type Query = { query<T>(sql: string, params?: unknown[]): Promise<T[]> };

const COLUMNS = `id, state, product, caller_payment_key, caller, resource, network, scheme, asset, pay_to, amount::text AS amount, payer, nonce,
  valid_before::text AS valid_before, tx_hash, detail, to_char(day, 'YYYY-MM-DD') AS day, created_at, settled_at`;

interface Row {
  id: string;
  state: OutboundState;
  product: string;
  caller_payment_key: string | null;
  caller: string | null;
  resource: string;
  network: string;
  scheme: string;
  asset: string;
  pay_to: string;
  amount: string;
  payer: string;
  nonce: string | null;
  valid_before: string | null;
  tx_hash: string | null;
  detail: string | null;
  day: string | Date;
  created_at: string | Date;
  settled_at: string | Date | null;
}

export class SqlOperatorLedger implements OperatorLedger {
  constructor(private readonly db: Query) {}

  async reserve(e: OutboundEntry, capAtomic: bigint): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `WITH spend AS (
         INSERT INTO operator_spend (day, reserved) SELECT $1::date, $2::numeric WHERE $2::numeric <= $3::numeric
         ON CONFLICT (day) DO UPDATE SET reserved = operator_spend.reserved + EXCLUDED.reserved
           WHERE operator_spend.reserved + EXCLUDED.reserved <= $3::numeric
         RETURNING day
       )
       INSERT INTO ledger_out (id, state, product, caller_payment_key, caller, resource, network, scheme, asset, pay_to, amount, payer, day)
       SELECT $4, 'reserved', $5, $6, $7, $8, $9, $10, $11, $12, $2::numeric, $13, spend.day FROM spend RETURNING id`,
      [e.day, e.amount, capAtomic.toString(), e.id, e.product, e.callerPaymentKey ?? null, e.caller ?? null, e.resource, e.network, e.scheme, e.asset, e.payTo, e.payer],
    );
    return rows.length === 1;
  }

  async signed(id: string, nonce: string, validBefore?: number): Promise<void> {
    await this.db.query(`UPDATE ledger_out SET state = 'signed', nonce = $2, valid_before = $3 WHERE id = $1 AND state = 'reserved'`, [id, nonce, validBefore ?? null]);
  }

  async expired(beforeSeconds: number): Promise<OutboundRow[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM ledger_out WHERE state IN ('signed', 'unknown') AND valid_before < $1 ORDER BY valid_before LIMIT 100`,
      [beforeSeconds],
    );
    return rows.map(toRow);
  }

  async settled(id: string, txHash: string | undefined, at: Date): Promise<void> {
    await this.db.query(`UPDATE ledger_out SET state = 'settled', tx_hash = $2, settled_at = $3, detail = NULL WHERE id = $1 AND state IN ('reserved', 'signed', 'unknown')`, [id, txHash ?? null, at]);
  }

  async unknown(id: string, detail: string): Promise<void> {
    await this.db.query(`UPDATE ledger_out SET state = 'unknown', detail = $2 WHERE id = $1 AND state IN ('reserved', 'signed')`, [id, detail]);
  }

  async release(id: string, detail: string): Promise<void> {
    await this.db.query(
      `WITH released AS (
         UPDATE ledger_out SET state = 'released', detail = $2 WHERE id = $1 AND state IN ('reserved', 'signed', 'unknown') RETURNING day, amount
       )
       UPDATE operator_spend SET reserved = operator_spend.reserved - released.amount FROM released WHERE operator_spend.day = released.day`,
      [id, detail],
    );
  }

  async rows(options: { callerPaymentKey?: string; limit?: number } = {}): Promise<OutboundRow[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS}
       FROM ledger_out WHERE ($1::text IS NULL OR caller_payment_key = $1) ORDER BY created_at DESC, id LIMIT $2`,
      [options.callerPaymentKey ?? null, options.limit ?? 1000],
    );
    return rows.map(toRow);
  }

  async spent(day: string): Promise<bigint> {
    const rows = await this.db.query<{ reserved: string }>(`SELECT reserved::text AS reserved FROM operator_spend WHERE day = $1::date`, [day]);
    return BigInt(rows[0]?.reserved ?? '0');
  }
}

function toRow(r: Row): OutboundRow {
  return {
    direction: 'out',
    id: r.id,
    state: r.state,
    product: r.product,
    ...(r.caller_payment_key ? { callerPaymentKey: r.caller_payment_key } : {}),
    ...(r.caller ? { caller: r.caller } : {}),
    resource: r.resource,
    network: r.network,
    scheme: r.scheme,
    asset: r.asset,
    payTo: r.pay_to,
    amount: r.amount,
    payer: r.payer,
    day: typeof r.day === 'string' ? r.day : r.day.toISOString().slice(0, 10),
    ...(r.nonce ? { nonce: r.nonce } : {}),
    ...(r.valid_before ? { validBefore: Number(r.valid_before) } : {}),
    ...(r.tx_hash ? { txHash: r.tx_hash } : {}),
    ...(r.detail ? { detail: r.detail } : {}),
    createdAt: new Date(r.created_at),
    ...(r.settled_at ? { settledAt: new Date(r.settled_at) } : {}),
  };
}
