import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { DEFAULT_POLICY, isPublicAddress, safeFetch, SafeFetchError, type FetchPolicy } from '../src/providers/safe-fetch.ts';

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

/**
 * The address forms of the OWASP SSRF prevention cheat sheet (and its bypass lists): every spelling of
 * loopback, unspecified, private, link-local / cloud metadata and CGNAT addresses, and every IPv6
 * embedding of an IPv4 address. Checked on the host the URL parser yields, which is what the fetcher
 * connects to; nothing is sent.
 */
describe('address checks over the OWASP SSRF forms', () => {
  const refusedHosts: [form: string, what: string][] = [
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.1/', 'short form'],
    ['http://127.0.1/', 'short form'],
    ['http://127.000.000.001/', 'zero-padded (octal) parts'],
    ['http://0177.0.0.1/', 'octal'],
    ['http://017700000001/', 'octal, one number'],
    ['http://0x7f.0.0.1/', 'hex parts'],
    ['http://0x7f000001/', 'hex, one number'],
    ['http://2130706433/', 'decimal'],
    ['http://%31%32%37.0.0.1/', 'percent-encoded'],
    ['http://\u2460\u2461\u2466.\u24ea.\u24ea.\u2460/', 'enclosed alphanumerics'],
    ['http://127\u30020\u30020\u30021/', 'ideographic full stops'],
    ['http://0/', 'zero'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0x0/', 'unspecified, hex'],
    ['http://[::]/', 'IPv6 unspecified'],
    ['http://[::1]/', 'IPv6 loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'IPv6 loopback, long'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
    ['http://[::ffff:7f00:1]/', 'IPv4-mapped, hex'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'IPv4-mapped, long'],
    ['http://[::ffff:0.0.0.0]/', 'IPv4-mapped unspecified'],
    ['http://[::127.0.0.1]/', 'IPv4-compatible (deprecated)'],
    ['http://[::7f00:1]/', 'IPv4-compatible, hex'],
    ['http://[0:0:0:0:0:0:127.0.0.1]/', 'IPv4-compatible, long'],
    ['http://[::a9fe:a9fe]/', 'IPv4-compatible metadata'],
    ['http://[::ffff:0:127.0.0.1]/', 'IPv4-translated (RFC 6145)'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'NAT64 metadata'],
    ['http://[64:ff9b:1::7f00:1]/', 'local-use NAT64'],
    ['http://[2002:7f00:1::]/', '6to4 of loopback'],
    ['http://[2002:a9fe:a9fe::]/', '6to4 of metadata'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'Teredo'],
    ['http://169.254.169.254/', 'cloud metadata'],
    ['http://2852039166/', 'cloud metadata, decimal'],
    ['http://0xa9fea9fe/', 'cloud metadata, hex'],
    ['http://[::ffff:169.254.169.254]/', 'cloud metadata, mapped'],
    ['http://[fd00:ec2::254]/', 'cloud metadata, IPv6 (unique local)'],
    ['http://100.100.100.200/', 'cloud metadata in CGNAT'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://0xc0a80001/', 'private, hex'],
    ['http://100.64.0.1/', 'CGNAT'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://192.0.0.1/', 'IETF protocol assignments'],
    ['http://198.18.0.1/', 'benchmarking'],
    ['http://[fe80::1]/', 'IPv6 link-local'],
    ['http://[fec0::1]/', 'IPv6 site-local (deprecated)'],
    ['http://[fc00::1]/', 'IPv6 unique local'],
    ['http://[ff02::1]/', 'IPv6 multicast'],
    ['http://[2001:db8::1]/', 'IPv6 documentation'],
    ['http://[100::1]/', 'IPv6 discard'],
  ];
  for (const [form, what] of refusedHosts) {
    const url = form.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    it(`refuses ${what}: ${url}`, () => {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      expect(isPublicAddress(host, { allowLoopback: false }), `${url} → ${host}`).toBe(false);
    });
  }

  it('public unicast addresses pass', () => {
    for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:93.184.215.14']) expect(isPublicAddress(address, { allowLoopback: false }), address).toBe(true);
  });

  it('allowing loopback never allows its aliases', () => {
    for (const address of ['::7f00:1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::', '0.0.0.0', '::']) expect(isPublicAddress(address, { allowLoopback: true }), address).toBe(false);
  });

  it('the fetcher refuses the IPv4-compatible form of a loopback server before connecting', async () => {
    const port = new URL(secret).port;
    expect((await refused(`http://[::127.0.0.1]:${port}/`, { ...DEFAULT_POLICY, allowLoopback: true })).code).toBe('blocked_address');
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
