import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fakeContext } from '../../kit/fake-context.ts';
import { time } from './index.ts';

const now = new Date('2025-06-01T12:34:56.789Z');

describe('time', () => {
  it('returns the ISO time and Unix seconds from ctx.now', async () => {
    const out = await time.run(time.input.parse({}), fakeContext({ now }));
    expect(out).toEqual({ time: '2025-06-01T12:34:56.789Z', unix: 1_748_781_296 });
    expect(Number.isInteger(out.unix)).toBe(true);
  });

  it('its output satisfies its published output schema', async () => {
    const out = await time.run(time.input.parse({}), fakeContext({ now }));
    const schema = z.fromJSONSchema(time.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(schema.safeParse(out).success).toBe(true);
  });
});
