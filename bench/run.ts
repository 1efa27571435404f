/**
 * `npm run bench`: percall against a reference server built from the official `@x402/hono`
 * middleware, on one machine, one anvil chain, one facilitator implementation and one price.
 * (a) unpaid 402 challenges: requests/s, p50/p99 latency (autocannon) and server CPU per request;
 * (b) paid calls end to end: pre-signed payments replayed with fixed concurrency, each verified,
 *     served and settled on-chain (calls/s, p50/p99, server CPU per call);
 * both BENCH_RUNS times (alternating which server goes first), reported as min / median / max;
 * then the cost of telemetry, MCP against HTTP, the store on PostgreSQL, and percall's memory and
 * start-up, the block index, and run_python's sandbox (bench/python.ts). Each server runs in its
 * own child process; the load comes from this process. Every
 * measured section starts on the chain as it was after setup (bench/chain.ts).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { startDevChain, type DevChain } from '../src/devchain/stack.ts';
import { createLogger } from '../src/log.ts';
import { DEV_ROLES } from '../src/devchain/contracts.ts';
import { freshDatabase } from '../test/helpers/postgres.ts';
import { checkpoint, type Checkpoint } from './chain.ts';
import { usdcBalance } from '../src/devchain/contracts.ts';
import {
  BATCH_CONCURRENCY,
  measureBatch,
  type BatchFigures,
  CHALLENGE_CONNECTIONS,
  CHALLENGE_SECONDS,
  measureChallenges,
  measurePaid,
  measurePaidMcp,
  PAID_CALLS,
  PAID_CONCURRENCY,
  type ChallengeFigures,
  type PaidFigures,
} from './load.ts';
import { Fleet, residentMemory, type Server } from './processes.ts';
import { header, medians, printTable, row, type Column, type Row } from './report.ts';
import { benchIndex, printIndex } from './index.ts';
import { benchPython, printPython } from './python.ts';
import { benchBazaar, printBazaar } from './bazaar.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** BENCH_ONLY=batch,memory runs only those sections (headline, telemetry, mcp, store, batch, memory, index, python, bazaar); all by default. */
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const wanted = (name: string) => !ONLY || ONLY.includes(name);
/** How long percall idles after its first answer before its memory is read. */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 20_000);
const MEMORY_TARGET_MB = { dev: 250, production: 150 } as const;

interface Bench {
  chain: DevChain;
  start: Checkpoint;
  /** Builds dist/ if a source changed since the last build (bin/build.js). */
  ensureBuilt(): Promise<string>;
}

interface Figures {
  challenges: ChallengeFigures;
  paid: PaidFigures;
}

const CHALLENGE_COLUMNS: Column<ChallengeFigures>[] = [
  { header: 'req/s', digits: 0, value: (f) => f.perSecond },
  { header: 'p50 ms', digits: 1, value: (f) => f.p50 },
  { header: 'p99 ms', digits: 1, value: (f) => f.p99 },
  { header: 'server CPU µs/req', digits: 0, value: (f) => f.cpuUs },
];

const PAID_COLUMNS: Column<PaidFigures>[] = [
  { header: 'calls/s', digits: 1, value: (f) => f.perSecond },
  { header: 'p50 ms', digits: 1, value: (f) => f.p50 },
  { header: 'p99 ms', digits: 1, value: (f) => f.p99 },
  { header: 'server CPU ms/call', digits: 2, value: (f) => f.cpuMs },
];

/**
 * A measured section: the chain rewound to its state after setup, then servers of its own, every
 * one stopped (and its data directory removed) before the next section rewinds the chain again.
 */
async function section<T>(bench: Bench, work: (fleet: Fleet) => Promise<T>): Promise<T> {
  await bench.start.rewind();
  const fleet = new Fleet();
  try {
    return await work(fleet);
  } finally {
    await fleet.close();
  }
}

/** Dev-mode percall joining the bench's chain (settling with the facilitator role's gas wallet unless told otherwise). */
function onBenchChain(chain: DevChain, env: Record<string, string> = {}): Record<string, string> {
  return { DEV_RPC_URL: chain.rpcUrl, ...env };
}

function referenceEnv(chain: DevChain): Record<string, string> {
  return {
    RPC_URL: chain.rpcUrl,
    CHAIN_ID: String(chain.chainId),
    NETWORK: chain.network,
    FACILITATOR_KEY: chain.facilitatorKey,
    PAY_TO: chain.payTo,
    ASSET: chain.usdc,
    AMOUNT: '10000',
  };
}

/** Production mode settling with the built-in facilitator on the bench's chain, its store on PostgreSQL. */
function productionEnv(chain: DevChain, databaseUrl: string): Record<string, string> {
  return {
    PERCALL_MODE: 'production',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    EVM_RPC_URL: chain.rpcUrl,
    // No other server runs during this section; the spare role keeps it off the deployer's nonces anyway.
    FACILITATOR_PRIVATE_KEY: DEV_ROLES.spare.privateKey,
    PAY_TO: chain.payTo,
    EVM_NETWORK: chain.network,
    USDC_ADDRESS: chain.usdc,
  };
}

/** A fresh PostgreSQL database for `work`, dropped after; undefined when no server answers (or BENCH_SKIP_POSTGRES). */
async function onFreshDatabase<T>(work: (url: string) => Promise<T>): Promise<T | undefined> {
  const db = process.env.BENCH_SKIP_POSTGRES ? undefined : await freshDatabase();
  if (!db) return undefined;
  try {
    return await work(db.url);
  } finally {
    await db.drop();
  }
}

async function measureServer(bench: Bench, start: (fleet: Fleet) => Promise<Server>): Promise<Figures> {
  return section(bench, async (fleet) => {
    const server = await start(fleet);
    return { challenges: await measureChallenges(server), paid: await measurePaid([server], bench.chain) };
  });
}

/** The headline: both servers RUNS times, alternating which goes first so neither gains from its place. */
async function benchHeadline(bench: Bench): Promise<{ reference: Figures[]; percall: Figures[] }> {
  const reference: Figures[] = [];
  const percall: Figures[] = [];
  const measureReference = async () => reference.push(await measureServer(bench, (fleet) => fleet.reference(referenceEnv(bench.chain))));
  const measurePercall = async () => percall.push(await measureServer(bench, (fleet) => fleet.percall(onBenchChain(bench.chain))));
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? [measureReference, measurePercall] : [measurePercall, measureReference];
    for (const measure of order) await measure();
  }
  return { reference, percall };
}

/** 402 challenges with counting on and off, alternated three times, the best of each side kept. */
async function benchTelemetryCost(bench: Bench): Promise<{ on: ChallengeFigures; off: ChallengeFigures }> {
  const measure = (telemetry: 'on' | 'off') =>
    section(bench, async (fleet) => measureChallenges(await fleet.percall(onBenchChain(bench.chain, { TELEMETRY: telemetry }))));
  const best = (a: ChallengeFigures | undefined, b: ChallengeFigures) => (a && a.perSecond >= b.perSecond ? a : b);
  let on: ChallengeFigures | undefined;
  let off: ChallengeFigures | undefined;
  for (let round = 0; round < 3; round++) {
    on = best(on, await measure('on'));
    off = best(off, await measure('off'));
  }
  return { on: on!, off: off! };
}

/** Paid HTTP calls, then paid MCP tool calls of the same product, on one embedded instance. */
function benchMcp(bench: Bench): Promise<{ http: PaidFigures; mcp: PaidFigures }> {
  return section(bench, async (fleet) => {
    const server = await fleet.percall(onBenchChain(bench.chain));
    return { http: await measurePaid([server], bench.chain), mcp: await measurePaidMcp(server, bench.chain) };
  });
}

/** Paid calls over `instances` instances sharing one PostgreSQL database, each with a gas wallet of its own. */
function benchPostgres(bench: Bench, instances: number): Promise<PaidFigures | undefined> {
  const gasWallets = [DEV_ROLES.facilitator.privateKey, DEV_ROLES.spare.privateKey];
  return onFreshDatabase((url) =>
    section(bench, async (fleet) => {
      const servers: Server[] = [];
      for (let i = 0; i < instances; i++) {
        servers.push(await fleet.percall(onBenchChain(bench.chain, { DATABASE_URL: url, FACILITATOR_PRIVATE_KEY: gasWallets[i]! })));
      }
      return measurePaid(servers, bench.chain);
    }),
  );
}

/** How long the batch section waits for the service's claim to reach payTo. */
const CLAIM_WAIT_MS = 60_000;

/**
 * Voucher calls on one embedded instance that claims every second; then the wait until the claim
 * and settle reached payTo, which must equal what the vouchers charged.
 */
function benchBatch(bench: Bench): Promise<BatchFigures & { claimedMs: number; payToGain: bigint }> {
  return section(bench, async (fleet) => {
    const { chain } = bench;
    const server = await fleet.percall(onBenchChain(chain, { BATCH_CLAIM_INTERVAL_MS: '1000' }));
    const before = await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo);
    const figures = await measureBatch(server, chain, PAID_CALLS * 4);
    const started = performance.now();
    let gain = 0n;
    while ((gain = (await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo)) - before) < figures.charged && performance.now() - started < CLAIM_WAIT_MS) await delay(200);
    return { ...figures, claimedMs: performance.now() - started, payToGain: gain };
  });
}

function printBatch(batch: BatchFigures & { claimedMs: number; payToGain: bigint }, reference: PaidFigures | undefined): void {
  const rows: Row<PaidFigures>[] = [['percall batch-settlement', [batch]]];
  if (reference) rows.push(['reference exact (medians of (b))', [reference]], ['ratio', [batch], [reference]]);
  printTable(`(g) batch-settlement vouchers with the official client, ${batch.calls} calls on ${BATCH_CONCURRENCY} channels at once, against the reference's exact calls of (b)`, PAID_COLUMNS, rows);
  const exact = batch.payToGain === batch.charged;
  console.log(`claimed and settled to payTo ${(batch.claimedMs / 1000).toFixed(1)} s after the last call: +${batch.payToGain} atomic for ${batch.charged} charged ${exact ? '(equal)' : '(NOT EQUAL)'}; target: ≥ 10x, p50 under 15 ms`);
}

interface Footprint {
  startupMs: number;
  rssMb: number;
  peakMb: number;
}

/** Starts percall, lets it idle IDLE_MS after its first 402, reads its own process's memory, stops it. */
async function footprint(bench: Bench, fleet: Fleet, env: Record<string, string>): Promise<Footprint> {
  // A source edited meanwhile is built here rather than inside the measured start.
  await bench.ensureBuilt();
  const server = await fleet.percall(env);
  await delay(IDLE_MS);
  const memory = residentMemory(server.pid);
  await fleet.stop(server);
  return { startupMs: server.startupMs, ...memory };
}

/** Dev mode with its own chain (anvil as its child, the Solana VM in process): first start, then a restart on the same data; production on PostgreSQL. */
async function benchFootprints(bench: Bench): Promise<{ first: Footprint; restart: Footprint; production?: Footprint }> {
  const dev = await section(bench, async (fleet) => {
    const env = { PERCALL_DATA_DIR: await fleet.tempDir() };
    return { first: await footprint(bench, fleet, env), restart: await footprint(bench, fleet, env) };
  });
  const production = await onFreshDatabase((url) => section(bench, (fleet) => footprint(bench, fleet, productionEnv(bench.chain, url))));
  return { ...dev, production };
}

function printHeadline({ reference, percall }: { reference: Figures[]; percall: Figures[] }): void {
  const spread = RUNS > 1 ? `: min / median / max of ${RUNS} runs` : '';
  const rows = <T>(pick: (f: Figures) => T): Row<T>[] => [
    ['reference @x402/hono', reference.map(pick)],
    ['percall', percall.map(pick)],
    ['ratio percall/reference', percall.map(pick), reference.map(pick)],
  ];
  printTable(`(a) 402 challenges, ${CHALLENGE_SECONDS} s at ${CHALLENGE_CONNECTIONS} connections${spread}`, CHALLENGE_COLUMNS, rows((f) => f.challenges));
  printTable(`(b) paid calls settled on anvil, ${PAID_CALLS} at concurrency ${PAID_CONCURRENCY}${spread}`, PAID_COLUMNS, rows((f) => f.paid));
}

function printTelemetryCost({ on, off }: { on: ChallengeFigures; off: ChallengeFigures }): void {
  printTable('(c) the cost of counting: 402 challenges with telemetry on and off (best of 3 each)', CHALLENGE_COLUMNS, [
    ['telemetry on', [on]],
    ['telemetry off', [off]],
  ]);
  // Rates on two shared cores swing by more than 5% from run to run; CPU per request does not.
  console.log(`difference: ${((on.cpuUs / off.cpuUs - 1) * 100).toFixed(1)}% more server CPU per 402, ${((1 - on.perSecond / off.perSecond) * 100).toFixed(1)}% fewer req/s (target: under 5%)`);
}

function printMcp({ http, mcp }: { http: PaidFigures; mcp: PaidFigures }): void {
  printTable('(d) the same product, paid over HTTP and as an MCP tool (one instance)', PAID_COLUMNS, [
    ['GET /api/v1/paid/time', [http]],
    ['MCP tools/call server_time', [mcp]],
    ['ratio MCP/HTTP', [mcp], [http]],
  ]);
}

function printStore(embedded: PaidFigures, postgres: { one: PaidFigures; two?: PaidFigures } | undefined): void {
  const rows: Row<PaidFigures>[] = [['percall, 1 instance, embedded', [embedded]]];
  if (postgres) rows.push(['percall, 1 instance, PostgreSQL', [postgres.one]]);
  if (postgres?.two) rows.push(['percall, 2 instances, PostgreSQL', [postgres.two]]);
  const embeddedFrom = RUNS > 1 ? '; embedded: the medians of (b)' : '';
  printTable(`(e) store: paid calls by deployment (server CPU: percall's processes, not PostgreSQL's${embeddedFrom})`, PAID_COLUMNS, rows);
  if (!postgres) console.log('PostgreSQL not reachable (TEST_DATABASE_URL) or BENCH_SKIP_POSTGRES: skipped');
}

function printFootprints(f: { first: Footprint; restart: Footprint; production?: Footprint }): void {
  const columns: Column<Footprint>[] = [
    { header: 'start-up ms', digits: 0, value: (x) => x.startupMs },
    { header: 'RSS MB', digits: 0, value: (x) => x.rssMb },
    { header: 'peak RSS MB', digits: 0, value: (x) => x.peakMb },
  ];
  const line = (label: string, x: Footprint, target: number) =>
    console.log(`${row(label, [x], columns)}   ≤ ${target} MB ${x.rssMb <= target ? 'ok' : 'OVER'}`);
  console.log('');
  console.log(`(f) percall's own process: spawn to first 402 (dev: starting its anvil and Solana VM too), resident memory ${IDLE_MS / 1000} s later (anvil's not included)`);
  console.log(`${header(columns)}   target`);
  line('dev, first start (fresh data dir)', f.first, MEMORY_TARGET_MB.dev);
  line('dev, restart (same data dir)', f.restart, MEMORY_TARGET_MB.dev);
  if (f.production) line('production, PostgreSQL', f.production, MEMORY_TARGET_MB.production);
  else console.log('production on PostgreSQL: skipped (no PostgreSQL)');
}

const chain = await startDevChain({ log: createLogger('warn') });
try {
  // bin/build.js is plain JavaScript, outside the type-checked sources: loaded by URL.
  const { ensureBuilt } = (await import(new URL('../bin/build.js', import.meta.url).href)) as Pick<Bench, 'ensureBuilt'>;
  await ensureBuilt();
  const bench: Bench = { chain, start: await checkpoint(chain.rpcUrl), ensureBuilt };
  console.log(
    `bench: ${RUNS} alternating runs; ${CHALLENGE_SECONDS}s of 402s at ${CHALLENGE_CONNECTIONS} connections; ${PAID_CALLS} paid calls at concurrency ${PAID_CONCURRENCY}; each section on the chain as set up; node ${process.version}`,
  );
  const headline = wanted('headline') ? await benchHeadline(bench) : undefined;
  if (headline) printHeadline(headline);
  if (wanted('telemetry')) printTelemetryCost(await benchTelemetryCost(bench));
  if (wanted('mcp')) printMcp(await benchMcp(bench));
  if (wanted('store') && headline) {
    const one = await benchPostgres(bench, 1);
    printStore(medians(headline.percall.map((f) => f.paid)), one && { one, two: await benchPostgres(bench, 2) });
  }
  if (wanted('batch')) printBatch(await benchBatch(bench), headline && medians(headline.reference.map((f) => f.paid)));
  if (wanted('memory')) printFootprints(await benchFootprints(bench));
  if (wanted('index')) printIndex(await section(bench, () => benchIndex(bench.chain)));
  if (wanted('python')) printPython(await section(bench, (fleet) => benchPython(bench.chain, fleet)));
  if (wanted('bazaar')) printBazaar(await benchBazaar());
} finally {
  await chain.stop();
}
