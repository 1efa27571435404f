/**
 * The server processes of `npm run bench`: each runs as a child of the bench, is measured through
 * /proc (CPU time, resident memory) and is stopped at the end of its section. The bench knows which
 * children are alive, so the dev chain is never rewound under a running server (bench/chain.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../test/helpers/instances.ts';

/** The paid route both servers sell, at the same price. */
export const PATH = '/api/v1/paid/time';
const START_LIMIT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export interface Server {
  /** `http://127.0.0.1:<port>` */
  base: string;
  pid: number;
  child: ChildProcess;
  /** From spawn until the paid route answered its first 402. */
  startupMs: number;
}

const live = new Set<ChildProcess>();

/** Children started by the bench and not yet exited. */
export function liveChildren(): number {
  return live.size;
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function spawnServer(name: string, args: string[], env: Record<string, string>): ChildProcess {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each server process there.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_LOG_DIR=<dir> keeps each server's log (stdout) there; otherwise it is discarded.
  const logDir = process.env.BENCH_LOG_DIR;
  const stdout = logDir ? openSync(join(logDir, `${name}-${Date.now()}.log`), 'a') : 'ignore';
  const child = spawn(process.execPath, [...profile, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'inherit'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

async function waitFor402(url: string, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + START_LIMIT_MS;
  while (performance.now() < deadline) {
    if (hasExited(child)) throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before answering ${url}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 402) return;
    } catch {
      // not listening yet
    }
    await delay(20);
  }
  throw new Error(`no 402 from ${url} within ${START_LIMIT_MS} ms`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const graceful = await Promise.race([exited.then(() => true), delay(STOP_GRACE_MS, false)]);
  if (graceful) return;
  child.kill('SIGKILL');
  await exited;
}

/**
 * The servers of one bench section and their data directories, all stopped and removed by `close`.
 * Percall instances always start on a data directory of their own unless one is given.
 */
export class Fleet {
  private readonly servers: Server[] = [];
  private readonly dirs: string[] = [];

  async tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'percall-bench-'));
    this.dirs.push(dir);
    return dir;
  }

  /** `percall start` (the compiled bundle, as an operator runs it), quiet but for warnings. */
  async percall(env: Record<string, string>): Promise<Server> {
    const dataDir = env.PERCALL_DATA_DIR ?? (await this.tempDir());
    return this.start('percall', ['--max-semi-space-size=4', 'bin/percall.js', 'start'], { LOG_LEVEL: 'warn', ...env, PERCALL_DATA_DIR: dataDir });
  }

  /** The `@x402/hono` reference server (bench/reference-server.ts). */
  reference(env: Record<string, string>): Promise<Server> {
    return this.start('reference', ['--import', 'tsx', 'bench/reference-server.ts'], env);
  }

  async stop(server: Server): Promise<void> {
    await stopChild(server.child);
  }

  async close(): Promise<void> {
    for (const server of this.servers) await stopChild(server.child);
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true });
  }

  private async start(name: string, args: string[], env: Record<string, string>): Promise<Server> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const started = performance.now();
    const child = spawnServer(name, args, { ...env, PORT: String(port) });
    const server: Server = { base, pid: child.pid!, child, startupMs: 0 };
    this.servers.push(server);
    await waitFor402(`${base}${PATH}`, child);
    server.startupMs = performance.now() - started;
    return server;
  }
}

let clockTicks: number | undefined;

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, 100 on nearly every Linux). */
function ticksPerSecond(): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicks;
}

/** User + system CPU seconds the processes have used so far, all their threads included. */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 (state): utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / ticksPerSecond();
}

/** Resident memory of one process now and at its peak, in MB (VmRSS and VmHWM of /proc/<pid>/status). */
export function residentMemory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
}
