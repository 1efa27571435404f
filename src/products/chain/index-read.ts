/**
 * What the index-backed chain products share: the index of the chain asked for (or the problem
 * that says why not), their SQL run through it (ctx.index, the same engine and limits as
 * analytics-query) with every failure a problem that is never charged, SQL literals built only from
 * checked values, and the indexed range every answer states.
 *
 * Amounts are read as `VARCHAR` (`sum(value)::VARCHAR`), so they reach the answer as exact decimal
 * strings. A uint256 of 2^127 or more is NULL in the index's `value` column (schema.ts): such a
 * transfer is counted, but left out of the sums.
 */
import { z } from 'zod';
import { ProductInputError, UpstreamError, CHAIN_NOT_CONFIGURED, type ChainIndex, type ProductContext, type QueryResult } from '../kit/index.ts';

/** The index of `chain`, and the network behind it. */
export interface IndexedChain {
  index: ChainIndex;
  chain: string;
  network: string;
}

/** The index of `chain`: 503 when this instance runs none, 422 `chain_not_configured` when it does not index that chain. */
export function indexedChain(ctx: ProductContext, chain: string, field = 'chain'): IndexedChain {
  const index = ctx.index;
  if (!index) throw new UpstreamError('the block index is not running on this instance', 503);
  const network = index.chains().get(chain);
  if (!network) {
    const indexed = [...index.chains().keys()].join(', ') || 'none';
    throw new ProductInputError(`chain ${chain} is not indexed on this instance (indexed: ${indexed})`, 422, field, CHAIN_NOT_CONFIGURED);
  }
  return { index, chain, network };
}

/**
 * The rows of one statement of ours. Anything but a complete result is our failure, never the
 * caller's: a busy index 503, a statement over the time limit 504, anything else (the index gone,
 * a refusal, a result cut off by the row cap) 502.
 */
export async function indexRows(on: IndexedChain, sql: string, signal?: AbortSignal): Promise<unknown[][]> {
  const outcome = await on.index.query(on.chain, sql, signal);
  if (outcome.kind === 'unavailable') throw new UpstreamError(outcome.message, outcome.busy ? 503 : 502);
  if (outcome.kind === 'refused') {
    if (outcome.code === 'query_timeout') throw new UpstreamError(`the block index did not answer in time (${outcome.message})`, 504);
    throw new UpstreamError(`the block index could not answer (${outcome.message})`, 502);
  }
  if (outcome.result.truncated) throw new UpstreamError('the block index cut the answer off (its row or size cap, ANALYTICS_MAX_ROWS / ANALYTICS_MAX_RESULT_BYTES, is below what this product reads)', 502);
  return outcome.result.rows;
}

/** One row of rows by column name. */
export function named(result: Pick<QueryResult, 'columns'>, row: unknown[]): Record<string, unknown> {
  return Object.fromEntries(result.columns.map((c, i) => [c.name, row[i]]));
}

// ---- SQL literals, from checked values only ----

const ADDRESS = /^0x[0-9a-f]{40}$/;

/** An address as a SQL string literal (lowercase, as the index keeps addresses). */
export function sqlAddress(address: string): string {
  const lower = address.toLowerCase();
  if (!ADDRESS.test(lower)) throw new Error(`not an address: ${address}`);
  return `'${lower}'`;
}

/** A non-negative integer as a SQL literal. */
export function sqlInt(value: number | bigint): string {
  const n = BigInt(value);
  if (n < 0n) throw new Error(`not a non-negative integer: ${value}`);
  return n.toString();
}

/** A time as a SQL TIMESTAMP literal (UTC, as the index keeps times). */
export function sqlTime(time: Date): string {
  if (Number.isNaN(time.getTime())) throw new Error('not a time');
  return `TIMESTAMP '${time.toISOString().replace('T', ' ').replace('Z', '')}'`;
}

// ---- The indexed range ----

/** The blocks the index holds for a chain, as every answer states them. */
export interface IndexedRange {
  /** First indexed block; null when nothing is indexed yet. */
  from_block: number | null;
  /** Time of the first indexed block. */
  from_time: string | null;
  /** Last indexed block (the answer reads nothing newer). */
  to_block: number | null;
  /** Time of the last indexed block. */
  to_time: string | null;
  /** Whether the index starts at the chain's genesis, so balances derived from its transfers are complete. */
  from_genesis: boolean;
}

export const indexedRangeSchema = () =>
  z
    .object({
      from_block: z.int().min(0).nullable().describe('First indexed block'),
      from_time: isoTime().nullable().describe('Its time'),
      to_block: z.int().min(0).nullable().describe('Last indexed block when read: nothing newer is counted'),
      to_time: isoTime().nullable().describe('Its time'),
      from_genesis: z.boolean().describe('The index reaches back to block 0 (balances from transfers are complete)'),
    })
    .describe('The index range this answer was computed from (times UTC)');

/** The indexed range; an answer reads only blocks up to its `to_block`, so each of its statements sees the same chain. */
export async function indexedRange(on: IndexedChain, signal?: AbortSignal): Promise<IndexedRange> {
  const [row] = await indexRows(on, 'SELECT min(number)::BIGINT, min(time), max(number)::BIGINT, max(time) FROM blocks', signal);
  const [from, fromTime, to, time] = row ?? [null, null, null, null];
  return {
    from_block: from === null ? null : Number(from),
    from_time: (fromTime as string | null) ?? null,
    to_block: to === null ? null : Number(to),
    to_time: (time as string | null) ?? null,
    from_genesis: from !== null && Number(from) === 0,
  };
}

/** The index holds no block yet: our side (it is still starting), never charged. */
export function requireIndexed(range: IndexedRange): asserts range is IndexedRange & { from_block: number; from_time: string; to_block: number; to_time: string } {
  if (range.to_block === null) throw new UpstreamError('the block index holds no block yet; retry in a moment', 503);
}

// ---- Output fields ----

/** A UTC time as the index answers it, ISO 8601 (a short pattern: the 402 carries the output schema). */
export const isoTime = () => z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

export const atomicString = () => z.string().regex(/^\d+$/);
export const signedAtomicString = () => z.string().regex(/^-?\d+$/);
export const lowerAddress = () => z.string().regex(/^0x[0-9a-f]{40}$/).describe('EVM address, lowercase as the index keeps it');

/** A decimal string as read from the index, or "0" for an empty sum. */
export const amount = (value: unknown): string => (value === null || value === undefined ? '0' : String(value));

/** `part / whole` as a decimal string with 6 places, rounded down, exact (bigint arithmetic). */
export function ratio(part: bigint, whole: bigint): string {
  if (whole <= 0n) return '0';
  const scaled = (part * 1_000_000n) / whole;
  const whole_ = scaled / 1_000_000n;
  const fraction = (scaled % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole_}.${fraction}` : whole_.toString();
}

/** Whether the index covers everything since `since` (it starts at genesis, or before that time). */
export function covers(range: IndexedRange, since: Date): boolean {
  return range.from_genesis || (range.from_time !== null && Date.parse(range.from_time) <= since.getTime());
}

export const ratioString = () => z.string().regex(/^\d+(\.\d{1,6})?$/);
