/**
 * run_python's free doors, both counted in the `free` rate limit per client address:
 * - `POST /api/v1/run-python/validate` `{ code }`: compiles the code with the sandbox's own
 *   interpreter, in a sandbox, executing nothing; answers `valid` and the syntax errors with line
 *   and column (Python reports the first one).
 * - `GET /api/v1/run-python/example`: the worked example request and this instance's real answer
 *   to it (run once per process, then kept).
 * They run in the sandbox's free lane, never in a paid slot. Where run_python is not on sale they
 * answer 501, as its route does.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { problemResponse, problems } from './problem.ts';
import type { RateLimiter } from './rate-limit.ts';
import { PoolBusyError, SandboxError, type PythonSandbox } from '../sandbox/python-sandbox.ts';
import { EXAMPLE_INPUT } from '../products/utility/run-python/example.ts';
import { inputFiles, runOutput } from '../products/utility/run-python/run.ts';
import { codeField, runPythonInput, type RunPythonOutput } from '../products/utility/run-python/schema.ts';

export const VALIDATE_PATH = '/api/v1/run-python/validate';
export const EXAMPLE_PATH = '/api/v1/run-python/example';
const PRODUCT_PATH = '/api/v1/paid/run-python';
/** A door call gives up after this long (the free lane may be busy). */
const DOOR_TIME_LIMIT_MS = 20_000;

export interface RunPythonDoorsDeps {
  /** The sandbox; absent where run_python is not on sale (`unavailable` says why). */
  python?: PythonSandbox;
  unavailable?: string;
  limiter: Pick<RateLimiter, 'take' | 'client'>;
}

const ValidateBody = z.object({ code: codeField() });

export function registerRunPythonDoors(app: Hono, deps: RunPythonDoorsDeps): void {
  let example: Promise<RunPythonOutput> | undefined;

  const door = (handler: (c: Context, python: PythonSandbox) => Promise<Response>) => async (c: Context) => {
    const limited = await deps.limiter.take('free', deps.limiter.client(c));
    if (limited) return limited;
    if (!deps.python) return problemResponse(problems.notImplemented('run-python', deps.unavailable ?? 'not available on this instance'));
    try {
      return await handler(c, deps.python);
    } catch (error) {
      if (error instanceof PoolBusyError) return problemResponse(problems.serviceUnavailable(error.message), { 'retry-after': String(error.retryAfterSeconds) });
      if (error instanceof SandboxError) return problemResponse({ status: 502, code: 'sandbox-failed', title: 'The Python sandbox failed', detail: error.message });
      throw error;
    }
  };

  app.post(
    VALIDATE_PATH,
    door(async (c, python) => {
      const body = ValidateBody.safeParse(await c.req.json().catch(() => undefined));
      if (!body.success) return problemResponse(problems.invalidInput(body.error.issues.map((i) => ({ field: i.path.join('.') || 'body', message: i.message }))));
      const errors = await python.validate(body.data.code, AbortSignal.timeout(DOOR_TIME_LIMIT_MS));
      return c.json({
        valid: errors.length === 0,
        errors: errors.map((e) => ({ type: e.type, message: e.message, line: e.line, column: e.column, end_line: e.endLine, end_column: e.endColumn, text: e.text })),
        python_version: python.pythonVersion,
      });
    }),
  );

  app.get(
    EXAMPLE_PATH,
    door(async (c, python) => {
      example ??= python.runFree(EXAMPLE_INPUT.code, inputFiles(runPythonInput.parse(EXAMPLE_INPUT)), AbortSignal.timeout(DOOR_TIME_LIMIT_MS)).then((result) => runOutput(result, python.pythonVersion));
      // A failed run is not kept: the next call tries again.
      const response = await example.catch((error: unknown) => {
        example = undefined;
        throw error;
      });
      return c.json(
        { description: 'A pandas group-by over an input CSV that writes a CSV artifact: the request to POST to the paid route, and the response this instance gave to it.', method: 'POST', path: PRODUCT_PATH, request: EXAMPLE_INPUT, response },
        200,
        { 'cache-control': 'public, max-age=3600' },
      );
    }),
  );
}
