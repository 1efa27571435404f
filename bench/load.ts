/**
 * The load of `npm run bench`, generated in the bench's own process: unpaid 402 challenges
 * (autocannon) and paid calls (pre-signed, replayed at a fixed concurrency). Every measurement also
 * gives the CPU time the server processes spent on it.
 */
import autocannon from 'autocannon';
import type { PaymentRequired } from '@x402/core/types';
import type { DevChain } from '../src/devchain/stack.ts';
import { paymentHeader, quote, signPayment } from '../test/helpers/payments.ts';
import { cpuSeconds, PATH, type Server } from './processes.ts';

export const CHALLENGE_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
export const CHALLENGE_CONNECTIONS = 50;
export const PAID_CALLS = Number(process.env.BENCH_PAID_CALLS ?? 300);
export const PAID_CONCURRENCY = Number(process.env.BENCH_PAID_CONCURRENCY ?? 10);
const PAID_WARMUP = 20;
/** A paid call taking longer than this is reported as a hang (with its index and target), never waited on. */
const PAID_CALL_LIMIT_MS = Number(process.env.BENCH_CALL_LIMIT_MS ?? 60_000);

export interface ChallengeFigures {
  perSecond: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system) per 402, microseconds. */
  cpuUs: number;
}

export interface PaidFigures {
  perSecond: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system) per paid call, milliseconds; summed over the instances served. */
  cpuMs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The CPU seconds `servers` spend while `work` runs. */
async function withCpu<T>(servers: Server[], work: () => Promise<T>): Promise<{ value: T; cpu: number }> {
  const pids = servers.map((s) => s.pid);
  const before = cpuSeconds(pids);
  const value = await work();
  return { value, cpu: cpuSeconds(pids) - before };
}

export async function measureChallenges(server: Server): Promise<ChallengeFigures> {
  const url = `${server.base}${PATH}`;
  await autocannon({ url, connections: 10, duration: 1 }); // warm-up
  const { value: result, cpu } = await withCpu([server], () => autocannon({ url, connections: CHALLENGE_CONNECTIONS, duration: CHALLENGE_SECONDS }));
  if (result['2xx'] > 0 || result.non2xx !== result.requests.total) throw new Error(`${url}: expected only 402s`);
  return { perSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs: (cpu * 1e6) / result.requests.total };
}

/** `count` calls, `PAID_CONCURRENCY` at a time, timed each and in all, with the servers' CPU over the whole. */
async function timedCalls(servers: Server[], count: number, call: (i: number) => Promise<void>): Promise<PaidFigures> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await call(i);
      latencies.push(performance.now() - t0);
    }
  };
  const started = performance.now();
  const { cpu } = await withCpu(servers, () => Promise.all(Array.from({ length: PAID_CONCURRENCY }, worker)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuMs: (cpu * 1000) / count };
}

async function payOnce(url: string, header: Record<string, string>, i: number): Promise<void> {
  const response = await fetch(url, { headers: header, signal: AbortSignal.timeout(PAID_CALL_LIMIT_MS) }).catch((error: unknown) => {
    throw new Error(`${url}: paid call ${i} got no answer within ${PAID_CALL_LIMIT_MS} ms (${(error as Error).name})`);
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: paid call ${i} answered ${response.status}`);
}

/** Signing is the client's cost, the same for every server: done before the clock starts. */
function signAll(chain: DevChain, required: PaymentRequired, count: number) {
  return Promise.all(Array.from({ length: count }, () => signPayment(chain.buyer.privateKey, required)));
}

/** Paid HTTP calls spread round-robin over `servers` (instances serving the same route). */
export async function measurePaid(servers: Server[], chain: DevChain): Promise<PaidFigures> {
  const urls = servers.map((s) => `${s.base}${PATH}`);
  const headers = (await signAll(chain, await quote(urls[0]!), PAID_CALLS + PAID_WARMUP)).map(paymentHeader);
  const warmup = headers.splice(0, PAID_WARMUP);
  await Promise.all(warmup.map((h, i) => payOnce(urls[i % urls.length]!, h, i)));
  return timedCalls(servers, headers.length, (i) => payOnce(urls[i % urls.length]!, headers[i]!, i));
}

/** One JSON-RPC request to the MCP endpoint, as streamable HTTP wants it (JSON response, stateless server). */
async function mcpToolCall(server: Server, params: Record<string, unknown>): Promise<{ result?: { isError?: boolean; structuredContent?: unknown } }> {
  const response = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  });
  return (await response.json()) as { result?: { isError?: boolean; structuredContent?: unknown } };
}

/** Paid tool calls of `server_time` (the same product as GET /api/v1/paid/time), pre-signed like the HTTP calls. */
export async function measurePaidMcp(server: Server, chain: DevChain): Promise<PaidFigures> {
  const unpaid = await mcpToolCall(server, { name: 'server_time', arguments: {} });
  const payloads = await signAll(chain, unpaid.result!.structuredContent as PaymentRequired, PAID_CALLS);
  return timedCalls([server], payloads.length, async (i) => {
    const body = await mcpToolCall(server, { name: 'server_time', arguments: {}, _meta: { 'x402/payment': payloads[i] } });
    if (!body.result || body.result.isError) throw new Error(`paid tool call ${i} failed: ${JSON.stringify(body).slice(0, 300)}`);
  });
}
