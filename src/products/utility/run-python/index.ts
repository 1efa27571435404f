import { READ, product } from '../../kit/index.ts';
import { runPython as run } from './run.ts';
import { runPythonInput, runPythonOutput } from './schema.ts';
import { EXAMPLE_INPUT, EXAMPLE_OUTPUT } from './example.ts';

/** Largest request body: 32 KB of code and four 256 KB files in base64 (349,528 characters each), JSON-escaped. */
const MAX_INPUT_BYTES = 2 * 1024 * 1024;

export const runPython = product({
  id: 'run-python',
  title: 'Run Python',
  description:
    "Runs one Python script with CPython 3.11 (Debian bookworm's python3; the exact version is in every response's `python_version`) with numpy, pandas and requests, in a sandbox of its own: no network (requests reach nothing), 512 MB memory, 30 s wall time. Up to 4 input files (256 KB each, utf8 or base64) are placed in the working directory next to the code (main.py). Returns stdout and stderr (64 KB each, marked when cut), the exit code, the duration, `timed_out`, `memory_exceeded`, and up to 3 artifact files the code wrote to ./out/ (192 KB each, base64 with a detected content type). Charged for every run that ran, whatever the code did (an exception, a non-zero exit, the time or memory limit); not charged for input that is refused (4xx), a busy sandbox pool (503 with Retry-After) or a sandbox failure (502). Free doors: POST /api/v1/run-python/validate (syntax check with the same interpreter, nothing executed) and GET /api/v1/run-python/example.",
  price: '0.05',
  annotations: READ,
  input: runPythonInput,
  inputExample: EXAMPLE_INPUT,
  output: runPythonOutput,
  outputExample: EXAMPLE_OUTPUT,
  requires: ['python'],
  maxInputBytes: MAX_INPUT_BYTES,
  freeDoors: [
    { method: 'POST', path: '/api/v1/run-python/validate', note: 'compile-only syntax check of `code` (errors with line and column; nothing is executed)' },
    { method: 'GET', path: '/api/v1/run-python/example', note: 'a worked example request and its real response' },
  ],
  run,
});
