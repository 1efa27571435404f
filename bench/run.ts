/**
 * `npm run bench`: percall against a reference server built from the official `@x402/hono`
 * middleware, on one machine, one anvil chain, one facilitator implementation and one price.
 * (a) unpaid 402 challenges: requests/s and p50/p99 latency (autocannon);
 * (b) paid calls end to end: pre-signed payments replayed with fixed concurrency, each verified,
 *     served and settled on-chain (calls/s and p50/p99).
 * Each server runs in its own child process; the load comes from this process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startDevChain, type DevChain } from '../src/devchain/stack.ts';
import { createLogger } from '../src/log.ts';
import { DEV_ROLES } from '../src/devchain/contracts.ts';
import { paymentHeader, quote, signPayment } from '../test/helpers/payments.ts';
import { freshDatabase } from '../test/helpers/postgres.ts';
import { freePort } from '../test/helpers/instances.ts';
import type { PaymentRequired } from '@x402/core/types';

const CHALLENGE_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CHALLENGE_CONNECTIONS = 50;
const PAID_CALLS = Number(process.env.BENCH_PAID_CALLS ?? 300);
const PAID_CONCURRENCY = Number(process.env.BENCH_PAID_CONCURRENCY ?? 10);
/** A paid call taking longer than this is reported as a hang (with its index and target), never waited on. */
const PAID_CALL_LIMIT_MS = Number(process.env.BENCH_CALL_LIMIT_MS ?? 60_000);
const PATH = '/api/v1/paid/time';

interface Figures {
  challengesPerSecond: number;
  challengeP50: number;
  challengeP99: number;
  paidPerSecond: number;
  paidP50: number;
  paidP99: number;
}

async function waitFor402(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status === 402) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no 402 from ${url}`);
}

function startChild(args: string[], env: Record<string, string>): ChildProcess {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each server process there.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_LOG_DIR=<dir> keeps each server's log (stdout) there; otherwise it is discarded.
  const logDir = process.env.BENCH_LOG_DIR;
  const stdout = logDir ? openSync(join(logDir, `${args.at(-1) === 'start' ? 'percall' : 'reference'}-${Date.now()}.log`), 'a') : 'ignore';
  const child = spawn(process.execPath, [...profile, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'inherit'] });
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

async function measureChallenges(url: string): Promise<Pick<Figures, 'challengesPerSecond' | 'challengeP50' | 'challengeP99'>> {
  // Warm-up, then the measured run.
  await autocannon({ url, connections: 10, duration: 1 });
  const result = await autocannon({ url, connections: CHALLENGE_CONNECTIONS, duration: CHALLENGE_SECONDS });
  if (result['2xx'] > 0 || result.non2xx !== result.requests.total) throw new Error(`${url}: expected only 402s`);
  return { challengesPerSecond: result.requests.average, challengeP50: result.latency.p50, challengeP99: result.latency.p99 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

type PaidFigures = Pick<Figures, 'paidPerSecond' | 'paidP50' | 'paidP99'>;

/** Paid calls spread round-robin over `urls` (one URL per instance serving the same route). */
async function measurePaid(urls: string | string[], chain: DevChain): Promise<PaidFigures> {
  const targets = Array.isArray(urls) ? urls : [urls];
  const required = await quote(targets[0]!);
  // Signing is the client's cost, identical for both servers: done before the clock starts.
  const headers = await Promise.all(Array.from({ length: PAID_CALLS + 20 }, () => signPayment(chain.buyer.privateKey, required).then(paymentHeader)));
  const warmup = headers.splice(0, 20);
  await Promise.all(warmup.map((h, i) => fetch(targets[i % targets.length]!, { headers: h }).then((r) => r.arrayBuffer())));

  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: PAID_CONCURRENCY }, async () => {
      while (next < headers.length) {
        const i = next++;
        const h = headers[i]!;
        const url = targets[i % targets.length]!;
        const t0 = performance.now();
        const response = await fetch(url, { headers: h, signal: AbortSignal.timeout(PAID_CALL_LIMIT_MS) }).catch((error: unknown) => {
          throw new Error(`${url}: paid call ${i} got no answer within ${PAID_CALL_LIMIT_MS} ms (${(error as Error).name})`);
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${url}: paid call answered ${response.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { paidPerSecond: headers.length / seconds, paidP50: percentile(latencies, 50), paidP99: percentile(latencies, 99) };
}

/** Starts one server as a child process, measures it, stops it. */
async function benchServer(chain: DevChain, args: string[], env: (port: number) => Record<string, string>): Promise<Figures> {
  const port = await freePort();
  const child = startChild(args, env(port));
  try {
    const url = `http://127.0.0.1:${port}${PATH}`;
    await waitFor402(url, child);
    return { ...(await measureChallenges(url)), ...(await measurePaid(url, chain)) };
  } finally {
    await stopChild(child);
  }
}

async function benchPercall(chain: DevChain): Promise<Figures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'percall-bench-'));
  try {
    return await benchServer(chain, ['bin/percall.js', 'start'], (port) => ({
      PORT: String(port),
      PERCALL_DATA_DIR: dataDir,
      DEV_RPC_URL: chain.rpcUrl,
      LOG_LEVEL: 'warn',
    }));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function benchReference(chain: DevChain): Promise<Figures> {
  return benchServer(chain, ['--import', 'tsx', 'bench/reference-server.ts'], (port) => ({
    PORT: String(port),
    RPC_URL: chain.rpcUrl,
    CHAIN_ID: String(chain.chainId),
    NETWORK: chain.network,
    FACILITATOR_KEY: chain.facilitatorKey,
    PAY_TO: chain.payTo,
    ASSET: chain.usdc,
    AMOUNT: '10000',
  }));
}

function best(a: Figures | undefined, b: Figures): Figures {
  if (!a) return b;
  const challenges = a.challengesPerSecond >= b.challengesPerSecond ? a : b;
  const paid = a.paidPerSecond >= b.paidPerSecond ? a : b;
  return {
    challengesPerSecond: challenges.challengesPerSecond,
    challengeP50: challenges.challengeP50,
    challengeP99: challenges.challengeP99,
    paidPerSecond: paid.paidPerSecond,
    paidP50: paid.paidP50,
    paidP99: paid.paidP99,
  };
}

function row(name: string, f: Figures): string {
  return `${name.padEnd(22)} ${f.challengesPerSecond.toFixed(0).padStart(8)} req/s  p50 ${f.challengeP50.toFixed(1).padStart(5)} ms  p99 ${f.challengeP99.toFixed(1).padStart(6)} ms | ${f.paidPerSecond.toFixed(1).padStart(7)} calls/s  p50 ${f.paidP50.toFixed(1).padStart(6)} ms  p99 ${f.paidP99.toFixed(1).padStart(6)} ms`;
}

/** One JSON-RPC request to the MCP endpoint, as streamable HTTP wants it (JSON response, stateless server). */
function mcpRequest(mcpUrl: string, params: Record<string, unknown>): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  });
}

/** Paid tool calls of `server_time` (the same product as GET /api/v1/paid/time), pre-signed like the HTTP run. */
async function measurePaidMcp(mcpUrl: string, chain: DevChain): Promise<PaidFigures> {
  const unpaid = (await (await mcpRequest(mcpUrl, { name: 'server_time', arguments: {} })).json()) as { result: { structuredContent: PaymentRequired } };
  const required = unpaid.result.structuredContent;
  const payloads = await Promise.all(Array.from({ length: PAID_CALLS }, () => signPayment(chain.buyer.privateKey, required)));
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: PAID_CONCURRENCY }, async () => {
      while (next < payloads.length) {
        const payload = payloads[next++]!;
        const t0 = performance.now();
        const response = await mcpRequest(mcpUrl, { name: 'server_time', arguments: {}, _meta: { 'x402/payment': payload } });
        const body = (await response.json()) as { result?: { isError?: boolean } };
        if (!body.result || body.result.isError) throw new Error(`paid tool call failed: ${JSON.stringify(body).slice(0, 300)}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { paidPerSecond: payloads.length / seconds, paidP50: percentile(latencies, 50), paidP99: percentile(latencies, 99) };
}

/** 402 challenges with counting on and off, alternated, best of each kept. */
async function benchTelemetryCost(chain: DevChain): Promise<{ on: Figures; off: Figures }> {
  const run = async (telemetry: 'on' | 'off') => {
    const port = await freePort();
    const dataDir = await mkdtemp(join(tmpdir(), 'percall-bench-'));
    const child = startChild(['bin/percall.js', 'start'], { PORT: String(port), PERCALL_DATA_DIR: dataDir, DEV_RPC_URL: chain.rpcUrl, LOG_LEVEL: 'warn', TELEMETRY: telemetry });
    try {
      const url = `http://127.0.0.1:${port}${PATH}`;
      await waitFor402(url, child);
      return { ...(await measureChallenges(url)), paidPerSecond: 0, paidP50: 0, paidP99: 0 };
    } finally {
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true });
    }
  };
  let on: Figures | undefined;
  let off: Figures | undefined;
  // This machine's throughput drifts between runs: alternate three times, keep each side's best.
  for (let round = 0; round < 3; round++) {
    on = best(on, await run('on'));
    off = best(off, await run('off'));
  }
  return { on: on!, off: off! };
}

/** Paid HTTP calls and paid MCP tool calls of the same product on one embedded instance. */
async function benchMcp(chain: DevChain): Promise<{ http: PaidFigures; mcp: PaidFigures }> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'percall-bench-'));
  const child = startChild(['bin/percall.js', 'start'], { PORT: String(port), PERCALL_DATA_DIR: dataDir, DEV_RPC_URL: chain.rpcUrl, LOG_LEVEL: 'warn' });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor402(`${base}${PATH}`, child);
    const http = await measurePaid(`${base}${PATH}`, chain);
    const mcp = await measurePaidMcp(`${base}/mcp`, chain);
    return { http, mcp };
  } finally {
    await stopChild(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Paid calls with the store on PostgreSQL: one instance, then two sharing the database. */
async function benchPostgres(chain: DevChain): Promise<{ one: PaidFigures; two: PaidFigures } | undefined> {
  const gasWallets = [DEV_ROLES.facilitator.privateKey, DEV_ROLES.spare.privateKey];
  const run = async (instances: number): Promise<PaidFigures> => {
    const db = await freshDatabase();
    if (!db) throw new Error('no PostgreSQL');
    const children: ChildProcess[] = [];
    try {
      const urls: string[] = [];
      for (let i = 0; i < instances; i++) {
        const port = await freePort();
        const dataDir = await mkdtemp(join(tmpdir(), 'percall-bench-'));
        const child = startChild(['bin/percall.js', 'start'], {
          PORT: String(port),
          PERCALL_DATA_DIR: dataDir,
          DEV_RPC_URL: chain.rpcUrl,
          DATABASE_URL: db.url,
          FACILITATOR_PRIVATE_KEY: gasWallets[i]!,
          LOG_LEVEL: 'warn',
        });
        children.push(child);
        urls.push(`http://127.0.0.1:${port}${PATH}`);
        await waitFor402(urls[i]!, child);
      }
      return await measurePaid(urls, chain);
    } finally {
      for (const child of children) await stopChild(child);
      await db.drop();
    }
  };
  if (!(await freshDatabase().then(async (db) => (db ? (await db.drop(), true) : false)))) return undefined;
  return { one: await run(1), two: await run(2) };
}

function paidRow(name: string, f: PaidFigures): string {
  return `${name.padEnd(34)} ${f.paidPerSecond.toFixed(1).padStart(7)} calls/s  p50 ${f.paidP50.toFixed(1).padStart(6)} ms  p99 ${f.paidP99.toFixed(1).padStart(6)} ms`;
}

const chain = await startDevChain({ log: createLogger('warn') });
try {
  console.log(`bench: ${process.env.BENCH_ROUNDS ?? 2} alternating rounds (best of each kept); ${CHALLENGE_SECONDS}s of 402s at ${CHALLENGE_CONNECTIONS} connections; ${PAID_CALLS} paid calls at concurrency ${PAID_CONCURRENCY}; node ${process.version}`);
  // Alternate the two servers and keep each one's best round, so neither gains from running first or last.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  let reference: Figures | undefined;
  let percall: Figures | undefined;
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0;
    if (first) reference = best(reference, await benchReference(chain));
    percall = best(percall, await benchPercall(chain));
    if (!first) reference = best(reference, await benchReference(chain));
  }
  if (!reference || !percall) throw new Error('no rounds');
  console.log(`${''.padEnd(22)} ${'(a) 402 challenges'.padEnd(44)} | (b) paid calls, settled on anvil`);
  console.log(row('reference @x402/hono', reference));
  console.log(row('percall', percall));
  console.log(
    `ratio percall/reference: challenges ${(percall.challengesPerSecond / reference.challengesPerSecond).toFixed(2)}x, paid calls ${(percall.paidPerSecond / reference.paidPerSecond).toFixed(2)}x`,
  );
  const counting = await benchTelemetryCost(chain);
  console.log('');
  console.log('(e) the cost of counting: 402 challenges with telemetry on and off');
  console.log(`telemetry on   ${counting.on.challengesPerSecond.toFixed(0).padStart(8)} req/s  p50 ${counting.on.challengeP50.toFixed(1)} ms  p99 ${counting.on.challengeP99.toFixed(1)} ms`);
  console.log(`telemetry off  ${counting.off.challengesPerSecond.toFixed(0).padStart(8)} req/s  p50 ${counting.off.challengeP50.toFixed(1)} ms  p99 ${counting.off.challengeP99.toFixed(1)} ms`);
  console.log(`difference: ${((1 - counting.on.challengesPerSecond / counting.off.challengesPerSecond) * 100).toFixed(1)}% (target: under 5%)`);
  const mcp = await benchMcp(chain);
  console.log('');
  console.log('(d) the same product, paid over HTTP and as an MCP tool (one instance)');
  console.log(paidRow('GET /api/v1/paid/time', mcp.http));
  console.log(paidRow('MCP tools/call server_time', mcp.mcp));
  console.log(`ratio MCP/HTTP: ${(mcp.mcp.paidPerSecond / mcp.http.paidPerSecond).toFixed(2)}x`);
  const postgres = process.env.BENCH_SKIP_POSTGRES ? undefined : await benchPostgres(chain);
  console.log('');
  console.log('(c) store: paid calls per second by deployment');
  console.log(paidRow('percall, 1 instance, embedded', percall));
  if (postgres) {
    console.log(paidRow('percall, 1 instance, PostgreSQL', postgres.one));
    console.log(paidRow('percall, 2 instances, PostgreSQL', postgres.two));
  } else {
    console.log('PostgreSQL not reachable (TEST_DATABASE_URL): skipped');
  }
} finally {
  await chain.stop();
}
