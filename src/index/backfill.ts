/**
 * Backfill: ingests blocks `from`..`to` of a chain (replacing what the index already had for them),
 * a batch per transaction, reporting progress. Blocks above the follower's head are left to the
 * follower; a backfill that reaches down below the follower's first block extends it, so the index
 * stays one contiguous range.
 */
import { decodeBundle, emptyRows, rowCount } from './decode.ts';
import type { IndexDatabase } from './database.ts';
import type { BlockSource } from './source.ts';

export interface BackfillProgress {
  chain: string;
  from: string;
  to: string;
  /** Blocks written so far. */
  blocks: number;
  total: number;
  rows: number;
  elapsedMs: number;
  blocksPerSecond: number;
  rowsPerSecond: number;
  /** Seconds left at the current pace; null before the first batch. */
  etaSeconds: number | null;
  state: 'running' | 'done' | 'failed';
  error?: string;
}

export interface BackfillOptions {
  chain: string;
  from: bigint;
  /** Default: the follower's head (or the chain's head when the chain is not followed). */
  to?: bigint;
  batchBlocks: number;
}

export function progressOf(p: { chain: string; from: bigint; to: bigint; blocks: number; rows: number; startedAt: number; state: BackfillProgress['state']; error?: string }): BackfillProgress {
  const elapsedMs = Math.max(1, Date.now() - p.startedAt);
  const total = Number(p.to - p.from + 1n);
  const blocksPerSecond = (p.blocks * 1000) / elapsedMs;
  const rowsPerSecond = (p.rows * 1000) / elapsedMs;
  return {
    chain: p.chain,
    from: p.from.toString(),
    to: p.to.toString(),
    blocks: p.blocks,
    total,
    rows: p.rows,
    elapsedMs,
    blocksPerSecond: Math.round(blocksPerSecond * 10) / 10,
    rowsPerSecond: Math.round(rowsPerSecond * 10) / 10,
    etaSeconds: p.blocks > 0 ? Math.ceil((total - p.blocks) / blocksPerSecond) : null,
    state: p.state,
    ...(p.error ? { error: p.error } : {}),
  };
}

/** Runs a backfill to its end; `report` is called after every batch (and at the end). */
export async function backfill(db: IndexDatabase, source: BlockSource, options: BackfillOptions, report: (progress: BackfillProgress) => void, signal?: AbortSignal): Promise<BackfillProgress> {
  const { chain, batchBlocks } = options;
  const cursor = await db.cursor(chain);
  const chainHead = await source.head();
  let to = options.to ?? (cursor && cursor.headBlock >= cursor.startBlock ? cursor.headBlock : chainHead);
  if (to > chainHead) to = chainHead;
  if (cursor && cursor.headBlock >= cursor.startBlock && to > cursor.headBlock) to = cursor.headBlock;
  const from = options.from;
  if (from > to) throw new Error(`nothing to backfill: from ${from} is above ${to} (the ${cursor ? "follower's head" : "chain's head"})`);
  const state = { chain, from, to, blocks: 0, rows: 0, startedAt: Date.now(), state: 'running' as BackfillProgress['state'] };
  report(progressOf(state));
  for (let start = from; start <= to; start += BigInt(batchBlocks)) {
    if (signal?.aborted) throw new Error('backfill stopped');
    const end = start + BigInt(batchBlocks) - 1n < to ? start + BigInt(batchBlocks) - 1n : to;
    const bundles = await source.fetch(start, end);
    const rows = emptyRows();
    for (const bundle of bundles) decodeBundle(bundle, rows);
    await db.writeBlocks(chain, rows, { from: start, to: end, replace: true });
    state.blocks += bundles.length;
    state.rows += rowCount(rows);
    report(progressOf(state));
  }
  // The follower's range now reaches down to `from` (when the backfill joined it).
  const now = await db.cursor(chain);
  if (now && from < now.startBlock && to + 1n >= now.startBlock) await db.setCursor({ ...now, startBlock: from });
  const done = progressOf({ ...state, state: 'done' });
  report(done);
  return done;
}

/** One progress line: `base 1,200/5,000 blocks (24%) · 850 blocks/s · 3,400 rows/s · ETA 4 s`. */
export function progressLine(p: BackfillProgress): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const percent = p.total > 0 ? Math.floor((p.blocks * 100) / p.total) : 100;
  const eta = p.state === 'done' ? 'done' : p.etaSeconds === null ? 'ETA …' : `ETA ${formatSeconds(p.etaSeconds)}`;
  return `${p.chain} ${n(p.blocks)}/${n(p.total)} blocks (${percent}%) · ${n(p.blocksPerSecond)} blocks/s · ${n(p.rowsPerSecond)} rows/s · ${eta}`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
