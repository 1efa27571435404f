/**
 * The load of `npm run bench`, generated in the bench's own process: unpaid 402 challenges
 * (autocannon) and paid calls (pre-signed, replayed at a fixed concurrency). Every measurement also
 * gives the CPU time the server processes spent on it.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
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

/** `count` calls, `concurrency` at a time, timed each and in all, with the servers' CPU over the whole. */
async function timedCalls(servers: Server[], count: number, call: (i: number) => Promise<void>, concurrency = PAID_CONCURRENCY): Promise<PaidFigures> {
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
  const { cpu } = await withCpu(servers, () => Promise.all(Array.from({ length: concurrency }, worker)));
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

/** Channels paying at once in the batch-settlement section (one voucher in flight per channel, as a channel allows). */
export const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 8);

export interface BatchFigures extends PaidFigures {
  calls: number;
  /** Atomic USDC the served calls were charged (the price times the calls). */
  charged: bigint;
}

/**
 * batch-settlement voucher calls with the official client: BATCH_CONCURRENCY channels, each opened
 * with one deposit before the clock starts (enough for its share of the calls), then vouchers, one
 * at a time per channel. A voucher is signed by the client just before its call (from the channel
 * state the previous answer reported), so latency includes the client's signature.
 */
export async function measureBatch(server: Server, chain: DevChain, count: number): Promise<BatchFigures> {
  const url = `${server.base}${PATH}`;
  const perChannel = Math.ceil(count / BATCH_CONCURRENCY) + 1;
  const payers = await Promise.all(Array.from({ length: BATCH_CONCURRENCY }, () => batchPayer(chain, perChannel)));
  const required = await quote(url);
  const terms = { ...required, accepts: required.accepts.filter((a) => a.scheme === 'batch-settlement') };
  if (terms.accepts.length === 0) throw new Error(`${url}: no batch-settlement terms`);
  let charged = 0n;
  const payOnceWith = async (payer: (typeof payers)[number]) => {
    const payload = await payer.createPaymentPayload(terms);
    const response = await fetch(url, { headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') }, signal: AbortSignal.timeout(PAID_CALL_LIMIT_MS) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url}: voucher call answered ${response.status}`);
    const settleResponse = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    charged += BigInt((settleResponse.extra as { chargedAmount?: string } | undefined)?.chargedAmount ?? 0);
    await payer.handlePaymentResponse({ paymentPayload: payload, requirements: payload.accepted, settleResponse });
  };
  for (const payer of payers) await payOnceWith(payer); // the deposits, outside the clock
  let next = 0;
  const figures = await timedCalls([server], count, async () => {
    const payer = payers[next++ % payers.length]!;
    await payer.serially(() => payOnceWith(payer));
  }, BATCH_CONCURRENCY);
  return { ...figures, calls: count + payers.length, charged };
}

/** One payer on a channel of its own (a fresh salt); its calls run one after another. */
async function batchPayer(chain: DevChain, calls: number) {
  const publicClient = createPublicClient({ transport: http(chain.rpcUrl) });
  const signer = toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), publicClient as never);
  const salt = `0x${randomBytes(32).toString('hex')}` as const;
  const scheme = new BatchSettlementEvmScheme(signer, { salt, depositStrategy: ({ requestAmount }) => (BigInt(requestAmount) * BigInt(calls)).toString() });
  const client = new x402Client().register(chain.network, scheme);
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  let queue: Promise<void> = Promise.resolve();
  return Object.assign(client, {
    serially(work: () => Promise<void>): Promise<void> {
      const run = queue.then(work);
      queue = run.catch(() => undefined);
      return run;
    },
  });
}
