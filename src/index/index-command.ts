/**
 * `percall index …`: the operator's commands for the block index.
 *
 * - `backfill --chain base --from N [--to M]`: ingests blocks N..M (default: up to the follower's
 *   head) with a progress line (blocks/s, rows/s, ETA). With ADMIN_TOKEN and a running service at
 *   PERCALL_URL (default http://127.0.0.1:4021) it runs inside that service, which holds the index
 *   file; otherwise this process opens the file itself (the service must not be running on it).
 * - `status`: what the index holds and how far behind the head it is.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, BASE_MAINNET, type Config } from '../config.ts';
import { EVM_CHAIN_DEFAULTS, EVM_CHAIN_NAMES, type EvmChainName } from '../providers/chains.ts';
import { backfill, progressLine, type BackfillProgress } from './backfill.ts';
import { IndexDatabase, IndexLockedError } from './database.ts';
import { safeErrorText } from './protocol.ts';
import { jsonRpc } from './rpc.ts';
import { rpcBlockSource } from './source.ts';
import { indexPath } from './start.ts';

const USAGE = `usage:
  percall index backfill --chain CHAIN --from N [--to M]   ingest blocks N..M (default: to the indexed head)
  percall index status                                      what the index holds, and its lag

With ADMIN_TOKEN set and the service running (PERCALL_URL, default http://127.0.0.1:4021) the work runs
inside the service; otherwise this process opens <PERCALL_DATA_DIR>/index.duckdb (INDEX_PATH) itself.`;

function flags(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}\n\n${USAGE}`);
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a value\n\n${USAGE}`);
    out[arg.slice(2)] = value;
    i++;
  }
  return out;
}

const blockNumber = (text: string | undefined, name: string): bigint | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new Error(`--${name} must be a block number`);
  return BigInt(text);
};

interface Output {
  line(text: string): void;
  /** Rewrites the current line (a terminal), or prints it now and then. */
  progress(text: string, final: boolean): void;
}

function terminalOutput(): Output {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let previous = '';
  return {
    line: (text) => console.log(text),
    progress: (text, final) => {
      if (tty) {
        process.stderr.write(`\r\x1b[2K${text}${final ? '\n' : ''}`);
      } else if (final || (Date.now() - last >= 2_000 && text !== previous)) {
        process.stderr.write(`${text}\n`);
        last = Date.now();
      }
      previous = text;
    },
  };
}

async function serviceReachable(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Where a local backfill reads `chain`: dev mode the running dev chain (dev.json or DEV_RPC_URL), else EVM_RPC_URLS. */
async function rpcFor(config: Config, chain: EvmChainName): Promise<{ urls: string[]; chainId?: number }> {
  if (config.mode === 'dev' && chain === 'base') {
    const rpcUrl = config.devRpcUrl ?? (JSON.parse(await readFile(join(config.dataDir, 'dev.json'), 'utf8').catch(() => '{}')) as { rpcUrl?: string }).rpcUrl;
    if (!rpcUrl) throw new Error(`dev mode: no dev chain to read (start the service once, or set DEV_RPC_URL)`);
    return { urls: [rpcUrl] };
  }
  const urls = config.chains.evmRpcUrls[chain] ?? (chain === 'base' && config.evmRpcUrl && config.evm.network === BASE_MAINNET.network ? [config.evmRpcUrl] : undefined);
  if (!urls) throw new Error(`no RPC for ${chain}: set EVM_RPC_URLS (${chain}=https://…)`);
  return { urls, chainId: EVM_CHAIN_DEFAULTS[chain].chain.id };
}

async function remote<T>(base: string, token: string, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...init.headers } });
  const body = (await response.json().catch(() => ({}))) as T & { detail?: string };
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}${body.detail ? `: ${body.detail}` : ''}`);
  return body;
}

async function remoteBackfill(base: string, token: string, chain: string, from: bigint, to: bigint | undefined, out: Output): Promise<BackfillProgress> {
  const { job } = await remote<{ job: string }>(base, token, '/admin/index/backfill', {
    method: 'POST',
    body: JSON.stringify({ chain, from: from.toString(), ...(to !== undefined ? { to: to.toString() } : {}) }),
  });
  for (;;) {
    const progress = await remote<BackfillProgress>(base, token, `/admin/index/backfill/${job}`);
    if (progress.total > 0) out.progress(progressLine(progress), progress.state !== 'running');
    if (progress.state !== 'running') return progress;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function localBackfill(config: Config, chain: EvmChainName, from: bigint, to: bigint | undefined, out: Output): Promise<BackfillProgress> {
  const rpc = await rpcFor(config, chain);
  const request = jsonRpc(rpc.urls, { budgetPerSecond: config.index.rpcBudgetPerSecond ?? (config.mode === 'dev' ? 10_000 : config.chains.budgetPerSecond), timeoutMs: config.chains.timeoutMs });
  const source = rpcBlockSource(request, config.index.rpcConcurrency);
  if (rpc.chainId !== undefined && (await source.chainId()) !== rpc.chainId) throw new Error(`the RPC for ${chain} answers for another chain than ${chain} (${rpc.chainId})`);
  const db = await IndexDatabase.open({ path: indexPath(config), memoryLimit: config.index.memoryLimit, threads: config.index.threads, chains: [...new Set([...config.index.chains, chain])] });
  try {
    return await backfill(db, source, { chain, from, ...(to !== undefined ? { to } : {}), batchBlocks: config.index.batchBlocks }, (p) => out.progress(progressLine(p), p.state !== 'running'));
  } finally {
    db.close();
  }
}

export async function runIndexCommand(argv: string[], out: Output = terminalOutput()): Promise<number> {
  const [action, ...rest] = argv;
  const base = (process.env.PERCALL_URL ?? 'http://127.0.0.1:4021').replace(/\/$/, '');
  const token = process.env.ADMIN_TOKEN;
  const viaService = token !== undefined && (await serviceReachable(base));
  if (action === 'backfill') {
    const f = flags(rest);
    const chain = f.chain as EvmChainName | undefined;
    if (!chain || !(EVM_CHAIN_NAMES as readonly string[]).includes(chain)) throw new Error(`--chain must be one of ${EVM_CHAIN_NAMES.join(', ')}\n\n${USAGE}`);
    const from = blockNumber(f.from, 'from');
    if (from === undefined) throw new Error(`--from is required\n\n${USAGE}`);
    const to = blockNumber(f.to, 'to');
    if (to !== undefined && to < from) throw new Error('--to must not be below --from');
    try {
      const done = viaService ? await remoteBackfill(base, token!, chain, from, to, out) : await localBackfill(loadConfig(), chain, from, to, out);
      if (done.state === 'failed') {
        out.line(`backfill failed: ${done.error ?? 'unknown'}`);
        return 1;
      }
      out.line(`backfill done: ${chain} blocks ${done.from}..${done.to}, ${done.rows.toLocaleString('en-US')} rows in ${(done.elapsedMs / 1000).toFixed(1)} s`);
      return 0;
    } catch (error) {
      if (error instanceof IndexLockedError) {
        out.line(`${error.message}: set ADMIN_TOKEN (and PERCALL_URL) to run the backfill inside that service`);
        return 1;
      }
      const hint = !viaService && loadConfig().mode === 'dev' ? ' (dev mode: the dev chain runs inside the service; start it, and set ADMIN_TOKEN to backfill there)' : '';
      out.line(`backfill failed: ${safeErrorText(error)}${hint}`);
      return 1;
    }
  }
  if (action === 'status') {
    if (viaService) {
      out.line(JSON.stringify(await remote(base, token!, '/admin/index/status'), null, 2));
      return 0;
    }
    const config = loadConfig();
    const db = await IndexDatabase.open({ path: indexPath(config), memoryLimit: config.index.memoryLimit, threads: config.index.threads, chains: config.index.chains }).catch((error: unknown) => {
      if (error instanceof IndexLockedError) throw new Error(`${error.message}: set ADMIN_TOKEN (and PERCALL_URL) to ask that service`);
      throw error;
    });
    try {
      const chains = [];
      for (const chain of config.index.chains) chains.push({ chain, cursor: await db.cursor(chain), ...(await db.stats(chain)) });
      out.line(JSON.stringify({ path: db.path, chains }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
      return 0;
    } finally {
      db.close();
    }
  }
  out.line(USAGE);
  return action === undefined || action === 'help' ? 0 : 2;
}
