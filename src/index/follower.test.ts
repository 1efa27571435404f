import { afterEach, describe, expect, it } from 'vitest';
import { progressLine, progressOf, backfill } from './backfill.ts';
import { IndexDatabase } from './database.ts';
import type { BlockBundle } from './decode.ts';
import { ChainFollower } from './follower.ts';
import { safeErrorText } from './protocol.ts';
import { EXECUTION_ID, executionId } from './service.ts';
import { indexSettingsFromEnv } from './settings.ts';
import type { BlockSource } from './source.ts';

/** A chain in memory: block n's hash says which fork it is on, so a reorg changes hashes from a height on. */
class FakeChain implements BlockSource {
  blocks: BlockBundle[] = [];
  constructor(private readonly id = 31337) {}
  private hash(n: number, fork: string) {
    return `0x${fork.padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;
  }
  mine(count: number, fork = 'a'): void {
    for (let i = 0; i < count; i++) {
      const n = this.blocks.length;
      const parent = n === 0 ? `0x${'0'.repeat(64)}` : this.blocks[n - 1]!.block.hash;
      this.blocks.push({
        block: { number: `0x${n.toString(16)}`, hash: this.hash(n, fork), parentHash: parent, timestamp: `0x${(1_700_000_000 + n).toString(16)}`, gasUsed: '0x0', gasLimit: '0x1', miner: `0x${'0'.repeat(40)}`, transactions: [] },
        receipts: [],
      });
    }
  }
  /** Drops blocks above `height` (a revert). */
  revert(height: number): void {
    this.blocks.length = height + 1;
  }
  async chainId() {
    return this.id;
  }
  async head() {
    return BigInt(this.blocks.length - 1);
  }
  async blockHash(n: bigint) {
    return this.blocks[Number(n)]?.block.hash;
  }
  async fetch(from: bigint, to: bigint) {
    return this.blocks.slice(Number(from), Number(to) + 1);
  }
}

const options = { chain: 'base', startBlock: 0n as bigint | 'head', reorgDepth: 16, batchBlocks: 4, pollMs: 10 };
const open = () => IndexDatabase.open({ path: ':memory:', memoryLimit: '64MB', threads: 1, chains: ['base'] });
const hashes = async (db: IndexDatabase) => (await db.exclusive((w) => w.runAndReadAll('SELECT hash FROM base.blocks ORDER BY number'))).getRows().map((r) => r[0]);
async function catchUp(follower: ChainFollower): Promise<void> {
  for (let i = 0; i < 100 && (await follower.step()); i++);
}

let db: IndexDatabase | undefined;
afterEach(() => db?.close());

describe('following a chain', () => {
  it('ingests from the start block to the head in batches, and resumes from its cursor', async () => {
    db = await open();
    const chain = new FakeChain();
    chain.mine(10);
    await catchUp(new ChainFollower(db, chain, options));
    expect(await hashes(db)).toEqual(chain.blocks.map((b) => b.block.hash));
    chain.mine(5);
    // A new follower (a restart) picks up where the cursor is.
    const events: bigint[] = [];
    await catchUp(new ChainFollower(db, chain, options, { ingested: (e) => events.push(e.from) }));
    expect(events).toEqual([10n, 14n]);
    expect(await hashes(db)).toEqual(chain.blocks.map((b) => b.block.hash));
  });

  it('repairs a reorg: blocks from the common ancestor on are ingested again', async () => {
    db = await open();
    const chain = new FakeChain();
    chain.mine(12);
    const reorgs: { ancestor: bigint; dropped: bigint }[] = [];
    const follower = new ChainFollower(db, chain, options, { reorg: (e) => reorgs.push(e) });
    await catchUp(follower);
    chain.revert(8);
    chain.mine(6, 'b'); // a longer fork from block 9 on
    await catchUp(follower);
    expect(reorgs).toEqual([{ chain: 'base', ancestor: 8n, dropped: 3n }]);
    expect(await hashes(db)).toEqual(chain.blocks.map((b) => b.block.hash));
  });

  it('a head that went back below the index (a shorter fork) is repaired too', async () => {
    db = await open();
    const chain = new FakeChain();
    chain.mine(10);
    const follower = new ChainFollower(db, chain, options);
    await catchUp(follower);
    chain.revert(5);
    await catchUp(follower);
    expect(await hashes(db)).toEqual(chain.blocks.map((b) => b.block.hash));
    chain.mine(2, 'c');
    await catchUp(follower);
    expect(await hashes(db)).toEqual(chain.blocks.map((b) => b.block.hash));
  });

  it('an index built from another chain (a fresh dev chain) starts over', async () => {
    db = await open();
    const first = new FakeChain();
    first.mine(6);
    await catchUp(new ChainFollower(db, first, options));
    const second = new FakeChain();
    second.mine(3, 'z');
    const resets: string[] = [];
    await catchUp(new ChainFollower(db, second, options, { reset: (e) => resets.push(e.reason) }));
    expect(resets).toHaveLength(1);
    expect(await hashes(db)).toEqual(second.blocks.map((b) => b.block.hash));
  });

  it('`head` as the start block begins at the head of the first start', async () => {
    db = await open();
    const chain = new FakeChain();
    chain.mine(20);
    await catchUp(new ChainFollower(db, chain, { ...options, startBlock: 'head' }));
    expect(await hashes(db)).toEqual([chain.blocks[19]!.block.hash]);
    // A backfill below it extends the follower's range downwards.
    const lines: string[] = [];
    const done = await backfill(db, chain, { chain: 'base', from: 10n, batchBlocks: 4 }, (p) => lines.push(progressLine(p)));
    expect(done).toMatchObject({ state: 'done', blocks: 10, total: 10 });
    expect((await db.cursor('base'))?.startBlock).toBe(10n);
    expect(await hashes(db)).toEqual(chain.blocks.slice(10).map((b) => b.block.hash));
    expect(lines.at(-1)).toMatch(/^base 10\/10 blocks \(100%\) · [\d,]+ blocks\/s · [\d,]+ rows\/s · done$/);
  });
});

describe('index odds and ends', () => {
  it('settings: dev indexes base from genesis, production nothing unless asked; start blocks per chain', () => {
    expect(indexSettingsFromEnv({}, 'dev')).toMatchObject({ chains: ['base'], startBlocks: { base: 0n } });
    expect(indexSettingsFromEnv({}, 'production')).toMatchObject({ chains: [], startBlocks: {} });
    expect(indexSettingsFromEnv({ INDEX_CHAINS: 'base,ethereum', INDEX_START_BLOCK_ETHEREUM: '19000000' }, 'production').startBlocks).toEqual({ base: 'head', ethereum: 19_000_000n });
    expect(indexSettingsFromEnv({ INDEX_CHAINS: 'off' }, 'dev').chains).toEqual([]);
    expect(() => indexSettingsFromEnv({ INDEX_CHAINS: 'solana' }, 'dev')).toThrow(/INDEX_CHAINS/);
    expect(() => indexSettingsFromEnv({ INDEX_START_BLOCK_BASE: '-1' }, 'dev')).toThrow(/INDEX_START_BLOCK_BASE/);
  });

  it('progress: blocks/s, rows/s and ETA', () => {
    const p = progressOf({ chain: 'base', from: 0n, to: 999n, blocks: 250, rows: 1000, startedAt: Date.now() - 1000, state: 'running' });
    expect(p.total).toBe(1000);
    expect(p.etaSeconds).toBeGreaterThanOrEqual(2);
    expect(progressLine(p)).toMatch(/^base 250\/1,000 blocks \(25%\) · 2\d\d blocks\/s · [\d,]+ rows\/s · ETA \d s$/);
  });

  it('execution ids are ULID-shaped and unguessable', () => {
    const ids = new Set(Array.from({ length: 100 }, () => executionId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(EXECUTION_ID);
  });

  it('error texts never carry an RPC URL', () => {
    expect(safeErrorText(new Error('HTTP request failed.\nURL: https://base.example/v2/SECRETKEY'))).toBe('HTTP request failed.');
    expect(safeErrorText({ shortMessage: 'fetch https://rpc.example/key?x=1 failed' })).toBe('fetch <rpc> failed');
  });
});
