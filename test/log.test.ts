import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { requestIds } from '../src/http/request-id.ts';
import { createLogger, describeError, routeConsoleToLogger } from '../src/log.ts';

function capture() {
  const lines: string[] = [];
  return { log: createLogger('trace', { write: (line: string) => void lines.push(line) }), lines };
}

describe('logging', () => {
  const original = { error: console.error, warn: console.warn };
  afterEach(() => Object.assign(console, original));

  it('redacts credentials wherever a caller nests them', () => {
    const { log, lines } = capture();
    log.info({
      config: { apiKey: 'sk-live-1', databaseUrl: 'postgres://u:pw@db/percall', mpp: { secretKey: 'mpp-secret' }, solana: { feePayerKey: 'fee-key' }, inference: { apiKey: 'sk-2' } },
      entry: { payload: { payload: { signature: '0xsig', authorization: { nonce: '0x1' } } } },
      headers: { 'payment-signature': 'eyJ4', 'sign-in-with-x': 'siwx', cookie: 'c=1' },
      txHash: '0xpublic',
    });
    const line = lines.join('\n');
    for (const secret of ['sk-live-1', 'pw@db', 'mpp-secret', 'fee-key', 'sk-2', '0xsig', 'eyJ4', 'siwx', 'c=1']) expect(line).not.toContain(secret);
    expect(line).toContain('0xpublic');
  });

  it('tags every line of a request with its id, across awaits, and returns the id', async () => {
    const { log, lines } = capture();
    const app = new Hono();
    app.use(requestIds());
    app.get('/', async (c) => {
      log.info('before');
      await new Promise((r) => setImmediate(r));
      log.info('after');
      return c.text('ok');
    });
    const given = await app.request('/', { headers: { 'x-request-id': 'call-42' } });
    expect(given.headers.get('x-request-id')).toBe('call-42');
    expect(lines.map((l) => JSON.parse(l).reqId)).toEqual(['call-42', 'call-42']);
    // An id that is not a plain token is replaced, never logged.
    const replaced = await app.request('/', { headers: { 'x-request-id': 'a b'.repeat(40) } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    log.info('outside');
    expect(JSON.parse(lines.at(-1)!).reqId).toBeUndefined();
  });

  it('errors and library console output lose URLs and opaque data', () => {
    expect(describeError(new Error('failed https://rpc.example.invalid/v2/KEY123 with 0x' + 'ab'.repeat(40)))).toBe('Error: failed [url] with [data]');
    const { log, lines } = capture();
    routeConsoleToLogger(log);
    console.warn('Failed to fetch supported kinds from facilitator:', new Error('at https://f.invalid/?key=1'));
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, source: 'console' });
    expect(lines[0]).not.toContain('key=1');
  });
});
