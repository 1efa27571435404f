/**
 * The block index's settings, read from the environment (config.ts keeps them under `index`).
 * Dev mode indexes `base` (the local anvil chain) from genesis; production indexes nothing unless
 * INDEX_CHAINS names chains, each from INDEX_START_BLOCK_<CHAIN> (default: the head at first start).
 */
import { z } from 'zod';
import { EVM_CHAIN_NAMES, type EvmChainName } from '../providers/chains.ts';

export interface QueryLimits {
  /** A statement running longer is interrupted (422, never charged). */
  timeoutMs: number;
  /** Rows returned at most; more is cut off with `truncated: true`. */
  maxRows: number;
  /** Bytes of the rows as JSON at most; more is cut off with `truncated: true`. */
  maxBytes: number;
  /** Statements running at once; more wait briefly, then 503. */
  concurrency: number;
}

export interface IndexSettings {
  /** Chains to index; empty: no index (analytics-query is not on sale). */
  chains: EvmChainName[];
  /** First block per chain at the index's first start: a number, or `head` (the chain's head then). */
  startBlocks: Partial<Record<EvmChainName, bigint | 'head'>>;
  /** The DuckDB file; default `<dataDir>/index.duckdb`. */
  path?: string;
  /** DuckDB's memory limit for the whole index (ingest and queries), e.g. `256MB`. */
  memoryLimit: string;
  /** DuckDB worker threads. */
  threads: number;
  /** How far back a reorg is followed (blocks); a changed parent hash re-ingests from the common ancestor within this depth. */
  reorgDepth: number;
  /** How often the head is polled when the index is caught up. */
  pollMs: number;
  /** Blocks fetched and written per transaction. */
  batchBlocks: number;
  /** Blocks fetched at once. */
  rpcConcurrency: number;
  /** Requests per second the indexer sends to each RPC endpoint at most (dev chain: unlimited). */
  rpcBudgetPerSecond?: number;
  /** How long a stored analytics execution can be fetched again, free. */
  executionTtlMs: number;
  /**
   * Several instances on one PostgreSQL database: one indexer at a time (a lease in the store); the
   * others send their index reads to it at its `url` (this instance's, as the others reach it),
   * authenticated with `token` (shared by all instances). Unset: this instance indexes on its own.
   */
  peer?: { url: string; token: string };
  /** How often the index lease is renewed (it lasts three times that). */
  leaseRenewMs: number;
  query: QueryLimits;
}

const chainList = z
  .string()
  .transform((s) => s.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c && c !== 'off' && c !== 'none'))
  .pipe(z.array(z.enum(EVM_CHAIN_NAMES)));

const IndexEnv = z.object({
  INDEX_CHAINS: chainList.optional(),
  INDEX_PATH: z.string().min(1).optional(),
  INDEX_MEMORY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i, 'expected a size such as 256MB').default('256MB'),
  INDEX_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  INDEX_REORG_DEPTH: z.coerce.number().int().min(1).max(10_000).default(64),
  INDEX_POLL_MS: z.coerce.number().int().min(50).max(600_000).optional(),
  INDEX_BATCH_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(100),
  INDEX_RPC_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  INDEX_RPC_BUDGET_PER_SECOND: z.coerce.number().positive().max(100_000).optional(),
  ANALYTICS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  ANALYTICS_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  ANALYTICS_MAX_RESULT_BYTES: z.coerce.number().int().min(1_024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
  ANALYTICS_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  ANALYTICS_RETENTION_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(86_400),
  INDEX_PEER_URL: z.url({ protocol: /^https?$/ }).optional(),
  INDEX_PEER_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  INDEX_LEASE_RENEW_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
});

/** Reads the index settings; throws an Error naming the variable when one is malformed. */
export function indexSettingsFromEnv(env: NodeJS.ProcessEnv, mode: 'dev' | 'production'): IndexSettings {
  const parsed = IndexEnv.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const e = parsed.data;
  if (Boolean(e.INDEX_PEER_URL) !== Boolean(e.INDEX_PEER_TOKEN)) throw new Error('INDEX_PEER_URL and INDEX_PEER_TOKEN: set both (one indexer for several instances) or neither');
  const chains = [...new Set(e.INDEX_CHAINS ?? (mode === 'dev' ? ['base' as const] : []))];
  const startBlocks: IndexSettings['startBlocks'] = {};
  for (const chain of EVM_CHAIN_NAMES) {
    const name = `INDEX_START_BLOCK_${chain.toUpperCase()}`;
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') {
      if (chains.includes(chain)) startBlocks[chain] = mode === 'dev' ? 0n : 'head';
      continue;
    }
    if (raw === 'head' || raw === 'latest') startBlocks[chain] = 'head';
    else if (/^\d{1,15}$/.test(raw)) startBlocks[chain] = BigInt(raw);
    else throw new Error(`${name}: expected a block number or "head"`);
  }
  return {
    chains,
    startBlocks,
    ...(e.INDEX_PATH ? { path: e.INDEX_PATH } : {}),
    memoryLimit: e.INDEX_MEMORY_LIMIT.replace(/\s+/g, ''),
    threads: e.INDEX_THREADS,
    reorgDepth: e.INDEX_REORG_DEPTH,
    pollMs: e.INDEX_POLL_MS ?? (mode === 'dev' ? 250 : 1_000),
    batchBlocks: e.INDEX_BATCH_BLOCKS,
    rpcConcurrency: e.INDEX_RPC_CONCURRENCY,
    ...(e.INDEX_RPC_BUDGET_PER_SECOND ? { rpcBudgetPerSecond: e.INDEX_RPC_BUDGET_PER_SECOND } : {}),
    executionTtlMs: e.ANALYTICS_RETENTION_SECONDS * 1000,
    leaseRenewMs: e.INDEX_LEASE_RENEW_MS,
    ...(e.INDEX_PEER_URL && e.INDEX_PEER_TOKEN ? { peer: { url: e.INDEX_PEER_URL.replace(/\/+$/, ''), token: e.INDEX_PEER_TOKEN } } : {}),
    query: {
      timeoutMs: e.ANALYTICS_TIMEOUT_MS,
      maxRows: e.ANALYTICS_MAX_ROWS,
      maxBytes: e.ANALYTICS_MAX_RESULT_BYTES,
      concurrency: e.ANALYTICS_CONCURRENCY,
    },
  };
}
