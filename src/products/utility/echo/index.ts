import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';

export const echoOutput = z.object({
  echo: z.string().describe('The parameters as a URL query string, in their given order'),
  timestamp: z.iso.datetime().describe('Time of the call, ISO 8601 (UTC)'),
});

/** The input parameters back as a query string: a paid round trip with nothing else in it. */
export const echo = product({
  id: 'echo',
  title: 'Echo',
  description:
    'Echoes the given parameters back as a URL query string (`echo`, e.g. "a=1&b=x") with the time of the call (`timestamp`); useful to test a paid round trip.',
  method: 'GET',
  price: '0.01',
  annotations: READ,
  input: z.record(z.string(), z.string()).describe('Any query parameters; they are echoed back'),
  inputExample: { a: '1', b: 'x' },
  output: echoOutput,
  outputExample: { echo: 'a=1&b=x', timestamp: '2025-06-01T12:00:00.000Z' },
  run: async (input, ctx) => ({ echo: new URLSearchParams(Object.entries(input)).toString(), timestamp: ctx.now.toISOString() }),
});
