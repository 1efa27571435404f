/**
 * run_python: one run of the caller's code in a sandbox of its own (src/sandbox/). What is charged:
 * - every run that ran, whatever the code did: an exception, a non-zero exit, the wall-time limit
 *   (`timed_out`), the memory limit (`memory_exceeded`), output cut at its bound;
 * not charged:
 * - input the sandbox would refuse (file names, encodings, sizes: 4xx, checked with the input so the
 *   unpaid 402 already says so);
 * - a full pool (503 with Retry-After) and a sandbox that failed to start or to answer (502).
 */
import { UpstreamError, type ProductContext } from '../../kit/index.ts';
import { PoolBusyError, SandboxError, type InputFile, type RunResult } from '../../../sandbox/python-sandbox.ts';
import type { RunPythonInput, RunPythonOutput } from './schema.ts';

export async function runPython(input: RunPythonInput, ctx: ProductContext): Promise<RunPythonOutput> {
  if (!ctx.python) throw new Error('no Python sandbox on this instance');
  let result: RunResult;
  try {
    result = await ctx.python.run(input.code, inputFiles(input), ctx.signal);
  } catch (error) {
    if (error instanceof PoolBusyError) throw new UpstreamError(`${error.message}; retry in ${error.retryAfterSeconds} s`, 503, undefined, error.retryAfterSeconds);
    if (error instanceof SandboxError) throw new UpstreamError(`the Python sandbox failed: ${error.message}`, 502);
    throw error;
  }
  return runOutput(result, ctx.python.pythonVersion);
}

/** A run's result as the product answers it. */
export function runOutput(result: RunResult, pythonVersion: string): RunPythonOutput {
  return {
    stdout: result.stdout,
    stdout_truncated: result.stdoutTruncated,
    stderr: result.stderr,
    stderr_truncated: result.stderrTruncated,
    exit_code: result.exitCode,
    duration_ms: result.durationMs,
    timed_out: result.timedOut,
    memory_exceeded: result.memoryExceeded,
    artifacts: result.artifacts.map((a) => ({ name: a.name, content_type: a.contentType, size: a.size, base64: a.base64 })),
    artifacts_skipped: result.artifactsSkipped,
    python_version: pythonVersion,
  };
}

/** The input files as bytes (the schema has checked names, encodings and sizes). */
export function inputFiles(input: RunPythonInput): InputFile[] {
  return (input.files ?? []).map((file) => ({ name: file.name, bytes: decode(file.content, file.encoding) }));
}

export function decode(content: string, encoding: 'utf8' | 'base64'): Buffer {
  return encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
}
