import { z } from 'zod';
import { OUTPUT_LIMITS } from '../../../sandbox/python-sandbox.ts';

export const CODE_MAX_BYTES = 32 * 1024;
export const FILE_MAX_BYTES = 256 * 1024;
export const MAX_FILES = 4;
/** base64 of 256 KiB is 349,528 characters. */
const FILE_MAX_CHARS = 349_528;
/** Names the sandbox itself uses in the working directory. */
const RESERVED_NAMES = new Set(['main.py', 'out', '.', '..']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Python source: at most 32 KB of UTF-8. */
export const codeField = () =>
  z
    .string()
    .min(1)
    .max(CODE_MAX_BYTES)
    .refine((code) => Buffer.byteLength(code, 'utf8') <= CODE_MAX_BYTES, `at most ${CODE_MAX_BYTES} bytes of UTF-8`)
    .describe('Python source, up to 32 KB');

export const runPythonInput = z
  .object({
    code: codeField(),
    files: z
      .array(
        z.object({
          name: z
            .string()
            .regex(/^[A-Za-z0-9._-]{1,128}$/)
            .describe('File name in the working directory (no path separators)'),
          content: z.string().max(FILE_MAX_CHARS).describe('File content; at most 256 KB once decoded'),
          encoding: z.enum(['utf8', 'base64']).default('utf8').describe('Encoding of `content`'),
        }),
      )
      .max(MAX_FILES)
      .optional()
      .describe('Up to 4 input files placed in the working directory'),
  })
  // Checked with the input, so the unpaid 402 already names the file the sandbox would refuse.
  .superRefine((input, ctx) => {
    const seen = new Set<string>();
    (input.files ?? []).forEach((file, i) => {
      if (RESERVED_NAMES.has(file.name)) ctx.addIssue({ code: 'custom', path: ['files', i, 'name'], message: `${file.name} is reserved (the code runs as main.py; artifacts go to out/)` });
      else if (seen.has(file.name)) ctx.addIssue({ code: 'custom', path: ['files', i, 'name'], message: `${file.name} is given twice` });
      seen.add(file.name);
      if (file.encoding === 'base64' && (file.content.length % 4 !== 0 || !BASE64.test(file.content))) {
        ctx.addIssue({ code: 'custom', path: ['files', i, 'content'], message: 'not base64 (standard alphabet, padded)' });
        return;
      }
      const bytes = file.encoding === 'base64' ? Buffer.byteLength(file.content, 'base64') : Buffer.byteLength(file.content, 'utf8');
      if (bytes > FILE_MAX_BYTES) ctx.addIssue({ code: 'custom', path: ['files', i, 'content'], message: `${bytes} bytes once decoded; at most ${FILE_MAX_BYTES}` });
    });
  });

export type RunPythonInput = z.output<typeof runPythonInput>;

const kb = (bytes: number) => `${bytes / 1024} KB`;

export const runPythonOutput = z.object({
  stdout: z
    .string()
    .describe(
      `Standard output (UTF-8, invalid bytes replaced), at most ${kb(OUTPUT_LIMITS.streamBytes)}; when longer, its first three quarters and last quarter around a "[... N bytes not shown ...]" line`,
    ),
  stdout_truncated: z.boolean().describe('stdout was longer than its bound and is shown cut'),
  stderr: z.string().describe(`Standard error (tracebacks), bounded as stdout`),
  stderr_truncated: z.boolean().describe('stderr was longer than its bound and is shown cut'),
  exit_code: z
    .int()
    .nullable()
    .describe('Exit status of the interpreter (1 for an uncaught exception); 128 + n when signal n ended it; null when the run was stopped at its time limit or at its memory limit across processes'),
  duration_ms: z.int().nonnegative().describe('Wall time of the run, from the interpreter start to its end'),
  timed_out: z.boolean().describe('The run was stopped at the wall-time limit (30 s): every process of it was killed'),
  memory_exceeded: z
    .boolean()
    .describe('The run ended on the memory limit, 512 MB: an uncaught MemoryError (each process has 512 MB of address space), the interpreter killed by an allocation failure, or all its processes together over 512 MB resident (then every process is stopped)'),
  artifacts: z
    .array(
      z.object({
        name: z.string().describe('File name under ./out/'),
        content_type: z.string().describe('Detected from the first bytes (PNG, JPEG, GIF, WebP, PDF, ZIP, gzip, Parquet), else the extension (.csv, .json, .txt…), else text/plain or application/octet-stream'),
        size: z.int().nonnegative().describe('Bytes'),
        base64: z.string().describe('The file content, base64'),
      }),
    )
    .describe(`Up to ${OUTPUT_LIMITS.artifacts} regular files the code wrote to ./out/ (in name order), each at most ${kb(OUTPUT_LIMITS.artifactBytes)}`),
  artifacts_skipped: z
    .array(z.object({ name: z.string(), reason: z.string().describe('Why it is not returned: a symbolic or hard link, not a regular file, too large, more than 3') }))
    .describe('Entries of ./out/ that were not returned, with the reason'),
  python_version: z.string().describe("The interpreter's version, e.g. 3.11.2 (Debian bookworm's python3)"),
});

export type RunPythonOutput = z.infer<typeof runPythonOutput>;
