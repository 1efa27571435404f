import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';

export const timeOutput = z.object({
  time: z.iso.datetime().describe('Current time, ISO 8601 (UTC)'),
  unix: z.int().describe('Current time, Unix epoch seconds'),
});

/** The server's clock, read from `ctx.now`. */
export const time = product({
  id: 'time',
  title: 'Server time',
  description: 'Returns the current server time as an ISO 8601 UTC string (`time`) and as Unix epoch seconds (`unix`).',
  method: 'GET',
  tool: 'server_time',
  price: '0.01',
  annotations: READ,
  input: z.object({}),
  inputExample: {},
  output: timeOutput,
  outputExample: { time: '2025-06-01T12:00:00.000Z', unix: 1_748_779_200 },
  run: async (_input, ctx) => ({ time: ctx.now.toISOString(), unix: Math.floor(ctx.now.getTime() / 1000) }),
});
