import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fakeContext } from '../../kit/fake-context.ts';
import { echo } from './index.ts';

const now = new Date('2025-06-01T12:34:56.789Z');
const ctx = fakeContext({ now });

describe('echo', () => {
  it('returns the parameters as a query string in order, with a timestamp', async () => {
    expect(await echo.run(echo.input.parse({ a: '1', b: 'x' }), ctx)).toEqual({ echo: 'a=1&b=x', timestamp: '2025-06-01T12:34:56.789Z' });
    const spaced = await echo.run(echo.input.parse({ z: 'hello world', a: 'é&=' }), ctx);
    expect(spaced.echo).toBe('z=hello+world&a=%C3%A9%26%3D');
    expect(await echo.run(echo.input.parse({}), ctx)).toEqual({ echo: '', timestamp: '2025-06-01T12:34:56.789Z' });
  });

  it('its output satisfies its published output schema', async () => {
    const out = await echo.run(echo.input.parse({ q: 'x402' }), ctx);
    const schema = z.fromJSONSchema(echo.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(schema.safeParse(out).success).toBe(true);
  });
});
