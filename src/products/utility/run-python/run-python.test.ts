import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UpstreamError } from '../../kit/index.ts';
import { fakeContext } from '../../kit/fake-context.ts';
import { PoolBusyError, SandboxError, type PythonRunner, type RunResult } from '../../../sandbox/python-sandbox.ts';
import { EXAMPLE_INPUT, EXAMPLE_OUTPUT } from './example.ts';
import { runPython } from './index.ts';
import { inputFiles } from './run.ts';

// The product's own logic: its input checks (the sandbox's escape suite and real runs are in
// test/run-python.test.ts) and how the sandbox's answers and failures become its output or problems.

const issues = (input: unknown) => {
  const parsed = runPython.input.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

/** A runner that must not be reached, or that answers as given. */
const runner = (answer: () => Promise<RunResult>): PythonRunner => ({ pythonVersion: '3.11.2', run: answer });

describe('run-python input', () => {
  it('takes the example and decodes its files', () => {
    expect(issues(EXAMPLE_INPUT)).toEqual([]);
    const files = inputFiles(runPython.input.parse({ code: 'x', files: [{ name: 'a.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' }, { name: 'b.txt', content: 'é' }] }));
    expect(files).toEqual([
      { name: 'a.bin', bytes: Buffer.from([0, 1, 2, 255]) },
      { name: 'b.txt', bytes: Buffer.from('é', 'utf8') },
    ]);
  });

  it('refuses, before payment, what the sandbox could not take', () => {
    expect(issues({ code: '' })[0]).toMatch(/^code:/);
    expect(issues({ code: 'é'.repeat(20_000) })).toEqual(['code: at most 32768 bytes of UTF-8']);
    expect(issues({ code: 'x', files: [{ name: '../etc/passwd', content: '' }] })[0]).toMatch(/^files\.0\.name:/);
    expect(issues({ code: 'x', files: [{ name: 'main.py', content: '' }] })).toEqual(['files.0.name: main.py is reserved (the code runs as main.py; artifacts go to out/)']);
    expect(issues({ code: 'x', files: [{ name: '..', content: '' }] })[0]).toMatch(/reserved/);
    expect(issues({ code: 'x', files: [{ name: 'a', content: '' }, { name: 'a', content: '' }] })).toEqual(['files.1.name: a is given twice']);
    expect(issues({ code: 'x', files: [{ name: 'a', content: 'not base64!', encoding: 'base64' }] })).toEqual(['files.0.content: not base64 (standard alphabet, padded)']);
    expect(issues({ code: 'x', files: [{ name: 'a', content: 'é'.repeat(140_000) }] })).toEqual(['files.0.content: 280000 bytes once decoded; at most 262144']);
    expect(issues({ code: 'x', files: Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, content: '' })) })[0]).toMatch(/^files:/);
    // 256 KiB exactly is taken, in either encoding.
    expect(issues({ code: 'x', files: [{ name: 'a', content: Buffer.alloc(262_144).toString('base64'), encoding: 'base64' }, { name: 'b', content: 'a'.repeat(262_144) }] })).toEqual([]);
  });
});

describe('run-python answers', () => {
  it('maps a run to its output, which satisfies the published schema', async () => {
    const result: RunResult = {
      stdout: 'ok\n',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      exitCode: 0,
      timedOut: false,
      memoryExceeded: false,
      durationMs: 12,
      cpuMs: 10,
      artifacts: [{ name: 'a.csv', size: 2, contentType: 'text/csv; charset=utf-8', base64: 'YQo=' }],
      artifactsSkipped: [{ name: 'link', reason: 'a symbolic link, not a file' }],
    };
    const out = await runPython.run(runPython.input.parse({ code: 'print("ok")' }), fakeContext({ python: runner(async () => result) }));
    expect(out).toEqual({
      stdout: 'ok\n',
      stdout_truncated: false,
      stderr: '',
      stderr_truncated: false,
      exit_code: 0,
      duration_ms: 12,
      timed_out: false,
      memory_exceeded: false,
      artifacts: [{ name: 'a.csv', content_type: 'text/csv; charset=utf-8', size: 2, base64: 'YQo=' }],
      artifacts_skipped: [{ name: 'link', reason: 'a symbolic link, not a file' }],
      python_version: '3.11.2',
    });
    const schema = z.fromJSONSchema(runPython.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(schema.safeParse(out).success).toBe(true);
    expect(schema.safeParse(EXAMPLE_OUTPUT).success).toBe(true);
  });

  it('a full pool is 503 with Retry-After, a failed sandbox 502: neither is charged', async () => {
    const input = runPython.input.parse({ code: 'x' });
    const busy = runPython.run(input, fakeContext({ python: runner(() => Promise.reject(new PoolBusyError('all 2 sandboxes are busy', 30))) }));
    await expect(busy).rejects.toBeInstanceOf(UpstreamError);
    await expect(busy).rejects.toMatchObject({ status: 503, retryAfterSeconds: 30 });
    const failed = runPython.run(input, fakeContext({ python: runner(() => Promise.reject(new SandboxError('the sandbox did not start'))) }));
    await expect(failed).rejects.toMatchObject({ status: 502, message: 'the Python sandbox failed: the sandbox did not start' });
  });
});
