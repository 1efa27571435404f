import type { Channel, ChannelStorage, ChannelUpdateResult } from '@x402/evm/batch-settlement/server';
import type { SqlDriver } from './sql-store.ts';

/**
 * What the channel storage needs of the store (SqlStore.channelStorage() provides it): statements
 * and transactions that wait for the schema and fail as StoreUnavailableError when the database
 * does; an error thrown by a transaction's own code (not by one of its statements) passes through
 * unchanged, after the rollback.
 */
export interface ChannelSql {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  transaction<R>(fn: (tx: Pick<SqlDriver, 'query'>) => Promise<R>): Promise<R>;
}

export interface ChannelListOptions {
  /** At most this many channels (default: all of them, as the SDK's channel manager expects). */
  limit?: number;
  /** Only channels whose id sorts after this one: the last id of the previous page. */
  after?: string;
}

export interface ChannelTotals {
  channels: number;
  /** Sum of `chargedCumulativeAmount` over all channels (atomic units). */
  charged: bigint;
  /** Sum of `totalClaimed` over all channels (atomic units). */
  claimed: bigint;
}

/** The SDK's ChannelStorage, plus paging and totals. */
export interface BatchChannelStorage extends ChannelStorage {
  /** Channels ordered by id (lowercase hex), as the SDK's file and Redis storages list them. */
  list(options?: ChannelListOptions): Promise<Channel[]>;
  channelTotals(): Promise<ChannelTotals>;
}

/** The SDK's message for a channel id that is not `0x` and 64 hex digits (its normalizeChannelId is not exported). */
export const ErrInvalidChannelId = 'invalid_batch_settlement_evm_channel_id_invalid';

const CHANNEL_ID = /^0x[0-9a-fA-F]{64}$/;

/** Exclusive mode keeps at most this many channel records in memory. */
const MAX_CACHED_CHANNELS = 10_000;

/** The row key of a channel, as the SDK keys its storages: validated, lowercased. */
export function normalizeChannelId(channelId: string): string {
  if (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)) throw new Error(ErrInvalidChannelId);
  return channelId.toLowerCase();
}

/**
 * x402 batch-settlement channel state in percall's own database (table `batch_channels`), shared by
 * every instance on it: the SQL counterpart of the SDK's InMemory/File/Redis channel storages.
 *
 * `updateChannel` holds the row (`SELECT … FOR UPDATE`) from reading `current` to writing the
 * callback's result, so no other update of the channel, on any instance, interleaves; a channel that
 * does not exist yet is guarded by a transaction-scoped advisory lock on its id instead, so two
 * instances creating it serialise and the second sees the first's row. Statuses follow the SDK's
 * InMemoryChannelStorage exactly: returning `current` itself is 'unchanged' (nothing written; an
 * equal copy is 'updated'), returning undefined is 'deleted' when there was a channel and
 * 'unchanged' when there was none.
 *
 * A channel is kept as its JSON: what `get` returns equals what was written, except that keys whose
 * value is `undefined` (the SDK writes `pendingRequest: undefined`) come back absent, as from the
 * SDK's file and Redis storages. Unlike the in-memory storage, every read returns a fresh object, so
 * mutating `current` in the callback and returning it writes nothing.
 */
export class SqlChannelStorage implements BatchChannelStorage {
  /** Exclusive mode: each channel's record as last written (null: known absent). */
  private readonly cache = new Map<string, string | null>();
  /** Exclusive mode: the tail of each channel's queue of updates. */
  private readonly locks = new Map<string, Promise<unknown>>();

  /**
   * `exclusive`: this process is the database's only user (the embedded store). Updates of a channel
   * are then serialised in process and each change is one statement, records are read from memory
   * after the first read; the row locks of the shared mode would only cost statements here.
   */
  constructor(
    private readonly sql: ChannelSql,
    private readonly exclusive = false,
  ) {}

  async get(channelId: string): Promise<Channel | undefined> {
    const id = normalizeChannelId(channelId);
    const record = this.exclusive ? await this.cachedRecord(id) : await this.readRecord(id);
    return record ? parseChannel(record) : undefined;
  }

  private async readRecord(id: string): Promise<string | undefined> {
    const rows = await this.sql.query<{ record: string }>(`SELECT record FROM batch_channels WHERE channel_id = $1`, [id]);
    return rows[0]?.record;
  }

  private async cachedRecord(id: string): Promise<string | undefined> {
    const cached = this.cache.get(id);
    if (cached !== undefined) return cached ?? undefined;
    const record = await this.readRecord(id);
    // Bounded: past this many channels, start over (records are read again as they are used).
    if (this.cache.size >= MAX_CACHED_CHANNELS) this.cache.clear();
    this.cache.set(id, record ?? null);
    return record;
  }

  async list(options: ChannelListOptions = {}): Promise<Channel[]> {
    const { limit, after } = options;
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    const rows = await this.sql.query<{ record: string }>(
      `SELECT record FROM batch_channels WHERE ($1::text IS NULL OR channel_id > $1::text) ORDER BY channel_id LIMIT $2`,
      [after?.toLowerCase() ?? null, limit ?? null],
    );
    return rows.map((r) => parseChannel(r.record));
  }

  async updateChannel(channelId: string, update: (current: Channel | undefined) => Channel | undefined): Promise<ChannelUpdateResult> {
    const id = normalizeChannelId(channelId);
    if (this.exclusive) return this.serially(id, () => this.updateExclusive(id, update));
    return this.sql.transaction(async (tx) => {
      const select = `SELECT record FROM batch_channels WHERE channel_id = $1 FOR UPDATE`;
      let rows = await tx.query<{ record: string }>(select, [id]);
      if (rows.length === 0) {
        // No row to lock: serialise with whoever else is creating it, then look again (it may have
        // been committed while we waited for the lock).
        await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [id]);
        rows = await tx.query<{ record: string }>(select, [id]);
      }
      const current = rows[0] && parseChannel(rows[0].record);
      const next = update(current);
      if (next === current) return { channel: current, status: 'unchanged' };
      if (!next) {
        if (!current) return { channel: undefined, status: 'unchanged' };
        await tx.query(`DELETE FROM batch_channels WHERE channel_id = $1`, [id]);
        return { channel: undefined, status: 'deleted' };
      }
      const params = [id, JSON.stringify(next), ...typedColumns(next)];
      if (current) {
        await tx.query(
          `UPDATE batch_channels SET record = $2, payer = $3, charged_cumulative = $4, total_claimed = $5, balance = $6,
                  last_request_ms = $7, withdraw_requested_at = $8, updated_at = now()
           WHERE channel_id = $1`,
          params,
        );
      } else {
        await tx.query(
          `INSERT INTO batch_channels (channel_id, record, payer, charged_cumulative, total_claimed, balance, last_request_ms, withdraw_requested_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          params,
        );
      }
      return { channel: next, status: 'updated' };
    });
  }

  /** Exclusive mode: the same statuses as the shared mode, with one statement per change. */
  private async updateExclusive(id: string, update: (current: Channel | undefined) => Channel | undefined): Promise<ChannelUpdateResult> {
    const record = await this.cachedRecord(id);
    const current = record ? parseChannel(record) : undefined;
    const next = update(current);
    if (next === current) return { channel: current, status: 'unchanged' };
    try {
      if (!next) {
        if (!current) return { channel: undefined, status: 'unchanged' };
        await this.sql.query(`DELETE FROM batch_channels WHERE channel_id = $1`, [id]);
        this.cache.set(id, null);
        return { channel: undefined, status: 'deleted' };
      }
      const json = JSON.stringify(next);
      await this.sql.query(
        `INSERT INTO batch_channels (channel_id, record, payer, charged_cumulative, total_claimed, balance, last_request_ms, withdraw_requested_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (channel_id) DO UPDATE SET record = $2, payer = $3, charged_cumulative = $4, total_claimed = $5, balance = $6,
           last_request_ms = $7, withdraw_requested_at = $8, updated_at = now()`,
        [id, json, ...typedColumns(next)],
      );
      this.cache.set(id, json);
      return { channel: next, status: 'updated' };
    } catch (error) {
      // Whether the statement took effect is unknown: read the row again next time.
      this.cache.delete(id);
      throw error;
    }
  }

  /** Runs `work` after every earlier update of the channel has finished. */
  private serially<T>(id: string, work: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(id) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    this.locks.set(id, tail);
    void tail.then(() => this.locks.get(id) === tail && this.locks.delete(id));
    return run;
  }

  /** Totals over all channels, for /metrics: what was charged against what was claimed on chain. */
  async channelTotals(): Promise<ChannelTotals> {
    const [row] = await this.sql.query<{ channels: string; charged: string; claimed: string }>(
      `SELECT count(*)::text AS channels, COALESCE(sum(charged_cumulative), 0)::text AS charged, COALESCE(sum(total_claimed), 0)::text AS claimed
       FROM batch_channels`,
    );
    return { channels: Number(row?.channels ?? 0), charged: BigInt(row?.charged ?? 0), claimed: BigInt(row?.claimed ?? 0) };
  }
}

function parseChannel(record: string): Channel {
  return JSON.parse(record) as Channel;
}

/** Copies of fields for queries; NULL where a field is not what the SDK's type promises. */
function typedColumns(c: Channel): unknown[] {
  const payer = (c.channelConfig as Partial<Channel['channelConfig']> | undefined)?.payer;
  return [
    typeof payer === 'string' ? payer.toLowerCase() : null,
    amount(c.chargedCumulativeAmount),
    amount(c.totalClaimed),
    amount(c.balance),
    integer(c.lastRequestTimestamp),
    integer(c.withdrawRequestedAt),
  ];
}

function amount(value: unknown): string | null {
  return typeof value === 'string' && /^[0-9]{1,78}$/.test(value) ? value : null;
}

function integer(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}
