/**
 * The Python sandbox as products reach it (src/sandbox/ runs it): one run of code with input files
 * in a sandbox of its own. Products see only this interface.
 */

export interface InputFile {
  name: string;
  bytes: Buffer;
}

export interface Artifact {
  name: string;
  size: number;
  contentType: string;
  base64: string;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** The exit status; 128 + n when a signal ended the interpreter; null when the run was stopped at its time or memory limit. */
  exitCode: number | null;
  timedOut: boolean;
  memoryExceeded: boolean;
  durationMs: number;
  cpuMs: number;
  artifacts: Artifact[];
  artifactsSkipped: { name: string; reason: string }[];
}

export interface PythonRunner {
  /** The interpreter's version, e.g. `3.11.2`. */
  readonly pythonVersion: string;
  /**
   * One run in a sandbox of its own. Rejects with the sandbox's PoolBusyError when its pool is full
   * (the caller may retry later) and SandboxError when the sandbox itself failed.
   */
  run(code: string, files: readonly InputFile[], signal?: AbortSignal): Promise<RunResult>;
}
