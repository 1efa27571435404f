/**
 * Python runs in a bubblewrap sandbox (bwrap.ts: what it sees; seccomp.ts: what it may call;
 * harness.py: the supervisor inside, PID 1, which applies the resource limits, bounds the output,
 * ends the run at its wall-time limit and collects the artifacts). Each run gets a sandbox of its
 * own, used once. Here: finding bubblewrap and the interpreter and proving they work together
 * (`startPythonSandbox`: without that, run-python is not on sale, and nothing ever runs
 * unsandboxed), starting one sandbox per run through a bounded pool, and reading its one answer.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Writable } from 'node:stream';
import { z } from 'zod';
import { PACKAGE_ROOT } from '../package-root.ts';
import { bwrapArgs, HARNESS_FD, sandboxEnv, SECCOMP_FD } from './bwrap.ts';
import { detectContentType } from './content-type.ts';
import { RunPool } from './pool.ts';
import { seccompFilter } from './seccomp.ts';
import type { RunPythonSettings } from './settings.ts';
import type { InputFile, PythonRunner, RunResult } from '../products/kit/python-runner.ts';

export type { InputFile, PythonRunner, RunResult } from '../products/kit/python-runner.ts';

export { PoolBusyError } from './pool.ts';

/** Limits of one run that are not settings: the published ones (RUN_LIMITS in the product) and the sandbox's own. */
export const OUTPUT_LIMITS = {
  /** stdout and stderr each: beyond it, the first three quarters and the last quarter are kept, marked. */
  streamBytes: 64 * 1024,
  artifacts: 3,
  artifactBytes: 192 * 1024,
  processes: 64,
  openFiles: 256,
  /** Largest file the run may write (its working directory holds 64 MB in all). */
  fileBytes: 32 * 1024 * 1024,
} as const;

/** The sandbox's own time to start and to hand back its answer, on top of the run's wall time. */
const BACKSTOP_GRACE_MS = 10_000;
/** The free doors' lane: syntax checks and the example, apart from paid runs. */
const FREE_LANE = { concurrency: 1, queueLimit: 8, queueWaitMs: 5_000, retryAfterSeconds: 2 };
const VALIDATE_TIME_LIMIT_MS = 5_000;
const VALIDATE_MEMORY_BYTES = 256 * 1024 * 1024;
const DIAGNOSTIC_BYTES = 16 * 1024;

export interface SyntaxIssue {
  type: string;
  message: string;
  line: number | null;
  column: number | null;
  endLine: number | null;
  endColumn: number | null;
  text: string | null;
}

/** The sandbox itself failed (could not start, or its supervisor gave no answer): never the caller's doing. */
export class SandboxError extends Error {
  override name = 'SandboxError';
}

/** What the harness prints as its last line. */
const HarnessResult = z.object({
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  memory_exceeded: z.boolean(),
  duration_ms: z.number().int().nonnegative(),
  cpu_ms: z.number().int().nonnegative(),
  stdout: z.string(),
  stdout_truncated: z.boolean(),
  stderr: z.string(),
  stderr_truncated: z.boolean(),
  artifacts: z.array(z.object({ name: z.string(), size: z.number().int().nonnegative(), base64: z.string() })),
  artifacts_skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
});
type HarnessResult = z.infer<typeof HarnessResult>;

interface Limits {
  wallMs: number;
  memoryBytes: number;
}

interface Installation {
  bwrap: string;
  python: string;
  seccomp?: Buffer;
  harness: Buffer;
  /** Set when the service runs as root: the sandbox is started as this unprivileged user. */
  runAs?: number;
}

export class PythonSandbox implements PythonRunner {
  private readonly paid: RunPool;
  private readonly free = new RunPool(FREE_LANE);
  private readonly running = new Set<ReturnType<typeof spawn>>();
  private closed = false;

  private constructor(
    private readonly installation: Installation,
    private readonly settings: RunPythonSettings,
    /** The interpreter's version, e.g. `3.11.2`. */
    readonly pythonVersion: string,
    /** Versions of the packages every run has. */
    readonly packages: Readonly<Record<string, string>>,
  ) {
    this.paid = new RunPool({ concurrency: settings.concurrency, queueLimit: settings.queueLimit, queueWaitMs: settings.queueWaitMs, retryAfterSeconds: Math.ceil(settings.timeLimitMs / 1000) });
  }

  /**
   * A service's sandbox (its own pools), or why run-python is not on sale here. Finding bubblewrap
   * and the interpreter and proving a sandbox starts with them is done once per process and settings.
   */
  static async start(settings: RunPythonSettings): Promise<{ sandbox: PythonSandbox } | { reason: string }> {
    const key = JSON.stringify(settings);
    let probe = probes.get(key);
    if (!probe) {
      probe = probeInstallation(settings);
      probes.set(key, probe);
    }
    const found = await probe;
    if ('reason' in found) return found;
    return { sandbox: new PythonSandbox(found.installation, settings, found.python, found.packages) };
  }


  /** Whether runs are confined by the seccomp filter too (it exists for x86-64 and arm64). */
  get seccomp(): boolean {
    return this.installation.seccomp !== undefined;
  }

  get limits(): { timeLimitMs: number; memoryBytes: number } {
    return { timeLimitMs: this.settings.timeLimitMs, memoryBytes: this.settings.memoryBytes };
  }

  get poolStats(): { active: number; queued: number } {
    return this.paid.stats;
  }

  /** One paid run, through the bounded pool (PoolBusyError when it is full). */
  run(code: string, files: readonly InputFile[], signal?: AbortSignal): Promise<RunResult> {
    return this.paid.run(() => this.runOnce(code, files, signal), signal);
  }

  /** One run for a free door (the worked example), in the free lane, never taking a paid slot. */
  runFree(code: string, files: readonly InputFile[], signal?: AbortSignal): Promise<RunResult> {
    return this.free.run(() => this.runOnce(code, files, signal), signal);
  }

  /** Compiles the code with the sandbox's own interpreter, executing nothing: its syntax errors, with line and column. */
  validate(code: string, signal?: AbortSignal): Promise<SyntaxIssue[]> {
    return this.free.run(async () => {
      const answer = await this.execute({ mode: 'validate', code, files: [], limits: { wallMs: VALIDATE_TIME_LIMIT_MS, memoryBytes: VALIDATE_MEMORY_BYTES } }, signal);
      const parsed = z
        .object({
          errors: z.array(
            z.object({ type: z.string(), message: z.string(), line: z.number().int().nullable(), column: z.number().int().nullable(), end_line: z.number().int().nullable(), end_column: z.number().int().nullable(), text: z.string().nullable() }),
          ),
        })
        .safeParse(safeJson(answer.stdout));
      if (answer.timed_out) return [{ type: 'TimeoutError', message: `the syntax check did not finish within ${VALIDATE_TIME_LIMIT_MS} ms`, line: null, column: null, endLine: null, endColumn: null, text: null }];
      if (!parsed.success) {
        if (answer.memory_exceeded) return [{ type: 'MemoryError', message: 'the code is too large or too deeply nested to compile', line: null, column: null, endLine: null, endColumn: null, text: null }];
        throw new SandboxError(`the syntax check gave no answer (exit ${answer.exit_code})`);
      }
      return parsed.data.errors.map((e) => ({ type: e.type, message: e.message, line: e.line, column: e.column, endLine: e.end_line, endColumn: e.end_column, text: e.text }));
    }, signal);
  }

  /** Stops every running sandbox (the service is stopping). */
  close(): void {
    this.closed = true;
    for (const child of this.running) child.kill('SIGKILL');
  }

  private async runOnce(code: string, files: readonly InputFile[], signal?: AbortSignal): Promise<RunResult> {
    const answer = await this.execute({ mode: 'run', code, files, limits: { wallMs: this.settings.timeLimitMs, memoryBytes: this.settings.memoryBytes } }, signal);
    return {
      stdout: answer.stdout,
      stderr: answer.stderr,
      stdoutTruncated: answer.stdout_truncated,
      stderrTruncated: answer.stderr_truncated,
      exitCode: answer.exit_code,
      timedOut: answer.timed_out,
      memoryExceeded: answer.memory_exceeded,
      durationMs: answer.duration_ms,
      cpuMs: answer.cpu_ms,
      artifacts: answer.artifacts.map((a) => ({ name: a.name, size: a.size, base64: a.base64, contentType: detectContentType(a.name, Buffer.from(a.base64, 'base64')) })),
      artifactsSkipped: answer.artifacts_skipped,
    };
  }

  private execute(job: Omit<Job, 'nice'>, signal?: AbortSignal): Promise<HarnessResult> {
    if (this.closed) return Promise.reject(new SandboxError('the service is stopping'));
    return execute(this.installation, { ...job, nice: this.settings.nice }, signal, this.running);
  }
}

type Probe = { installation: Installation; python: string; packages: Record<string, string> } | { reason: string };
// One probe per settings and process: services started by tests share it.
const probes = new Map<string, Promise<Probe>>();

async function probeInstallation(settings: RunPythonSettings): Promise<Probe> {
  if (!settings.enabled) return { reason: 'RUN_PYTHON=off' };
  const bwrap = findExecutable(settings.bwrap);
  if (!bwrap) return { reason: `bubblewrap (${settings.bwrap}) is not installed (Debian package bubblewrap)` };
  if (!isExecutable(settings.python)) return { reason: `no Python interpreter at ${settings.python} (Debian packages python3, python3-numpy, python3-pandas, python3-requests)` };
  const installation: Installation = {
    bwrap,
    python: settings.python,
    seccomp: seccompFilter(),
    harness: readFileSync(join(PACKAGE_ROOT, 'src', 'sandbox', 'harness.py')),
    ...(process.getuid?.() === 0 ? { runAs: settings.uid } : {}),
  };
  let answer: HarnessResult;
  try {
    answer = await execute(installation, { mode: 'run', code: PROBE, files: [], limits: { wallMs: 10_000, memoryBytes: settings.memoryBytes }, nice: 0 });
  } catch (error) {
    return { reason: `a sandbox cannot be started here: ${(error as Error).message}` };
  }
  if (answer.exit_code !== 0) return { reason: `Python in the sandbox failed: ${answer.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400)}` };
  const probe = z.object({ python: z.string(), packages: z.record(z.string(), z.string().nullable()) }).safeParse(safeJson(answer.stdout));
  if (!probe.success) return { reason: 'the sandbox probe gave an unexpected answer' };
  const missing = Object.entries(probe.data.packages).filter(([, version]) => version === null).map(([name]) => name);
  if (missing.length > 0) return { reason: `Python in the sandbox lacks ${missing.join(', ')} (Debian packages ${missing.map((m) => `python3-${m}`).join(', ')})` };
  return { installation, python: probe.data.python, packages: probe.data.packages as Record<string, string> };
}

interface Job {
  mode: 'run' | 'validate';
  code: string;
  files: readonly InputFile[];
  limits: Limits;
  nice: number;
}

/** Reports the interpreter's version and the packages' (read from their metadata: nothing is imported). */
const PROBE = `import json, platform, importlib.metadata as m
def version(name):
    try:
        return m.version(name)
    except m.PackageNotFoundError:
        return None
print(json.dumps({'python': platform.python_version(), 'packages': {p: version(p) for p in ('numpy', 'pandas', 'requests')}}))
`;

/** Starts one sandbox for one job and reads its answer. */
function execute(installation: Installation, job: Job, signal?: AbortSignal, running?: Set<ReturnType<typeof spawn>>): Promise<HarnessResult> {
  const request = JSON.stringify({
    mode: job.mode,
    code: job.code,
    files: job.files.map((f) => ({ name: f.name, base64: f.bytes.toString('base64') })),
    python: installation.python,
    env: sandboxEnv(),
    limits: {
      wall_ms: job.limits.wallMs,
      memory_bytes: job.limits.memoryBytes,
      cpu_seconds: Math.ceil(job.limits.wallMs / 1000) + 1,
      processes: OUTPUT_LIMITS.processes,
      open_files: OUTPUT_LIMITS.openFiles,
      file_bytes: OUTPUT_LIMITS.fileBytes,
      stdout_bytes: OUTPUT_LIMITS.streamBytes,
      stderr_bytes: OUTPUT_LIMITS.streamBytes,
      artifacts: OUTPUT_LIMITS.artifacts,
      artifact_bytes: OUTPUT_LIMITS.artifactBytes,
      nice: job.nice,
    },
  });
  // The answer is bounded: both streams (JSON-escaped, at most 6 bytes a byte) and the artifacts in base64.
  const maxAnswer = 2 * 6 * OUTPUT_LIMITS.streamBytes + OUTPUT_LIMITS.artifacts * Math.ceil((OUTPUT_LIMITS.artifactBytes * 4) / 3 + 1024) + 64 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(installation.bwrap, bwrapArgs({ python: installation.python, withSeccomp: installation.seccomp !== undefined }), {
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: {},
      cwd: '/',
      ...(installation.runAs !== undefined ? { uid: installation.runAs, gid: installation.runAs } : {}),
    });
    running?.add(child);
    const out: Buffer[] = [];
    let outBytes = 0;
    let diagnostics = '';
    let overflow = false;
    let backstopped = false;
    let spawnError: Error | undefined;
    const kill = () => child.kill('SIGKILL');
    // The harness ends the run at its wall time; this is for a sandbox that does not (killing bwrap kills everything in it).
    const backstop = setTimeout(() => {
      backstopped = true;
      kill();
    }, job.limits.wallMs + BACKSTOP_GRACE_MS);
    const aborted = () => kill();
    signal?.addEventListener('abort', aborted, { once: true });
    for (const stream of child.stdio) stream?.on('error', () => undefined);
    child.on('error', (error) => {
      spawnError = error;
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxAnswer) {
        overflow = true;
        kill();
        return;
      }
      out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (diagnostics.length < DIAGNOSTIC_BYTES) diagnostics += chunk.toString('utf8').slice(0, DIAGNOSTIC_BYTES - diagnostics.length);
    });
    child.on('close', (code, killSignal) => {
      clearTimeout(backstop);
      signal?.removeEventListener('abort', aborted);
      running?.delete(child);
      const lines = Buffer.concat(out).toString('utf8').split('\n').filter(Boolean);
      const started = lines[0] === '{"started": true}';
      const answer = started && lines.length >= 2 ? HarnessResult.safeParse(safeJson(lines[1]!)) : undefined;
      if (answer?.success) return resolve(answer.data);
      if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new SandboxError('the run was cancelled'));
      if (started && backstopped) return resolve(stoppedRun(job.limits.wallMs));
      const why = spawnError?.message ?? (overflow ? 'its answer exceeded its bound' : `exit ${code ?? killSignal}: ${diagnostics.trim().slice(-500) || 'no diagnostics'}`);
      reject(new SandboxError(started ? `the sandbox's supervisor gave no answer (${why})` : `the sandbox did not start (${why})`));
    });
    const input = (fd: number) => child.stdio[fd] as Writable;
    input(SECCOMP_FD).end(installation.seccomp ?? Buffer.alloc(0));
    input(HARNESS_FD).end(installation.harness);
    child.stdin!.end(request);
  });
}

/** A run the backstop had to stop: the code ran to its limit, nothing could be collected. */
function stoppedRun(wallMs: number): HarnessResult {
  return {
    exit_code: null,
    timed_out: true,
    memory_exceeded: false,
    duration_ms: wallMs,
    cpu_ms: 0,
    stdout: '',
    stdout_truncated: false,
    stderr: '',
    stderr_truncated: false,
    artifacts: [],
    artifacts_skipped: [],
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An absolute path as is, a bare name looked up on PATH. */
function findExecutable(name: string): string | undefined {
  if (name.includes('/')) return isExecutable(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && isExecutable(candidate)) return candidate;
  }
  return undefined;
}
