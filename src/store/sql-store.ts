import type { Surface } from '../catalogue/types.ts';
import { SqlChannelStorage } from './channel-storage.ts';
import { SqlBazaarSnapshots } from './bazaar-snapshots.ts';
import { SqlOperatorLedger } from './operator-ledger.ts';
import { SqlSettlementVerifications } from './settlement-verifications.ts';
import { SqlToolUsage } from './tool-usage.ts';
import { MIGRATION_LOCK_ID, MIGRATIONS } from './migrations.ts';
import type {
  AnalyticsExecutionRecord,
  CounterDelta,
  DeliveryClaim,
  Hypothesis,
  IdempotencyRecord,
  IssuedNonce,
  LedgerEntry,
  NewHypothesis,
  PaymentReservation,
  PaymentState,
  ReserveResult,
  SavedQueryRecord,
  Store,
  StoredSigningKey,
  TelemetrySnapshot,
  UnresolvedPayment,
} from './types.ts';

/** The little a SQL engine must offer; PGlite and PostgreSQL drivers both fit behind it. */
export interface SqlDriver {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` in one transaction on one connection. */
  transaction<R>(fn: (tx: Pick<SqlDriver, 'query'>) => Promise<R>): Promise<R>;
  /**
   * Makes what was committed so far survive an OS crash, where the engine does not by itself (the
   * embedded store; PostgreSQL fsyncs its own WAL at commit).
   */
  flush?(): Promise<void>;
  close(): Promise<void>;
}

/** A settlement is recorded once: a second record of the same payment is refused with this. */
export class SettlementRecordedError extends Error {
  override name = 'SettlementRecordedError';
  constructor(paymentKey: string) {
    super(`settlement of payment ${paymentKey} is already recorded`);
  }
}

/** The database cannot be reached or answered with an error: callers answer 503, nothing is charged. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
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
  missing_on_chain_at: Date | string | null;
}

const LEDGER_COLUMNS = `payment_key, payer, network, scheme, amount::text AS amount, asset, pay_to, tx_hash, product, surface, settled_at, missing_on_chain_at`;

/** The store over any SqlDriver: the same SQL for the embedded engine and PostgreSQL. */
export class SqlStore implements Store {
  private schema: Promise<void> | undefined;
  private channels: SqlChannelStorage | undefined;
  private bazaar: SqlBazaarSnapshots | undefined;
  private verifications: SqlSettlementVerifications | undefined;
  private usage: SqlToolUsage | undefined;
  private outbound: SqlOperatorLedger | undefined;
  private confirmations: DeliveryConfirmations | undefined;
  healthy = true;

  constructor(
    private readonly db: SqlDriver,
    readonly exclusive: boolean,
  ) {}

  ensureSchema(): Promise<void> {
    this.schema ??= migrate(this.db).catch((error: unknown) => {
      this.schema = undefined; // try again on the next call
      this.healthy = false;
      throw error;
    });
    return this.schema;
  }

  /** Every statement waits for the schema and turns driver failures into StoreUnavailableError. */
  private async run<T>(sql: string, params?: unknown[]): Promise<T[]> {
    try {
      await this.ensureSchema();
      const rows = await this.db.query<T>(sql, params);
      this.healthy = true;
      return rows;
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /**
   * Runs `fn` in one transaction once the schema is there. A failing statement, BEGIN or COMMIT is
   * StoreUnavailableError; an error thrown by `fn`'s own code passes through unchanged (after the
   * rollback) and says nothing about the database.
   */
  private async transact<R>(fn: (tx: Pick<SqlDriver, 'query'>) => Promise<R>): Promise<R> {
    let own: { error: unknown } | undefined;
    try {
      await this.ensureSchema();
      const result = await this.db.transaction(async (tx) => {
        try {
          return await fn({
            query: async <T>(sql: string, params?: unknown[]) => {
              try {
                return await tx.query<T>(sql, params);
              } catch (error) {
                throw this.unavailable(error);
              }
            },
          });
        } catch (error) {
          if (!(error instanceof StoreUnavailableError)) own = { error };
          throw error;
        }
      });
      this.healthy = true;
      return result;
    } catch (error) {
      if (own && error === own.error) throw error;
      throw this.unavailable(error);
    }
  }

  /** Bazaar snapshots on this store's database (one per store). */
  bazaarSnapshots(): SqlBazaarSnapshots {
    return (this.bazaar ??= new SqlBazaarSnapshots({ query: (sql, params) => this.run(sql, params), transaction: (fn) => this.transact(fn) }));
  }

  /** settlement_verify's stored verifications on this store's database (one per store). */
  settlementVerifications(): SqlSettlementVerifications {
    return (this.verifications ??= new SqlSettlementVerifications({ query: (sql, params) => this.run(sql, params) }));
  }

  /** The ledger's `out` direction: the operator's upstream payments and daily spend (one per store). */
  operatorLedger(): SqlOperatorLedger {
    return (this.outbound ??= new SqlOperatorLedger({ query: (sql, params) => this.run(sql, params) }));
  }

  /** Settled calls of the tools with their own observatory block (one per store). */
  toolUsage(): SqlToolUsage {
    return (this.usage ??= new SqlToolUsage({ query: (sql, params) => this.run(sql, params) }));
  }

  /** The x402 batch-settlement channel storage on this store's database (one per store). */
  channelStorage(): SqlChannelStorage {
    return (this.channels ??= new SqlChannelStorage(
      {
        query: (sql, params) => this.run(sql, params),
        transaction: (fn) => this.transact(fn),
      },
      this.exclusive,
    ));
  }

  private unavailable(error: unknown): Error {
    const mapped = unavailable(error);
    if (mapped instanceof StoreUnavailableError) this.healthy = false;
    return mapped;
  }

  async reservePayment(r: PaymentReservation): Promise<ReserveResult> {
    const inserted = await this.run<{ payment_key: string }>(
      `INSERT INTO payments (payment_key, state, product, surface, network, scheme, asset, pay_to, amount, payer, valid_before, recent_blockhash, owner, request_digest)
       VALUES ($1, 'verifying', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (payment_key) DO NOTHING RETURNING payment_key`,
      [r.key, r.product, r.surface, r.network, r.scheme, r.asset, r.payTo, r.amount, r.payer ?? null, r.validBefore ?? null, r.recentBlockhash ?? null, r.owner, r.requestDigest ?? null],
    );
    if (inserted.length === 1) return { reserved: true };
    const rows = await this.run<{ state: PaymentState; delivered: boolean; request_digest: string | null }>(
      `SELECT state, delivered, request_digest FROM payments WHERE payment_key = $1`,
      [r.key],
    );
    // The holder may have released it between our insert and this read; report it as in flight.
    const digest = rows[0]?.request_digest;
    return { reserved: false, state: rows[0]?.state ?? 'verifying', delivered: rows[0]?.delivered ?? false, ...(digest ? { requestDigest: digest } : {}) };
  }

  async markSettling(key: string, amount?: string): Promise<void> {
    await this.run(
      `UPDATE payments SET state = 'settling', amount = COALESCE($2::numeric, amount), updated_at = now() WHERE payment_key = $1 AND state = 'verifying'`,
      [key, amount ?? null],
    );
  }

  async releasePayment(key: string): Promise<void> {
    await this.run(`DELETE FROM payments WHERE payment_key = $1 AND state IN ('verifying', 'settling')`, [key]);
  }

  async markPending(key: string, detail: { txHash?: string; reason: string }): Promise<void> {
    await this.run(
      `UPDATE payments SET state = 'pending', tx_hash = COALESCE($2, tx_hash), detail = $3, updated_at = now()
       WHERE payment_key = $1 AND state IN ('verifying', 'settling', 'pending')`,
      [key, detail.txHash ?? null, detail.reason],
    );
  }

  async markFailed(key: string, reason: string): Promise<void> {
    await this.run(
      `UPDATE payments SET state = 'failed', detail = $2, updated_at = now() WHERE payment_key = $1 AND state <> 'settled'`,
      [key, reason],
    );
  }

  async recordSettlement(e: LedgerEntry, options: { delivered: boolean; response?: string; redeemableUntil?: Date }): Promise<void> {
    // One statement, hence one atomic commit: the payment turns `settled` and gains its ledger row
    // together. Money that moved is always recorded: a reservation that is gone (its owner was
    // presumed dead and it was released) is recreated as settled. Only a second record is refused.
    const inserted = await this.run<{ id: string }>(
      `WITH settled AS (
         INSERT INTO payments (payment_key, state, product, surface, network, scheme, asset, pay_to, amount, payer, owner, delivered, tx_hash, response, redeemable_until)
         VALUES ($1, 'settled', $9, $10, $3, $4, $6, $7, $5, $2, 'recorded-without-reservation', $12, $8, $13, $14)
         ON CONFLICT (payment_key) DO UPDATE
           SET state = 'settled', tx_hash = $8, detail = NULL, delivered = $12, delivery_confirmed_at = NULL, response = $13, redeemable_until = $14, updated_at = now()
           WHERE payments.state <> 'settled'
         RETURNING payment_key
       )
       INSERT INTO ledger (payment_key, payer, network, scheme, amount, asset, pay_to, tx_hash, product, surface, settled_at)
       SELECT payment_key, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 FROM settled RETURNING id`,
      [e.paymentKey, e.payer, e.network, e.scheme, e.amount, e.asset, e.payTo, e.txHash, e.product, e.surface, e.settledAt, options.delivered, options.response ?? null, options.redeemableUntil ?? null],
    );
    if (inserted.length !== 1) throw new SettlementRecordedError(e.paymentKey);
    // Acknowledged to the payer next: make the row durable first (best effort where the engine can't).
    await this.db.flush?.().catch(() => undefined);
  }

  async claimDelivery(key: string, staleAfterMs: number): Promise<DeliveryClaim> {
    const claimed = await this.run(
      `UPDATE payments SET delivered = true, delivery_confirmed_at = NULL, updated_at = now()
       WHERE payment_key = $1 AND state = 'settled' AND (redeemable_until IS NULL OR redeemable_until > now())
         AND (NOT delivered OR (delivery_confirmed_at IS NULL AND updated_at < now() - $2 * interval '1 millisecond'))
       RETURNING payment_key`,
      [key, staleAfterMs],
    );
    if (claimed.length === 1) return 'claimed';
    const held = await this.run(
      `SELECT 1 FROM payments WHERE payment_key = $1 AND state = 'settled' AND delivered AND delivery_confirmed_at IS NULL
         AND (redeemable_until IS NULL OR redeemable_until > now())`,
      [key],
    );
    return held.length === 1 ? 'in_delivery' : 'not_owed';
  }

  /**
   * Confirmations of responses written arrive after the response left, so they wait a few
   * milliseconds for each other and are written together, in one statement (see DeliveryConfirmations).
   */
  confirmDelivery(key: string): Promise<void> {
    this.confirmations ??= new DeliveryConfirmations((keys) =>
      this.run(`UPDATE payments SET delivery_confirmed_at = now() WHERE payment_key IN (${keys.map((_, i) => `$${i + 1}`).join(', ')}) AND state = 'settled' AND delivered`, keys),
    );
    return this.confirmations.add(key);
  }

  async unclaimDelivery(key: string): Promise<void> {
    await this.run(`UPDATE payments SET delivered = false, delivery_confirmed_at = NULL, updated_at = now() WHERE payment_key = $1 AND state = 'settled'`, [key]);
  }

  async markMissingOnChain(paymentKey: string): Promise<void> {
    await this.run(`UPDATE ledger SET missing_on_chain_at = now() WHERE payment_key = $1 AND missing_on_chain_at IS NULL`, [paymentKey]);
  }

  async storedResponse(key: string): Promise<string | undefined> {
    const rows = await this.run<{ response: string | null }>(`SELECT response FROM payments WHERE payment_key = $1 AND redeemable_until > now()`, [key]);
    return rows[0]?.response ?? undefined;
  }

  async paymentState(key: string): Promise<PaymentState | undefined> {
    const rows = await this.run<{ state: PaymentState }>(`SELECT state FROM payments WHERE payment_key = $1`, [key]);
    return rows[0]?.state;
  }

  async settlement(key: string): Promise<LedgerEntry | undefined> {
    const rows = await this.run<LedgerRow>(`SELECT ${LEDGER_COLUMNS} FROM ledger WHERE payment_key = $1`, [key]);
    return rows[0] && toLedgerEntry(rows[0]);
  }

  async ledger(options: { limit?: number } = {}): Promise<LedgerEntry[]> {
    const rows = await this.run<LedgerRow>(`SELECT ${LEDGER_COLUMNS} FROM ledger ORDER BY id DESC LIMIT $1`, [options.limit ?? 1000]);
    return rows.map(toLedgerEntry);
  }

  /** In-flight rows first, so a backlog of long-pending ones (waiting for expiry) never starves them. */
  async unresolvedPayments(): Promise<UnresolvedPayment[]> {
    const rows = await this.run<{
      payment_key: string;
      state: UnresolvedPayment['state'];
      product: string;
      surface: Surface;
      network: string;
      scheme: string;
      asset: string;
      pay_to: string;
      amount: string;
      payer: string | null;
      valid_before: string | number | null;
      recent_blockhash: string | null;
      owner: string;
      tx_hash: string | null;
      age_ms: string | number;
    }>(
      // The age is read on the database's clock, the one that stamped updated_at: instance clocks may differ.
      `SELECT payment_key, state, product, surface, network, scheme, asset, pay_to, amount::text AS amount, payer,
              valid_before, recent_blockhash, owner, tx_hash, (extract(epoch FROM now() - updated_at) * 1000)::float8 AS age_ms
       FROM payments WHERE state IN ('verifying', 'settling', 'pending') ORDER BY (state = 'pending'), updated_at LIMIT 500`,
    );
    return rows.map((r) => ({
      key: r.payment_key,
      state: r.state,
      product: r.product,
      surface: r.surface,
      network: r.network,
      scheme: r.scheme,
      asset: r.asset,
      payTo: r.pay_to,
      amount: r.amount,
      payer: r.payer ?? undefined,
      validBefore: r.valid_before === null ? undefined : Number(r.valid_before),
      recentBlockhash: r.recent_blockhash ?? undefined,
      owner: r.owner,
      txHash: r.tx_hash ?? undefined,
      ageMs: Number(r.age_ms),
    }));
  }

  async takeLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const rows = await this.run(
      `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET holder = $2, expires_at = now() + $3 * interval '1 millisecond'
       WHERE leases.holder = $2 OR leases.expires_at < now()
       RETURNING name`,
      [name, holder, ttlMs],
    );
    return rows.length === 1;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.run(`DELETE FROM leases WHERE name = $1 AND holder = $2`, [name, holder]);
  }

  async leaseHolder(name: string): Promise<string | undefined> {
    const rows = await this.run<{ holder: string }>(`SELECT holder FROM leases WHERE name = $1 AND expires_at >= now()`, [name]);
    return rows[0]?.holder;
  }

  async recordBatchTransaction(t: { kind: 'claim' | 'settle' | 'refund'; network: string; txHash: string; vouchers?: number; channelId?: string }): Promise<void> {
    await this.run(`INSERT INTO batch_transactions (kind, network, tx_hash, vouchers, channel_id) VALUES ($1, $2, $3, $4, $5)`, [t.kind, t.network, t.txHash, t.vouchers ?? 0, t.channelId ?? null]);
  }

  async batchTransactions(limit: number): Promise<{ kind: string; network: string; txHash: string; vouchers: number; channelId?: string; at: Date }[]> {
    const rows = await this.run<{ kind: string; network: string; tx_hash: string; vouchers: number; channel_id: string | null; at: Date | string }>(
      `SELECT kind, network, tx_hash, vouchers, channel_id, at FROM batch_transactions ORDER BY id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ kind: r.kind, network: r.network, txHash: r.tx_hash, vouchers: Number(r.vouchers), ...(r.channel_id ? { channelId: r.channel_id } : {}), at: new Date(r.at) }));
  }

  async heartbeat(instanceId: string): Promise<void> {
    await this.run(
      `INSERT INTO instances (id, heartbeat_at) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [instanceId],
    );
  }

  async liveInstances(maxAgeMs: number): Promise<Set<string>> {
    const rows = await this.run<{ id: string }>(`SELECT id FROM instances WHERE heartbeat_at >= now() - $1 * interval '1 millisecond'`, [maxAgeMs]);
    return new Set(rows.map((r) => r.id));
  }

  async consumeQuota(wallet: string, product: string, day: string, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    // The upsert only increments below the limit, so concurrent callers on any instance never exceed it.
    const rows = await this.run(
      `INSERT INTO quotas (wallet, product, day, used) VALUES ($1, $2, $3, 1)
       ON CONFLICT (wallet, product, day) DO UPDATE SET used = quotas.used + 1 WHERE quotas.used < $4
       RETURNING used`,
      [wallet.toLowerCase(), product, day, limit],
    );
    return rows.length === 1;
  }

  async quotaUsed(wallet: string, product: string, day: string): Promise<number> {
    const rows = await this.run<{ used: number }>(`SELECT used FROM quotas WHERE wallet = $1 AND product = $2 AND day = $3`, [wallet.toLowerCase(), product, day]);
    return Number(rows[0]?.used ?? 0);
  }

  async refundQuota(wallet: string, product: string, day: string): Promise<void> {
    await this.run(`UPDATE quotas SET used = used - 1 WHERE wallet = $1 AND product = $2 AND day = $3 AND used > 0`, [wallet.toLowerCase(), product, day]);
  }

  async useNonce(nonce: string): Promise<boolean> {
    // Proofs older than a day are refused anyway (their issuedAt), so their nonces can go.
    const rows = await this.run(
      `WITH expired AS (DELETE FROM used_nonces WHERE used_at < now() - interval '1 day')
       INSERT INTO used_nonces (nonce) VALUES ($1) ON CONFLICT (nonce) DO NOTHING RETURNING nonce`,
      [nonce],
    );
    return rows.length === 1;
  }

  async signingKeys(): Promise<StoredSigningKey[]> {
    const rows = await this.run<{ kid: string; public_jwk: string; private_jwk: string; created_at: Date | string; retired_at: Date | string | null }>(
      `SELECT kid, public_jwk, private_jwk, created_at, retired_at FROM signing_keys ORDER BY created_at DESC`,
    );
    return rows.map((r) => ({
      kid: r.kid,
      publicJwk: r.public_jwk,
      privateJwk: r.private_jwk,
      createdAt: new Date(r.created_at),
      ...(r.retired_at ? { retiredAt: new Date(r.retired_at) } : {}),
    }));
  }

  async addSigningKey(key: Omit<StoredSigningKey, 'createdAt' | 'retiredAt'>, options: { rotate: boolean }): Promise<boolean> {
    const insert = `INSERT INTO signing_keys (kid, public_jwk, private_jwk) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING kid`;
    const params = [key.kid, key.publicJwk, key.privateJwk];
    if (!options.rotate) return (await this.run(insert, params)).length === 1;
    try {
      await this.ensureSchema();
      return await this.db.transaction(async (tx) => {
        await tx.query(`UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL`);
        return (await tx.query(insert, params)).length === 1;
      });
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async createRegistration(id: string, expiresAt: Date): Promise<void> {
    await this.run(`INSERT INTO registrations (id, expires_at) VALUES ($1, $2)`, [id, expiresAt]);
  }

  async registration(id: string): Promise<{ id: string; createdAt: Date; expiresAt: Date } | undefined> {
    const rows = await this.run<{ id: string; created_at: Date | string; expires_at: Date | string }>(
      `SELECT id, created_at, expires_at FROM registrations WHERE id = $1`,
      [id],
    );
    const r = rows[0];
    return r && { id: r.id, createdAt: new Date(r.created_at), expiresAt: new Date(r.expires_at) };
  }

  async revokeToken(jti: string, expiresAt: Date): Promise<void> {
    await this.run(
      `WITH expired AS (DELETE FROM revoked_tokens WHERE expires_at < now())
       INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING`,
      [jti, expiresAt],
    );
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.run(`SELECT 1 FROM revoked_tokens WHERE jti = $1`, [jti])).length > 0;
  }

  async issueProofNonce(r: { nonce: string; route: string; client: string; issuedAt: Date; expiresAt: Date; budget: number }): Promise<IssuedNonce> {
    // Reuse the client's newest open nonce once its budget is used up; insert a new one otherwise.
    const rows = await this.run<{ nonce: string; issued_at: Date | string; expires_at: Date | string }>(
      `WITH open_nonces AS (
         SELECT nonce, issued_at, expires_at FROM proof_nonces WHERE client = $3 AND route = $2 AND expires_at >= now()
       ),
       inserted AS (
         INSERT INTO proof_nonces (nonce, route, client, issued_at, expires_at)
         SELECT $1, $2, $3, $6, $4 WHERE (SELECT count(*) FROM open_nonces) < $5
         RETURNING nonce, issued_at, expires_at
       )
       SELECT nonce, issued_at, expires_at FROM inserted
       UNION ALL (SELECT nonce, issued_at, expires_at FROM open_nonces WHERE NOT EXISTS (SELECT 1 FROM inserted) ORDER BY issued_at DESC LIMIT 1)`,
      [r.nonce, r.route, r.client, r.expiresAt, r.budget, r.issuedAt],
    );
    const row = rows[0]!;
    return { nonce: row.nonce, issuedAt: new Date(row.issued_at), expiresAt: new Date(row.expires_at) };
  }

  async proofNonceOpen(nonce: string, route: string): Promise<boolean> {
    return (await this.run(`SELECT 1 FROM proof_nonces WHERE nonce = $1 AND route = $2 AND expires_at >= now()`, [nonce, route])).length === 1;
  }

  async holdProofNonce(nonce: string, route: string, holdMs: number): Promise<boolean> {
    const rows = await this.run(
      `UPDATE proof_nonces SET held_until = now() + $3 * interval '1 millisecond'
       WHERE nonce = $1 AND route = $2 AND expires_at >= now() AND (held_until IS NULL OR held_until < now()) RETURNING nonce`,
      [nonce, route, holdMs],
    );
    return rows.length === 1;
  }

  async releaseProofNonce(nonce: string): Promise<void> {
    await this.run(`UPDATE proof_nonces SET held_until = NULL WHERE nonce = $1`, [nonce]);
  }

  async consumeProofNonce(nonce: string): Promise<void> {
    await this.run(`DELETE FROM proof_nonces WHERE nonce = $1`, [nonce]);
  }

  async hitRateLimit(bucket: string, client: string, windowSeconds: number): Promise<{ hits: number; resetAt: Date }> {
    const [row] = await this.run<{ hits: number; window_start: Date | string }>(
      // The window opens at the client's first request and reopens at the first one after it ends.
      `INSERT INTO rate_limits AS r (bucket, client, window_start, hits) VALUES ($1, $2, now(), 1)
       ON CONFLICT (bucket, client) DO UPDATE SET
         window_start = CASE WHEN r.window_start > now() - make_interval(secs => $3::double precision) THEN r.window_start ELSE now() END,
         hits = CASE WHEN r.window_start > now() - make_interval(secs => $3::double precision) THEN r.hits + 1 ELSE 1 END
       RETURNING hits, window_start`,
      [bucket, client, windowSeconds],
    );
    return { hits: Number(row!.hits), resetAt: new Date(new Date(row!.window_start).getTime() + windowSeconds * 1000) };
  }

  async claimIdempotency(c: { id: string; paymentKey: string; requestDigest: string; expiresAt: Date }): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }> {
    const inserted = await this.run(
      `WITH expired AS (DELETE FROM idempotency WHERE id = $1 AND expires_at < now())
       INSERT INTO idempotency (id, payment_key, request_digest, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [c.id, c.paymentKey, c.requestDigest, c.expiresAt],
    );
    if (inserted.length === 1) return { claimed: true };
    const [row] = await this.run<{ payment_key: string; request_digest: string; response: string | null; settlement: string | null }>(
      `SELECT payment_key, request_digest, response, settlement FROM idempotency WHERE id = $1`,
      [c.id],
    );
    // Released between the insert and this read: in flight as far as the caller can tell.
    if (!row) return { claimed: false, record: { paymentKey: c.paymentKey, requestDigest: c.requestDigest } };
    return {
      claimed: false,
      record: { paymentKey: row.payment_key, requestDigest: row.request_digest, ...(row.response !== null ? { response: row.response } : {}), ...(row.settlement !== null ? { settlement: row.settlement } : {}) },
    };
  }

  async completeIdempotency(id: string, response: string, settlement: string): Promise<void> {
    await this.run(`UPDATE idempotency SET response = $2, settlement = $3 WHERE id = $1`, [id, response, settlement]);
  }

  async releaseIdempotency(id: string): Promise<void> {
    await this.run(`DELETE FROM idempotency WHERE id = $1 AND response IS NULL`, [id]);
  }

  async purgeExpired(): Promise<Record<string, number>> {
    const purge = async (sql: string) => (await this.run(`${sql} RETURNING 1`)).length;
    return {
      registrations: await purge(`DELETE FROM registrations WHERE expires_at < now()`),
      proof_nonces: await purge(`DELETE FROM proof_nonces WHERE expires_at < now()`),
      revoked_tokens: await purge(`DELETE FROM revoked_tokens WHERE expires_at < now()`),
      used_nonces: await purge(`DELETE FROM used_nonces WHERE used_at < now() - interval '1 day'`),
      // Windows are at most a day long (see the rate-limit buckets).
      rate_limits: await purge(`DELETE FROM rate_limits WHERE window_start < now() - interval '1 day'`),
      idempotency: await purge(`DELETE FROM idempotency WHERE expires_at < now()`),
      stored_responses: await purge(`UPDATE payments SET response = NULL WHERE response IS NOT NULL AND redeemable_until < now()`),
      analytics_executions: await purge(`DELETE FROM analytics_executions WHERE expires_at < now()`),
    };
  }

  async addSavedQuery(q: { name: string; description: string; sql: string }): Promise<SavedQueryRecord> {
    const [row] = await this.run<SavedQueryRow>(
      `INSERT INTO analytics_saved_queries (name, description, sql) VALUES ($1, $2, $3) RETURNING id, name, description, sql, created_at`,
      [q.name, q.description, q.sql],
    );
    return toSavedQuery(row!);
  }

  async savedQueries(): Promise<SavedQueryRecord[]> {
    return (await this.run<SavedQueryRow>(`SELECT id, name, description, sql, created_at FROM analytics_saved_queries ORDER BY id`)).map(toSavedQuery);
  }

  async removeSavedQuery(id: number): Promise<boolean> {
    return (await this.run(`DELETE FROM analytics_saved_queries WHERE id = $1 RETURNING id`, [id])).length === 1;
  }

  async saveAnalyticsExecution(e: AnalyticsExecutionRecord): Promise<void> {
    await this.run(
      `INSERT INTO analytics_executions (id, chain, network, sql, saved_query_id, indexed_block, result, executed_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [e.id, e.chain, e.network, e.sql, e.savedQueryId, e.indexedBlock, e.result, e.executedAt, e.expiresAt],
    );
  }

  async analyticsExecution(id: string): Promise<AnalyticsExecutionRecord | undefined> {
    const [row] = await this.run<{
      id: string;
      chain: string;
      network: string;
      sql: string;
      saved_query_id: number | null;
      indexed_block: string | number | null;
      result: string;
      executed_at: Date | string;
      expires_at: Date | string;
    }>(`SELECT id, chain, network, sql, saved_query_id, indexed_block, result, executed_at, expires_at FROM analytics_executions WHERE id = $1 AND expires_at > now()`, [id]);
    if (!row) return undefined;
    return {
      id: row.id,
      chain: row.chain,
      network: row.network,
      sql: row.sql,
      savedQueryId: row.saved_query_id,
      indexedBlock: row.indexed_block === null ? null : Number(row.indexed_block),
      result: row.result,
      executedAt: new Date(row.executed_at),
      expiresAt: new Date(row.expires_at),
    };
  }

  async addHypothesis(h: NewHypothesis): Promise<Hypothesis> {
    const [row] = await this.run<HypothesisRow>(
      `INSERT INTO hypotheses (hypothesis, public_claim, observation, opportunity, target, status, horizon_days, lens)
       VALUES ($1, $2, $3, $4, $5, 'registered', $6, $7) RETURNING ${HYPOTHESIS_COLUMNS}`,
      [h.hypothesis, h.publicClaim, h.observation, h.opportunity, h.target, h.horizonDays, h.lens],
    );
    return toHypothesis(row!);
  }

  async closeHypothesis(
    id: number,
    status: 'evaluated' | 'abandoned',
    result: { verdict: string | null; measuredValue: string | null },
  ): Promise<Hypothesis | { conflict: Hypothesis['status'] } | undefined> {
    const [updated] = await this.run<HypothesisRow>(
      `UPDATE hypotheses SET status = $2, verdict = $3, measured_value = $4, closed_at = now()
       WHERE id = $1 AND status = 'registered' RETURNING ${HYPOTHESIS_COLUMNS}`,
      [id, status, result.verdict, result.measuredValue],
    );
    if (updated) return toHypothesis(updated);
    const [existing] = await this.run<{ status: Hypothesis['status'] }>(`SELECT status FROM hypotheses WHERE id = $1`, [id]);
    return existing ? { conflict: existing.status } : undefined;
  }

  async hypotheses(closedLimit: number): Promise<{ open: Hypothesis[]; closed: Hypothesis[]; openTotal: number; closedTotal: number }> {
    const open = await this.run<HypothesisRow>(`SELECT ${HYPOTHESIS_COLUMNS} FROM hypotheses WHERE status = 'registered' ORDER BY id`);
    const closed = await this.run<HypothesisRow>(
      `SELECT ${HYPOTHESIS_COLUMNS} FROM hypotheses WHERE status <> 'registered' ORDER BY closed_at DESC, id DESC LIMIT $1`,
      [closedLimit],
    );
    const [count] = await this.run<{ n: string }>(`SELECT count(*)::text AS n FROM hypotheses WHERE status <> 'registered'`);
    return { open: open.map(toHypothesis), closed: closed.map(toHypothesis), openTotal: open.length, closedTotal: Number(count?.n ?? 0) };
  }

  async addTelemetry(deltas: CounterDelta[], payers: string[]): Promise<void> {
    if (deltas.length === 0 && payers.length === 0) return;
    try {
      await this.ensureSchema();
      await this.db.transaction(async (tx) => {
        for (const d of deltas) {
          await tx.query(
            `INSERT INTO telemetry_counters (metric, dimension, value) VALUES ($1, $2, $3)
             ON CONFLICT (metric, dimension) DO UPDATE SET value = telemetry_counters.value + EXCLUDED.value`,
            [d.metric, d.dimension, d.value],
          );
        }
        for (const payer of payers) {
          await tx.query(`INSERT INTO telemetry_payers (payer) VALUES ($1) ON CONFLICT (payer) DO NOTHING`, [payer.toLowerCase()]);
        }
      });
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async telemetry(): Promise<TelemetrySnapshot> {
    const counters: TelemetrySnapshot['counters'] = {};
    for (const row of await this.run<{ metric: string; dimension: string; value: string }>(
      `SELECT metric, dimension, value::text AS value FROM telemetry_counters`,
    )) {
      (counters[row.metric] ??= {})[row.dimension] = Number(row.value);
    }
    const [payers] = await this.run<{ n: string }>(`SELECT count(*)::text AS n FROM telemetry_payers`);
    const [since] = await this.run<{ value: string }>(`SELECT value FROM telemetry_meta WHERE key = 'observing_since'`);
    return { counters, uniquePayers: Number(payers?.n ?? 0), observingSince: since ? new Date(since.value) : undefined };
  }

  async close(): Promise<void> {
    await this.confirmations?.flush();
    return this.db.close();
  }
}

/**
 * Delivery confirmations gathered for up to CONFIRM_WINDOW_MS (or CONFIRM_MAX keys) and written by
 * one statement; each caller learns that statement's outcome. A confirmation only narrows how long a
 * response counts as in delivery: written a few milliseconds later, or lost with the process, the
 * payment stays redeemable once after the confirm limit, exactly as if the process had stopped
 * before the response was written.
 */
class DeliveryConfirmations {
  private keys = new Set<string>();
  private waiters: { resolve(): void; reject(error: unknown): void }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly write: (keys: string[]) => Promise<unknown>) {}

  add(key: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.keys.add(key);
      this.waiters.push({ resolve, reject });
      if (this.keys.size >= CONFIRM_MAX) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), CONFIRM_WINDOW_MS);
    });
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.keys.size === 0) return;
    const keys = [...this.keys];
    const waiters = this.waiters;
    this.keys = new Set();
    this.waiters = [];
    try {
      await this.write(keys);
      for (const w of waiters) w.resolve();
    } catch (error) {
      for (const w of waiters) w.reject(error);
    }
  }
}

const CONFIRM_WINDOW_MS = 10;
const CONFIRM_MAX = 100;

interface SavedQueryRow {
  id: number;
  name: string;
  description: string;
  sql: string;
  created_at: Date | string;
}

function toSavedQuery(row: SavedQueryRow): SavedQueryRecord {
  return { id: Number(row.id), name: row.name, description: row.description, sql: row.sql, createdAt: new Date(row.created_at) };
}

const HYPOTHESIS_COLUMNS = `id, created_at, hypothesis, public_claim, observation, opportunity, target, status, verdict, measured_value, horizon_days, lens`;

interface HypothesisRow {
  id: string | number;
  created_at: Date | string;
  hypothesis: string;
  public_claim: string;
  observation: string;
  opportunity: string | null;
  target: string;
  status: Hypothesis['status'];
  verdict: string | null;
  measured_value: string | null;
  horizon_days: number;
  lens: string;
}

function toHypothesis(r: HypothesisRow): Hypothesis {
  return {
    id: Number(r.id),
    createdAt: new Date(r.created_at),
    hypothesis: r.hypothesis,
    publicClaim: r.public_claim,
    observation: r.observation,
    opportunity: r.opportunity,
    target: r.target,
    status: r.status,
    verdict: r.verdict,
    measuredValue: r.measured_value,
    horizonDays: Number(r.horizon_days),
    lens: r.lens,
  };
}

function toLedgerEntry(r: LedgerRow): LedgerEntry {
  return {
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
    ...(r.missing_on_chain_at ? { missingOnChainAt: new Date(r.missing_on_chain_at) } : {}),
  };
}

function unavailable(error: unknown): Error {
  if (error instanceof StoreUnavailableError) return error;
  // Our own invariant violations are not outages: keep them visible as they are.
  if (error instanceof SettlementRecordedError) return error;
  return new StoreUnavailableError(`store unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
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
