import { z } from 'zod';
import { READ, planned } from '../kit/index.ts';

const RUN_PYTHON_CODE_MAX = 32 * 1024;
/** 256 KB once decoded; base64 of 256 KiB is 349,528 characters. */
const RUN_PYTHON_FILE_MAX_CHARS = 349_528;

export const runPython = planned({
  id: 'run-python',
  title: 'Run Python',
  description:
    'Runs one Python 3.12 script (numpy, pandas, requests available; no network, 512 MB memory, 30 s limit) with up to 4 input files, and returns stdout, stderr, exit code and up to 3 artifact files written to ./out/. Free doors: POST /api/v1/run-python/validate (syntax check) and GET /api/v1/run-python/example.',
  price: '0.05',
  annotations: READ,
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
});
