import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { DEFAULT_POLICY, safeFetch, SafeFetchError, type FetchPolicy } from '../src/providers/safe-fetch.ts';

const servers: Server[] = [];
async function serve(host: string, handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  servers.push(server);
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}
afterAll(() => servers.forEach((s) => s.close()));

let secret: string;
beforeAll(async () => {
  secret = await serve('127.0.0.1', (_req, res) => res.end('internal secret'));
});

async function refused(url: string, policy: FetchPolicy = DEFAULT_POLICY): Promise<SafeFetchError> {
  const error = await safeFetch(url, {}, policy).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, url).toBeInstanceOf(SafeFetchError);
  return error as SafeFetchError;
}

describe('the safe fetcher refuses every non-public address (loopback not allowed)', () => {
  const targets = [
    'http://127.0.0.1/',
    'http://localhost/',
    'http://[::1]/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://2130706433/', // decimal 127.0.0.1
    'http://0177.0.0.1/', // octal
    'http://0x7f000001/', // hex
    'http://0x7f.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[fd00::1]/',
    'http://[64:ff9b::7f00:1]/', // NAT64 form of 127.0.0.1
  ];
  for (const url of targets) {
    it(url, async () => {
      expect((await refused(url)).code).toBe('blocked_address');
    });
  }

  it('a hostname resolving to 127.0.0.1 (checked on the resolved address the socket then uses)', async () => {
    const port = new URL(secret).port;
    const policy = { ...DEFAULT_POLICY, resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
    const error = await refused(`http://innocent.example:${port}/`, policy);
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('innocent.example');
  });

  it('a name that resolves to a public and a private address is refused', async () => {
    const policy = { ...DEFAULT_POLICY, resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }] };
    expect((await refused('http://split.example/', policy)).code).toBe('blocked_address');
  });

  it('a public-looking URL redirecting to a private one', async () => {
    // 127.0.0.2 stands in for a public host; the redirect target is the loopback "internal" service.
    const publicLooking = await serve('127.0.0.2', (_req, res) => res.writeHead(302, { location: secret }).end());
    const policy = { ...DEFAULT_POLICY, allowAddresses: ['127.0.0.2'] };
    const error = await refused(publicLooking, policy);
    expect(error.code).toBe('blocked_address');
    expect(error.message).not.toContain('internal secret');
  });

  it('other schemes and credentials', async () => {
    expect((await refused('file:///etc/passwd')).code).toBe('invalid_url');
    expect((await refused('ftp://example.com/')).code).toBe('invalid_url');
    expect((await refused('http://user:pass@example.com/')).code).toBe('invalid_url');
  });
});

describe('bounds (loopback allowed, as tests and local demos may)', () => {
  const local: FetchPolicy = { ...DEFAULT_POLICY, allowLoopback: true, timeoutMs: 1000, maxBytes: 10_000 };

  it('fetches, decompresses and reports the final URL after redirects', async () => {
    const base = await serve('127.0.0.1', (req, res) => {
      if (req.url === '/start') return res.writeHead(301, { location: '/final' }).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }).end(gzipSync('<p>hello</p>'));
    });
    const response = await safeFetch(`${base}/start`, {}, local);
    expect(response).toMatchObject({ status: 200, url: `${base}/final`, contentType: 'text/html', redirects: 1 });
    expect(response.body.toString()).toBe('<p>hello</p>');
  });

  it('size, time and redirect limits', async () => {
    const base = await serve('127.0.0.1', (req, res) => {
      if (req.url === '/big') return res.end('x'.repeat(20_000));
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 3000);
      if (req.url?.startsWith('/loop')) return res.writeHead(302, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` }).end();
      res.end('ok');
    });
    expect((await refused(`${base}/big`, local)).code).toBe('too_large');
    expect((await refused(`${base}/slow`, local)).code).toBe('timeout');
    expect((await refused(`${base}/loop`, local)).code).toBe('too_many_redirects');
  });
});
