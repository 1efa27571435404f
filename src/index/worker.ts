/**
 * The index worker: a child process of the service that owns the DuckDB file, follows the chains'
 * heads into it and runs callers' SQL over it. A process of its own keeps DuckDB's memory, threads
 * and any statement that would not stop out of the process that takes payments: the service can
 * kill it (a statement that ignores its interrupt) and start it again, and the follower resumes
 * from its cursor.
 */
import type { EvmChainName } from '../providers/chains.ts';
import { backfill } from './backfill.ts';
import { IndexDatabase } from './database.ts';
import { ChainFollower } from './follower.ts';
import { safeErrorText, type ChainStatus, type IndexStatus, type ParentMessage, type WorkerInit, type WorkerMessage, type WorkerRequest } from './protocol.ts';
import { QueryEngine } from './query.ts';
import { jsonRpc } from './rpc.ts';
import { rpcBlockSource, type BlockSource } from './source.ts';

const send = (message: WorkerMessage) => process.send?.(message);
const log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => send({ type: 'log', level, msg, ...(fields ? { fields } : {}) });

interface Running {
  db: IndexDatabase;
  engine: QueryEngine;
  sources: Map<string, BlockSource>;
  followers: Map<string, ChainFollower>;
  recent: Map<string, { at: number; blocks: number; rows: number }[]>;
  init: WorkerInit;
}

let running: Running | undefined;
let starting: Promise<void> | undefined;

async function start(init: WorkerInit): Promise<void> {
  const db = await IndexDatabase.open({ path: init.path, memoryLimit: init.settings.memoryLimit, threads: init.settings.threads, chains: init.chains.map((c) => c.chain) });
  const engine = await QueryEngine.create(db, init.settings.query, init.settings.memoryLimit);
  const sources = new Map<string, BlockSource>();
  for (const chain of init.chains) {
    sources.set(chain.chain, rpcBlockSource(jsonRpc(chain.urls, { timeoutMs: init.rpc.timeoutMs, budgetPerSecond: chain.budgetPerSecond ?? init.rpc.budgetPerSecond }), init.settings.rpcConcurrency));
  }
  const state: Running = { db, engine, sources, followers: new Map(), recent: new Map(), init };
  for (const name of init.follow) {
    const source = sources.get(name);
    if (!source) continue;
    const follower = new ChainFollower(
      db,
      source,
      {
        chain: name,
        startBlock: init.settings.startBlocks[name as EvmChainName] ?? 'head',
        reorgDepth: init.settings.reorgDepth,
        batchBlocks: init.settings.batchBlocks,
        pollMs: init.settings.pollMs,
      },
      {
        ingested: (e) => {
          const list = state.recent.get(e.chain) ?? [];
          list.push({ at: Date.now(), blocks: Number(e.to - e.from + 1n), rows: e.rows });
          while (list.length > 0 && list[0]!.at < Date.now() - 60_000) list.shift();
          state.recent.set(e.chain, list);
          log('debug', 'index: blocks ingested', { chain: e.chain, from: e.from.toString(), to: e.to.toString(), rows: e.rows, ms: e.ms });
        },
        reorg: (e) => log('warn', 'index: reorg repaired', { chain: e.chain, ancestor: e.ancestor.toString(), dropped: e.dropped.toString() }),
        reset: (e) => log('warn', 'index: the chain behind the index changed; indexing it afresh', { chain: e.chain, reason: e.reason }),
        error: (e) => log('warn', 'index: following the chain failed; retrying', { chain: e.chain, err: safeErrorText(e.error) }),
      },
    );
    state.followers.set(name, follower);
    follower.start();
  }
  running = state;
}

async function status(state: Running): Promise<IndexStatus> {
  const chains: ChainStatus[] = [];
  for (const chain of state.init.chains) {
    const cursor = await state.db.cursor(chain.chain);
    const stats = await state.db.stats(chain.chain);
    const follower = state.followers.get(chain.chain);
    const recent = (state.recent.get(chain.chain) ?? []).filter((r) => r.at >= Date.now() - 60_000);
    const span = recent.length > 0 ? Math.max(1, (Date.now() - recent[0]!.at) / 1000) : 1;
    const head = cursor && cursor.headBlock >= cursor.startBlock ? cursor.headBlock : null;
    chains.push({
      chain: chain.chain,
      chainId: cursor?.chainId ?? null,
      following: follower !== undefined,
      startBlock: cursor ? cursor.startBlock.toString() : stats.minBlock === null ? null : String(stats.minBlock),
      headBlock: head !== null ? head.toString() : stats.maxBlock === null ? null : String(stats.maxBlock),
      chainHead: follower?.latest !== undefined ? follower.latest.toString() : null,
      lagBlocks: follower?.latest !== undefined && head !== null ? Number(follower.latest - head) : null,
      rows: stats.tables,
      recent: {
        blocksPerSecond: Math.round((recent.reduce((n, r) => n + r.blocks, 0) / span) * 10) / 10,
        rowsPerSecond: Math.round((recent.reduce((n, r) => n + r.rows, 0) / span) * 10) / 10,
      },
    });
  }
  return { path: state.db.path, chains, rss: process.memoryUsage().rss };
}

async function handle(request: WorkerRequest): Promise<void> {
  try {
    await starting;
    const state = running;
    if (!state) throw new Error('the index is not open');
    if (request.type === 'query') {
      send({ id: request.id, ok: true, value: await state.engine.run(request.chain, request.sql) });
    } else if (request.type === 'check') {
      send({ id: request.id, ok: true, value: await state.engine.check(request.chain, request.sql) });
    } else if (request.type === 'status') {
      send({ id: request.id, ok: true, value: await status(state) });
    } else {
      const source = state.sources.get(request.chain);
      if (!source) throw new Error(`chain ${request.chain} is not configured for the index`);
      const done = await backfill(
        state.db,
        source,
        { chain: request.chain, from: request.from, ...(request.to !== undefined ? { to: request.to } : {}), batchBlocks: state.init.settings.batchBlocks },
        (progress) => send({ type: 'progress', id: request.id, progress }),
      );
      send({ id: request.id, ok: true, value: done });
    }
  } catch (error) {
    send({ id: request.id, ok: false, error: safeErrorText(error) });
  }
}

async function stop(): Promise<void> {
  const state = running;
  running = undefined;
  if (state) {
    await Promise.all([...state.followers.values()].map((f) => f.stop()));
    state.engine.close();
    state.db.close();
  }
  process.exit(0);
}

process.on('message', (message: ParentMessage) => {
  if (message.type === 'init') {
    starting = start(message).then(
      () => {
        send({ type: 'ready' });
      },
      (error: unknown) => {
        send({ type: 'fatal', message: safeErrorText(error) });
        setTimeout(() => process.exit(1), 100);
      },
    );
  } else if (message.type === 'stop') {
    void stop();
  } else {
    void handle(message);
  }
});
// The service went away without saying so: nothing is left to serve.
process.on('disconnect', () => void stop());
