/**
 * (i) run_python's sandbox: cold-run latency (each run a new sandbox: bwrap, the supervisor and the
 * interpreter started, used once) for a hello world and for a pandas group-by over 10,000 CSV rows;
 * runs per second with the pool full; and the service's 402 rate while its pool is saturated by paid
 * runs that keep every core busy (the sandbox must not starve the server: its processes run niced).
 * The latency and throughput figures come from the sandbox in this process, with the default
 * settings; the 402 figures from a percall server as an operator runs it.
 */
import { availableParallelism } from 'node:os';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { PythonSandbox } from '../src/sandbox/python-sandbox.ts';
import { runPythonSettingsFromEnv } from '../src/sandbox/settings.ts';
import { measureChallenges, type ChallengeFigures } from './load.ts';
import type { Fleet } from './processes.ts';

const COLD_RUNS = Number(process.env.BENCH_PYTHON_RUNS ?? 20);
const PANDAS_ROWS = 10_000;
/** How long each saturating run keeps its cores busy: longer than the 402 measurement. */
const SATURATION_SECONDS = 14;

export interface PythonFigures {
  pythonVersion: string;
  concurrency: number;
  hello: Latency;
  pandas: Latency;
  /** Hello-world runs per second with the pool full. */
  runsPerSecond: number;
  idle: ChallengeFigures;
  saturated: ChallengeFigures;
}

interface Latency {
  p50: number;
  p99: number;
  /** The run itself (interpreter start to end), as the sandbox measured it: the rest is the sandbox's own start. */
  runP50: number;
}

const HELLO = 'print("hello")';
const GROUP_BY = "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df.groupby('region')['amount'].agg(['count', 'sum', 'mean']).round(2).to_string())";

function salesCsv(): Buffer {
  const regions = ['east', 'north', 'south', 'west'];
  const lines = ['region,amount'];
  for (let i = 0; i < PANDAS_ROWS; i++) lines.push(`${regions[(i * 7) % 4]},${((i * 37) % 10_000) / 100}`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function latency(sandbox: PythonSandbox, code: string, files: { name: string; bytes: Buffer }[]): Promise<Latency> {
  const totals: number[] = [];
  const runs: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const t0 = performance.now();
    const result = await sandbox.run(code, files);
    totals.push(performance.now() - t0);
    if (result.exitCode !== 0) throw new Error(`bench run failed: ${result.stderr.slice(-300)}`);
    runs.push(result.durationMs);
  }
  totals.sort((a, b) => a - b);
  runs.sort((a, b) => a - b);
  return { p50: percentile(totals, 50), p99: percentile(totals, 99), runP50: percentile(runs, 50) };
}

export async function benchPython(chain: DevChain, fleet: Fleet): Promise<PythonFigures | { skipped: string }> {
  const settings = runPythonSettingsFromEnv({ RUN_PYTHON_QUEUE: '1000' });
  const started = await PythonSandbox.start(settings);
  if ('reason' in started) return { skipped: started.reason };
  const sandbox = started.sandbox;
  try {
    await sandbox.run(HELLO, []); // the page cache warm, as on a running server
    const hello = await latency(sandbox, HELLO, []);
    const pandas = await latency(sandbox, GROUP_BY, [{ name: 'sales.csv', bytes: salesCsv() }]);
    const count = 16 * settings.concurrency;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: count }, () => sandbox.run(HELLO, [])));
    const runsPerSecond = count / ((performance.now() - t0) / 1000);

    const server = await fleet.percall({ DEV_RPC_URL: chain.rpcUrl });
    const idle = await measureChallenges(server);
    // Paid runs filling every slot of the server's pool, each keeping all cores busy.
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const burn = `import os, time\nend = time.time() + ${SATURATION_SECONDS}\nfor _ in range(os.cpu_count() - 1):\n    if os.fork() == 0:\n        break\nwhile time.time() < end:\n    pass`;
    const slots = settings.concurrency;
    const saturating = Array.from({ length: slots }, () =>
      pay(`${server.base}/api/v1/paid/run-python`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: burn }) }).then(async (r) => {
        if (r.status !== 200) throw new Error(`saturating run answered ${r.status}: ${await r.text()}`);
      }),
    );
    await new Promise((r) => setTimeout(r, 1_500)); // paid, verified and running
    const saturated = await measureChallenges(server);
    await Promise.all(saturating);
    return { pythonVersion: sandbox.pythonVersion, concurrency: settings.concurrency, hello, pandas, runsPerSecond, idle, saturated };
  } finally {
    sandbox.close();
  }
}

export function printPython(figures: PythonFigures | { skipped: string }): void {
  console.log('');
  if ('skipped' in figures) {
    console.log(`(i) run_python: skipped (${figures.skipped})`);
    return;
  }
  const f = figures;
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  console.log(`(i) run_python: Python ${f.pythonVersion} in bubblewrap, a sandbox per run; pool of ${f.concurrency} (RUN_PYTHON_CONCURRENCY default on ${availableParallelism()} cores); ${COLD_RUNS} runs each`);
  console.log(`cold run, hello world                     p50 ${ms(f.hello.p50)}  p99 ${ms(f.hello.p99)}  (the interpreter's own run: p50 ${ms(f.hello.runP50)})`);
  console.log(`cold run, pandas group-by of ${PANDAS_ROWS} rows    p50 ${ms(f.pandas.p50)}  p99 ${ms(f.pandas.p99)}  (the interpreter's own run: p50 ${ms(f.pandas.runP50)})`);
  console.log(`hello-world runs/s with the pool full       ${f.runsPerSecond.toFixed(1)}`);
  console.log(`402s/s, pool idle                          ${f.idle.perSecond.toFixed(0)}  (p50 ${f.idle.p50.toFixed(1)} ms, p99 ${f.idle.p99.toFixed(1)} ms)`);
  console.log(`402s/s, pool saturated (all cores busy)    ${f.saturated.perSecond.toFixed(0)}  (p50 ${f.saturated.p50.toFixed(1)} ms, p99 ${f.saturated.p99.toFixed(1)} ms): ${((100 * f.saturated.perSecond) / f.idle.perSecond).toFixed(0)}% of idle`);
}
