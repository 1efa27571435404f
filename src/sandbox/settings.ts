import { availableParallelism } from 'node:os';
import { z } from 'zod';

/**
 * run-python's sandbox settings (RUN_PYTHON_*). The published limits (30 s, 512 MB) are the
 * defaults and the maxima: an operator may only tighten them (tests do, to keep escape cases short).
 */
export interface RunPythonSettings {
  /** `off`: never sold here, even with bubblewrap and Python installed. */
  enabled: boolean;
  /** bubblewrap's executable (found on PATH when a bare name). */
  bwrap: string;
  /** The interpreter; it must live under /usr, the only tree bound into the sandbox. */
  python: string;
  /** Runs at once. */
  concurrency: number;
  /** Runs waiting for a slot; beyond it, 503 with Retry-After. */
  queueLimit: number;
  /** How long a run waits for a slot at most. */
  queueWaitMs: number;
  /** Wall-time limit of one run. */
  timeLimitMs: number;
  /** Address-space limit of one run's processes. */
  memoryBytes: number;
  /** When percall runs as root: the unprivileged user the sandbox runs as (outside its user namespace). */
  uid: number;
  /** Niceness of sandboxed processes, so the server keeps its CPU share while runs compute. */
  nice: number;
}

const MAX_TIME_LIMIT_MS = 30_000;
const MAX_MEMORY_MB = 512;

const defaultConcurrency = () => Math.max(1, Math.floor(availableParallelism() / 2));

const Env = z.object({
  RUN_PYTHON: z.enum(['auto', 'off']).default('auto'),
  RUN_PYTHON_BWRAP: z.string().min(1).default('bwrap'),
  RUN_PYTHON_BIN: z.string().startsWith('/usr/', 'must be an interpreter under /usr (the only tree bound into the sandbox)').default('/usr/bin/python3'),
  RUN_PYTHON_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  RUN_PYTHON_QUEUE: z.coerce.number().int().min(0).max(1_000).optional(),
  RUN_PYTHON_QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(25_000).default(20_000),
  RUN_PYTHON_TIME_LIMIT_MS: z.coerce.number().int().min(500).max(MAX_TIME_LIMIT_MS).default(MAX_TIME_LIMIT_MS),
  RUN_PYTHON_MEMORY_MB: z.coerce.number().int().min(64).max(MAX_MEMORY_MB).default(MAX_MEMORY_MB),
  RUN_PYTHON_UID: z.coerce.number().int().min(1).max(2 ** 31 - 1).default(65534),
  RUN_PYTHON_NICE: z.coerce.number().int().min(0).max(19).default(10),
});

export function runPythonSettingsFromEnv(env: NodeJS.ProcessEnv): RunPythonSettings {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const e = parsed.data;
  const concurrency = e.RUN_PYTHON_CONCURRENCY ?? defaultConcurrency();
  return {
    enabled: e.RUN_PYTHON === 'auto',
    bwrap: e.RUN_PYTHON_BWRAP,
    python: e.RUN_PYTHON_BIN,
    concurrency,
    queueLimit: e.RUN_PYTHON_QUEUE ?? 4 * concurrency,
    queueWaitMs: e.RUN_PYTHON_QUEUE_WAIT_MS,
    timeLimitMs: e.RUN_PYTHON_TIME_LIMIT_MS,
    memoryBytes: e.RUN_PYTHON_MEMORY_MB * 1024 * 1024,
    uid: e.RUN_PYTHON_UID,
    nice: e.RUN_PYTHON_NICE,
  };
}
