/**
 * Follows one chain's head into the index: from the cursor (resuming after a restart) to the latest
 * block, a batch per transaction. Reorg-safe: a fetched block whose parent hash is not the indexed
 * head's hash (or a head that went back) sends the index back to the last block both agree on,
 * within `reorgDepth`, and the blocks above it are ingested again.
 */
import { decodeBundle, emptyRows, rowCount } from './decode.ts';
import type { Cursor, IndexDatabase } from './database.ts';
import type { BlockSource } from './source.ts';

export interface FollowerOptions {
  chain: string;
  /** First block on the index's first start: a number, or `head` (the chain's head then). */
  startBlock: bigint | 'head';
  reorgDepth: number;
  batchBlocks: number;
  pollMs: number;
}

export interface FollowerEvents {
  /** A batch was written. */
  ingested?(event: { chain: string; from: bigint; to: bigint; rows: number; ms: number }): void;
  /** The index went back to `ancestor` (a reorg), dropping `dropped` blocks. */
  reorg?(event: { chain: string; ancestor: bigint; dropped: bigint }): void;
  /** The chain behind the index is not the one it was built from: it starts over. */
  reset?(event: { chain: string; reason: string }): void;
  error?(event: { chain: string; error: unknown }): void;
}

export class ChainFollower {
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private checkedOrigin = false;
  /** Head of the chain at the last poll. */
  latest: bigint | undefined;

  constructor(
    private readonly db: IndexDatabase,
    private readonly source: BlockSource,
    private readonly options: FollowerOptions,
    private readonly events: FollowerEvents = {},
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let advanced = false;
      try {
        advanced = await this.step();
        failures = 0;
      } catch (error) {
        failures++;
        this.events.error?.({ chain: this.options.chain, error });
      }
      if (!advanced && !this.stopped) await this.sleep(failures > 0 ? Math.min(30_000, this.options.pollMs * 2 ** Math.min(failures, 6)) : this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One round: a batch ingested or a reorg repaired (true), or nothing new (false). */
  async step(): Promise<boolean> {
    const { chain } = this.options;
    const latest = await this.source.head();
    this.latest = latest;
    let cursor = await this.db.cursor(chain);
    if (cursor && !this.checkedOrigin) cursor = await this.checkOrigin(cursor);
    if (!cursor) {
      const chainId = await this.source.chainId();
      const start = this.options.startBlock === 'head' ? latest : this.options.startBlock;
      cursor = { chain, chainId, startBlock: start, headBlock: start - 1n, headHash: null };
      await this.db.setCursor(cursor);
      this.checkedOrigin = true;
    }
    if (cursor.headBlock > latest) {
      // The chain went back below our head (e.g. a node that rewound): whatever is above its head is gone.
      await this.repair(cursor, latest);
      return true;
    }
    if (cursor.headBlock >= latest) return false;
    const from = cursor.headBlock + 1n;
    const to = latest < from + BigInt(this.options.batchBlocks) - 1n ? latest : from + BigInt(this.options.batchBlocks) - 1n;
    const started = Date.now();
    const bundles = await this.source.fetch(from, to);
    if (cursor.headHash !== null && bundles[0]!.block.parentHash.toLowerCase() !== cursor.headHash) {
      await this.repair(cursor, cursor.headBlock);
      return true;
    }
    for (let i = 1; i < bundles.length; i++) {
      // The chain changed while we fetched: fetch again next round.
      if (bundles[i]!.block.parentHash.toLowerCase() !== bundles[i - 1]!.block.hash.toLowerCase()) return true;
    }
    const rows = emptyRows();
    for (const bundle of bundles) decodeBundle(bundle, rows);
    const last = bundles[bundles.length - 1]!.block;
    await this.db.writeBlocks(chain, rows, { from, to, replace: false }, { ...cursor, headBlock: to, headHash: last.hash.toLowerCase() });
    this.events.ingested?.({ chain, from, to, rows: rowCount(rows), ms: Date.now() - started });
    return true;
  }

  /**
   * The first round after a start: is the chain behind the index still the one it was built from
   * (same chain id, same first block)? A dev chain started afresh is not: the index starts over.
   */
  private async checkOrigin(cursor: Cursor): Promise<Cursor | undefined> {
    const { chain } = this.options;
    const chainId = await this.source.chainId();
    let reason: string | undefined;
    if (chainId !== cursor.chainId) reason = `chain id ${chainId}, the index was built from ${cursor.chainId}`;
    else if (cursor.headBlock >= cursor.startBlock) {
      const stored = await this.db.blockHash(chain, cursor.startBlock);
      const actual = await this.source.blockHash(cursor.startBlock);
      if (stored && actual !== stored) reason = `block ${cursor.startBlock} is not the one indexed`;
    }
    this.checkedOrigin = true;
    if (!reason) return cursor;
    this.events.reset?.({ chain, reason });
    await this.db.reset(chain);
    return undefined;
  }

  /** Goes back to the newest block at or below `below` whose hash the chain still has, within the reorg depth. */
  private async repair(cursor: Cursor, below: bigint): Promise<void> {
    const { chain, reorgDepth } = this.options;
    const floor = cursor.headBlock - BigInt(reorgDepth) > cursor.startBlock - 1n ? cursor.headBlock - BigInt(reorgDepth) : cursor.startBlock - 1n;
    let ancestor = floor;
    let ancestorHash: string | null = floor >= cursor.startBlock ? ((await this.db.blockHash(chain, floor)) ?? null) : null;
    for (let n = below; n > floor; n--) {
      const stored = await this.db.blockHash(chain, n);
      if (stored && stored === (await this.source.blockHash(n))) {
        ancestor = n;
        ancestorHash = stored;
        break;
      }
    }
    // Deeper than reorgDepth: the last reorgDepth blocks are ingested again from the floor.
    await this.db.rewind(chain, ancestor, { ...cursor, headBlock: ancestor, headHash: ancestorHash });
    this.events.reorg?.({ chain, ancestor, dropped: cursor.headBlock - ancestor });
  }
}
