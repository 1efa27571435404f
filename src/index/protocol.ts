/**
 * Messages between the service and its index worker (a child process: worker.ts), over Node's IPC
 * channel with the `advanced` serialization (structured clone: bigints pass as they are).
 */
import type { IndexCheckOutcome, IndexQueryOutcome } from '../products/kit/chain-index.ts';
import type { BackfillProgress } from './backfill.ts';
import type { IndexSettings } from './settings.ts';

/** One chain the worker reads: its name, the chain id behind it, its RPC endpoints (never logged). */
export interface WorkerChain {
  chain: string;
  chainId: number;
  urls: string[];
  /** Requests per second to each endpoint; the init's `rpc.budgetPerSecond` when unset. */
  budgetPerSecond?: number;
}

export interface WorkerInit {
  type: 'init';
  path: string;
  settings: Pick<IndexSettings, 'memoryLimit' | 'threads' | 'reorgDepth' | 'pollMs' | 'batchBlocks' | 'rpcConcurrency' | 'startBlocks' | 'query'>;
  /** Chains with a schema in the file; `follow` ones also have their head followed. */
  chains: WorkerChain[];
  follow: string[];
  rpc: { budgetPerSecond: number; timeoutMs: number };
}

export type WorkerRequest =
  | { id: number; type: 'query'; chain: string; sql: string }
  | { id: number; type: 'check'; chain: string; sql: string }
  | { id: number; type: 'status' }
  | { id: number; type: 'backfill'; chain: string; from: bigint; to?: bigint };

export type ParentMessage = WorkerInit | WorkerRequest | { type: 'stop' };

export interface ChainStatus {
  chain: string;
  chainId: number | null;
  following: boolean;
  startBlock: string | null;
  /** Last block ingested contiguously. */
  headBlock: string | null;
  /** The chain's head at the last poll. */
  chainHead: string | null;
  lagBlocks: number | null;
  rows: Record<string, number>;
  /** Blocks per second and rows per second over the last minute of ingestion. */
  recent: { blocksPerSecond: number; rowsPerSecond: number };
}

export interface IndexStatus {
  path: string;
  chains: ChainStatus[];
  /** Resident memory of the worker process, bytes. */
  rss: number;
}

export type WorkerReply =
  | { id: number; ok: true; value: IndexQueryOutcome | IndexCheckOutcome | IndexStatus | BackfillProgress }
  | { id: number; ok: false; error: string };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> }
  | { type: 'progress'; id: number; progress: BackfillProgress }
  | WorkerReply;

/** An error's text with every URL taken out (RPC endpoints may carry API keys). */
export function safeErrorText(error: unknown): string {
  const e = error as { shortMessage?: unknown; message?: unknown; name?: unknown };
  const text = typeof e?.shortMessage === 'string' ? e.shortMessage : typeof e?.message === 'string' ? e.message : String(error);
  return text
    .split('\n')[0]!
    .replace(/\b(https?|wss?):\/\/[^\s"'<>)]+/gi, '<rpc>')
    .slice(0, 300);
}
