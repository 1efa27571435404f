import { z } from 'zod';
import { echo, serverTime } from '../products/utility.ts';
import { FIXED, X402_BOTH, available, unavailable, type Product } from './types.ts';

export const timeInput = z.object({});
export const timeOutput = z.object({
  time: z.iso.datetime().describe('Current time, ISO 8601 (UTC)'),
  unix: z.int().describe('Current time, Unix epoch seconds'),
});

export const echoInput = z.record(z.string(), z.string()).describe('Any query parameters; they are echoed back');
export const echoOutput = z.object({
  echo: z.string().describe('The parameters as a URL query string, in their given order'),
  timestamp: z.iso.datetime().describe('Time of the call, ISO 8601 (UTC)'),
});

const RUN_PYTHON_CODE_MAX = 32 * 1024;
/** 256 KB once decoded; base64 of 256 KiB is 349,528 characters. */
const RUN_PYTHON_FILE_MAX_CHARS = 349_528;

export const utilityProducts: Product[] = [
  available({
    id: 'time',
    title: 'Server time',
    description: 'Returns the current server time as an ISO 8601 UTC string (`time`) and as Unix epoch seconds (`unix`).',
    category: 'utility',
    http: { method: 'GET', path: '/api/v1/paid/time', price: '0.01' },
    mcp: { tool: 'server_time', price: '0.01', annotations: { readOnlyHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: timeInput,
    inputExample: {},
    outputSchema: z.toJSONSchema(timeOutput),
    outputExample: { time: '2025-06-01T12:00:00.000Z', unix: 1_748_779_200 },
    run: serverTime,
  }),
  available({
    id: 'echo',
    title: 'Echo',
    description:
      'Echoes the given parameters back as a URL query string (`echo`, e.g. "a=1&b=x") with the time of the call (`timestamp`); useful to test a paid round trip.',
    category: 'utility',
    http: { method: 'GET', path: '/api/v1/paid/echo', price: '0.01' },
    mcp: { tool: 'echo', price: '0.01', annotations: { readOnlyHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: echoInput,
    inputExample: { a: '1', b: 'x' },
    outputSchema: z.toJSONSchema(echoOutput),
    outputExample: { echo: 'a=1&b=x', timestamp: '2025-06-01T12:00:00.000Z' },
    run: echo,
  }),
  unavailable({
    id: 'run-python',
    title: 'Run Python',
    description:
      'Runs one Python 3.12 script (numpy, pandas, requests available; no network, 512 MB memory, 30 s limit) with up to 4 input files, and returns stdout, stderr, exit code and up to 3 artifact files written to ./out/. Free doors: POST /api/v1/run-python/validate (syntax check) and GET /api/v1/run-python/example.',
    category: 'utility',
    http: { method: 'POST', path: '/api/v1/paid/run-python', price: '0.05' },
    mcp: { tool: 'run_python', price: '0.05', annotations: { readOnlyHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      code: z.string().min(1).max(RUN_PYTHON_CODE_MAX).describe('Python source, up to 32 KB'),
      files: z
        .array(
          z.object({
            name: z
              .string()
              .regex(/^[A-Za-z0-9._-]{1,128}$/)
              .describe('File name in the working directory (no path separators)'),
            content: z.string().max(RUN_PYTHON_FILE_MAX_CHARS).describe('File content; at most 256 KB once decoded'),
            encoding: z.enum(['utf8', 'base64']).default('utf8').describe('Encoding of `content`'),
          }),
        )
        .max(4)
        .optional()
        .describe('Up to 4 input files placed in the working directory'),
    }),
    inputExample: {
      code: "import pandas as pd\ndf = pd.read_csv('prices.csv')\nprint(df['price'].mean())",
      files: [{ name: 'prices.csv', content: 'day,price\n1,10.5\n2,11.0\n', encoding: 'utf8' }],
    },
    freeDoors: [
      { method: 'POST', path: '/api/v1/run-python/validate', note: 'compile-only syntax check of `code`' },
      { method: 'GET', path: '/api/v1/run-python/example', note: 'an example request and response' },
    ],
  }),
];
