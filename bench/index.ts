/**
 * (h) The block index: how fast it ingests anvil's blocks (blocks/s, transfer rows/s; blocks of USDC
 * transfers and empty blocks), how long analytics-query statements and two index-backed products
 * take over 1,000,000 synthetic transfer rows (loaded straight into DuckDB), and the index worker's
 * resident memory. Everything runs through the service's IndexService (the worker process and its
 * IPC included), with the default limits (INDEX_MEMORY_LIMIT 256 MB, one DuckDB thread).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, encodeFunctionData, http } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_ROLES, devChain, mintUsdc, usdcAbi } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { IndexDatabase } from '../src/index/database.ts';
import { IndexService } from '../src/index/service.ts';
import { indexSettingsFromEnv } from '../src/index/settings.ts';
import { createLogger } from '../src/log.ts';
import { fakeContext } from '../src/products/kit/fake-context.ts';
import { tokenMetrics } from '../src/products/chain/token-metrics/index.ts';
import { walletAnalyze } from '../src/products/chain/wallet-analyze/index.ts';
import type { ChainIndex } from '../src/products/kit/chain-index.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const TRANSFER_BLOCKS = Number(process.env.BENCH_INDEX_BLOCKS ?? 100);
const TRANSFERS_PER_BLOCK = 20;
const EMPTY_BLOCKS = 2_000;
const SYNTHETIC_ROWS = 1_000_000;
const QUERY_RUNS = Number(process.env.BENCH_INDEX_QUERY_RUNS ?? 30);

export interface IndexFigures {
  transferBlocks: { blocks: number; transfers: number; blocksPerSecond: number; transferRowsPerSecond: number; rowsPerSecond: number };
  emptyBlocks: { blocks: number; blocksPerSecond: number };
  queries: { label: string; p50: number; p99: number }[];
  workerRssMb: { idle: number; afterQueries: number };
}

const log = createLogger('warn');
const settings = () => indexSettingsFromEnv({ INDEX_CHAINS: 'base' }, 'dev');

function service(path: string, chain: DevChain): IndexService {
  return new IndexService({
    settings: settings(),
    path,
    chains: [{ chain: 'base', chainId: chain.chainId, urls: [chain.rpcUrl], network: chain.network, budgetPerSecond: 100_000 }],
    rpc: { budgetPerSecond: 100_000, timeoutMs: 10_000 },
    store: { addSavedQuery: async () => { throw new Error('unused'); }, savedQueries: async () => [], removeSavedQuery: async () => false, saveAnalyticsExecution: async () => undefined, analyticsExecution: async () => undefined },
    log,
    follow: false,
  });
}

/** Blocks of TRANSFERS_PER_BLOCK USDC transfers each (automine off, one `evm_mine` per block). */
async function transferBlocks(chain: DevChain): Promise<{ from: bigint; to: bigint; transfers: number }> {
  const test = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  const senders = Array.from({ length: TRANSFERS_PER_BLOCK }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: 20 + i }));
  for (const s of senders) {
    await test.setBalance({ address: s.address, value: 10n ** 20n });
    await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, s.address, 10n ** 12n);
  }
  const viemChain = devChain(chain.rpcUrl, chain.chainId);
  const wallets = senders.map((account) => createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) }));
  const pub = createPublicClient({ transport: http(chain.rpcUrl), cacheTime: 0 });
  const nonces = await Promise.all(senders.map((s) => pub.getTransactionCount({ address: s.address })));
  const from = (await pub.getBlockNumber()) + 1n;
  await test.setAutomine(false);
  try {
    for (let b = 0; b < TRANSFER_BLOCKS; b++) {
      await Promise.all(
        wallets.map((wallet, i) =>
          wallet.sendTransaction({
            to: chain.usdc,
            data: encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [senders[(i + 1) % senders.length]!.address, BigInt(1_000 + b)] }),
            nonce: nonces[i]!++,
            gas: 80_000n,
          }),
        ),
      );
      await test.mine({ blocks: 1 });
    }
  } finally {
    await test.setAutomine(true);
  }
  return { from, to: from + BigInt(TRANSFER_BLOCKS) - 1n, transfers: TRANSFER_BLOCKS * TRANSFERS_PER_BLOCK };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function latency(label: string, run: () => Promise<unknown>): Promise<{ label: string; p50: number; p99: number }> {
  await run(); // warm
  const times: number[] = [];
  for (let i = 0; i < QUERY_RUNS; i++) times.push((await timed(run)).ms);
  times.sort((a, b) => a - b);
  return { label, p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** 1,000,000 transfers over 20,000 blocks (2 s apart), 20 tokens, 50,000 addresses, and those blocks: straight into the file. */
async function loadSynthetic(path: string): Promise<void> {
  const db = await IndexDatabase.open({ path, memoryLimit: '1GB', threads: 2, chains: ['base'] });
  try {
    await db.exclusive(async (w) => {
      const blocks = SYNTHETIC_ROWS / 50;
      await w.run(`INSERT INTO base.blocks SELECT i, '0x' || lpad(lower(hex(i + 1)), 64, '0'), '0x' || lpad(lower(hex(i)), 64, '0'),
                   TIMESTAMP '2026-01-01 00:00:00' + to_seconds(i * 2), 1000000, 0, 30000000, 0, '0x' || repeat('0', 40) FROM range(${blocks}) t(i)`);
      await w.run(`INSERT INTO base.erc20_transfers SELECT i // 50, TIMESTAMP '2026-01-01 00:00:00' + to_seconds((i // 50) * 2),
                   '0x' || lpad(lower(hex(i)), 64, '0'), (i % 50)::UINTEGER,
                   '0x' || lpad(lower(hex(i % 20 + 1)), 40, '0'),
                   '0x' || lpad(lower(hex(hash(i) % 50000 + 4096)), 40, '0'),
                   '0x' || lpad(lower(hex(hash(i * 7 + 1) % 50000 + 4096)), 40, '0'),
                   (hash(i * 13) % 1000000000000)::HUGEINT, NULL FROM range(${SYNTHETIC_ROWS}) t(i)`);
      await w.run('CHECKPOINT');
    });
  } finally {
    db.close();
  }
}

export async function benchIndex(chain: DevChain): Promise<IndexFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'percall-bench-index-'));
  try {
    // Ingest: blocks of transfers, then empty blocks, each backfilled into a fresh file.
    const made = await transferBlocks(chain);
    const ingest = service(join(dir, 'ingest.duckdb'), chain);
    await ingest.start();
    const full = await ingest.backfill('base', made.from, made.to, () => undefined);
    const emptyFrom = (await createPublicClient({ transport: http(chain.rpcUrl), cacheTime: 0 }).getBlockNumber()) + 1n;
    await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).mine({ blocks: EMPTY_BLOCKS });
    const empty = await ingest.backfill('base', emptyFrom, emptyFrom + BigInt(EMPTY_BLOCKS) - 1n, () => undefined);
    await ingest.stop();

    // Analytics over 1,000,000 synthetic transfers.
    const path = join(dir, 'analytics.duckdb');
    await loadSynthetic(path);
    const analytics = service(path, chain);
    await analytics.start();
    const idle = (await analytics.status()).rss;
    const sql = async (text: string) => {
      const outcome = await analytics.query('base', text);
      if (outcome.kind !== 'ok') throw new Error(`${text}: ${JSON.stringify(outcome)}`);
    };
    const wallet = '0x' + (4096 + 123).toString(16).padStart(40, '0');
    const token = '0x' + (3).toString(16).padStart(40, '0');
    const ctx = () => fakeContext({ now: new Date('2026-01-01T12:00:00Z'), index: analytics as ChainIndex });
    const queries = [
      await latency('top tokens by volume', () => sql('SELECT contract_address, count(*) AS transfers, sum(value) AS volume FROM erc20_transfers GROUP BY 1 ORDER BY volume DESC LIMIT 10')),
      await latency("one wallet's in and out", () => sql(`SELECT count(*) FILTER (WHERE "to" = '${wallet}') AS incoming, count(*) FILTER (WHERE "from" = '${wallet}') AS outgoing, sum(value) FILTER (WHERE "to" = '${wallet}') AS received FROM erc20_transfers WHERE "from" = '${wallet}' OR "to" = '${wallet}'`)),
      await latency('hourly transfers, distinct senders', () => sql(`SELECT date_trunc('hour', block_time) AS hour, count(*) AS transfers, count(DISTINCT "from") AS senders FROM erc20_transfers GROUP BY 1 ORDER BY 1`)),
      await latency('wallet-analyze (product, 5 statements)', () => walletAnalyze.run(walletAnalyze.input.parse({ wallet_address: wallet }), ctx())),
      await latency('token-metrics (product, 50,000 holders)', () => tokenMetrics.run(tokenMetrics.input.parse({ token_address: token }), ctx())),
    ];
    const afterQueries = (await analytics.status()).rss;
    await analytics.stop();
    return {
      transferBlocks: { blocks: full.blocks, transfers: made.transfers, blocksPerSecond: full.blocksPerSecond, transferRowsPerSecond: (made.transfers * 1000) / full.elapsedMs, rowsPerSecond: full.rowsPerSecond },
      emptyBlocks: { blocks: empty.blocks, blocksPerSecond: empty.blocksPerSecond },
      queries,
      workerRssMb: { idle: idle / 1024 / 1024, afterQueries: afterQueries / 1024 / 1024 },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function printIndex(f: IndexFigures): void {
  console.log('');
  console.log('(h) the block index: ingest from anvil (backfill, one DuckDB thread), statements over 1,000,000 synthetic transfers, the worker process');
  console.log(
    `ingest: ${f.transferBlocks.blocks} blocks of ${TRANSFERS_PER_BLOCK} USDC transfers: ${f.transferBlocks.blocksPerSecond.toFixed(0)} blocks/s, ${f.transferBlocks.transferRowsPerSecond.toFixed(0)} transfer rows/s (${f.transferBlocks.rowsPerSecond.toFixed(0)} rows/s in all tables); ${f.emptyBlocks.blocks} empty blocks: ${f.emptyBlocks.blocksPerSecond.toFixed(0)} blocks/s`,
  );
  for (const q of f.queries) console.log(`${q.label.padEnd(42)} p50 ${q.p50.toFixed(0).padStart(5)} ms   p99 ${q.p99.toFixed(0).padStart(5)} ms   (${QUERY_RUNS} runs)`);
  console.log(`index worker RSS: ${f.workerRssMb.idle.toFixed(0)} MB with the 1,000,000-row file open, ${f.workerRssMb.afterQueries.toFixed(0)} MB after the statements (INDEX_MEMORY_LIMIT 256MB)`);
}
