import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { request } from 'node:http';
import type { PaymentRequired } from '@x402/core/types';
import { loadConfig } from '../src/config.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { hostGuard } from '../src/http/host-guard.ts';
import type { RunningService } from '../src/runtime.ts';
import { paymentHeader, quote, signPayment } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

const PRODUCTION = { PERCALL_MODE: 'production', FACILITATOR_URL: 'http://127.0.0.1:9/facilitator', PAY_TO: `0x${'1'.repeat(40)}` };

/** A bare app behind the guard: every route answers 200 "ROUTE-REACHED". Requests never leave the process. */
function guarded(env: Record<string, string>, listenUrl?: string) {
  const app = new Hono();
  app.use(hostGuard({ config: loadConfig({ LOG_LEVEL: 'silent', ...env }), listenUrl }));
  app.all('*', (c) => c.text('ROUTE-REACHED'));
  // As @hono/node-server does, the request URL carries the Host header's authority (when it is a valid one).
  return async (method: string, path: string, headers: Record<string, string> = {}, url = `http://${/^[\w.:[\]-]+$/.test(headers.host ?? '') ? headers.host : '127.0.0.1:4021'}`) => {
    const response = await app.request(`${url}${path}`, { method, headers });
    const body = await response.text();
    return { status: response.status, type: response.headers.get('content-type'), body, code: response.status === 403 ? (JSON.parse(body) as { code: string }).code : undefined };
  };
}

describe('host guard (middleware on a bare app)', () => {
  it('dev mode: loopback names on any port, nothing else, on /mcp and every state-changing route', async () => {
    const send = guarded({ PERCALL_MODE: 'dev', PORT: '4021' }, 'http://127.0.0.1:4021');
    for (const host of ['127.0.0.1:4021', 'localhost:9999', 'LOCALHOST', '[::1]:1', '127.0.0.1']) {
      expect((await send('POST', '/mcp', { host })).status, host).toBe(200);
    }
    for (const [method, path] of [
      ['POST', '/mcp'],
      ['GET', '/mcp'],
      ['DELETE', '/mcp'],
      ['OPTIONS', '/mcp'],
      ['POST', '/api/v1/paid/endpoint-task-evaluation'],
      ['GET', '/api/v1/paid/echo'], // a paid GET settles a payment
      ['POST', '/agent/identity'],
      ['POST', '/oauth2/token'],
      ['POST', '/oauth2/revoke'],
      ['POST', '/api/v1/orders'],
      ['PUT', '/anything'],
    ] as const) {
      const answer = await send(method, path, { host: 'evil.example' });
      expect([answer.status, answer.code], `${method} ${path}`).toEqual([403, 'forbidden-host']);
      expect(answer.type).toBe('application/problem+json');
      expect(answer.body).not.toContain('ROUTE-REACHED');
    }
    // A rebinding name that resolves to loopback, a lookalike, a malformed Host.
    for (const host of ['evil.example:4021', 'localhost.evil.example', '127.0.0.1.nip.io:4021', 'a b', '']) {
      expect((await send('POST', '/mcp', { host })).status, JSON.stringify(host)).toBe(403);
    }
  });

  it('free GET reads stay open to any Host and Origin', async () => {
    const send = guarded({ PERCALL_MODE: 'dev' }, 'http://127.0.0.1:4021');
    for (const path of ['/health', '/llms.txt', '/.well-known/x402.json', '/openapi.json']) {
      expect((await send('GET', path, { host: 'evil.example', origin: 'http://evil.example' })).status, path).toBe(200);
      expect((await send('HEAD', path, { host: '10.1.2.3:4021' })).status, path).toBe(200);
    }
  });

  it('no Origin (curl, SDKs) passes; a browser Origin must be an allowed name; Origin: null never is', async () => {
    const send = guarded({ PERCALL_MODE: 'dev' }, 'http://127.0.0.1:4021');
    const host = '127.0.0.1:4021';
    expect((await send('POST', '/mcp', { host })).status).toBe(200);
    expect((await send('POST', '/mcp', { host, origin: 'http://127.0.0.1:4021' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host, origin: 'http://localhost:6274' })).status).toBe(200); // a local browser client
    for (const origin of ['http://evil.example', 'https://127.0.0.1.evil.example', 'null', 'file://', 'chrome-extension://abc', 'not a url']) {
      const answer = await send('POST', '/mcp', { host, origin });
      expect([answer.status, answer.code], origin).toEqual([403, 'forbidden-origin']);
      expect((await send('POST', '/agent/identity', { host, origin })).status, origin).toBe(403);
      expect((await send('POST', '/api/v1/paid/web-extract', { host, origin })).status, origin).toBe(403);
    }
  });

  it('checks the URL authority too (absolute-form targets)', async () => {
    const send = guarded({ PERCALL_MODE: 'dev' }, 'http://127.0.0.1:4021');
    expect((await send('POST', '/mcp', { host: '127.0.0.1:4021' }, 'http://evil.example')).status).toBe(403);
    expect((await send('POST', '/mcp', {}, 'http://evil.example')).status).toBe(403);
    expect((await send('POST', '/mcp', {}, 'http://localhost:4021')).status).toBe(200);
  });

  it('production: the hosts of PUBLIC_BASE_URL and SITE_URL and the listening address, nothing else', async () => {
    const send = guarded(
      { ...PRODUCTION, HOST: '0.0.0.0', PORT: '8080', PUBLIC_BASE_URL: 'https://api.example.com', SITE_URL: 'https://example.com' },
      'https://api.example.com',
    );
    // On a wildcard address, the listening port on loopback is the listening address (the operator's own curl).
    for (const host of ['api.example.com', 'API.example.com:443', 'example.com', '127.0.0.1:8080', 'localhost:8080']) {
      expect((await send('POST', '/mcp', { host })).status, host).toBe(200);
    }
    for (const host of ['api.example.com:8443', 'localhost:8081', '127.0.0.1', 'evil.example']) {
      expect((await send('POST', '/mcp', { host })).status, host).toBe(403);
    }
    const host = 'api.example.com';
    expect((await send('POST', '/mcp', { host, origin: 'https://api.example.com' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host, origin: 'https://example.com' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host, origin: 'http://api.example.com' })).status).toBe(403); // not the public origin
    expect((await send('POST', '/mcp', { host, origin: 'https://evil.example' })).status).toBe(403);
    // Health checks and scrapers address instances by IP: free reads stay open.
    expect((await send('GET', '/health', { host: '10.0.3.7:8080' })).status).toBe(200);

    const listening = guarded({ ...PRODUCTION, HOST: '127.0.0.1', PORT: '8080', PUBLIC_BASE_URL: 'https://api.example.com' }, 'https://api.example.com');
    expect((await listening('POST', '/mcp', { host: '127.0.0.1:8080' })).status).toBe(200);
    expect((await listening('POST', '/mcp', { host: '127.0.0.1:8081' })).status).toBe(403);
  });

  it('ALLOWED_HOSTS extends the set: host on any port, or host:port exactly; for Host and Origin', async () => {
    const env = { ...PRODUCTION, PUBLIC_BASE_URL: 'https://api.example.com', ALLOWED_HOSTS: 'internal.lb, 10.0.0.5:8080,[fd00::1]' };
    const send = guarded(env, 'https://api.example.com');
    for (const host of ['internal.lb', 'internal.lb:1234', '10.0.0.5:8080', '[fd00::1]:80']) expect((await send('POST', '/mcp', { host })).status, host).toBe(200);
    for (const host of ['10.0.0.5:9090', '10.0.0.5', 'other.lb']) expect((await send('POST', '/mcp', { host })).status, host).toBe(403);
    expect((await send('POST', '/mcp', { host: 'internal.lb', origin: 'http://internal.lb:3000' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host: 'internal.lb', origin: 'http://10.0.0.5:8080' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host: 'internal.lb', origin: 'http://10.0.0.5:9090' })).status).toBe(403);
    // Without it, dev mode refuses the same names.
    expect((await guarded({ PERCALL_MODE: 'dev' })('POST', '/mcp', { host: 'internal.lb' })).status).toBe(403);
    expect((await guarded({ PERCALL_MODE: 'dev', ALLOWED_HOSTS: 'internal.lb' })('POST', '/mcp', { host: 'internal.lb' })).status).toBe(200);
    expect(() => loadConfig({ ALLOWED_HOSTS: 'https://internal.lb/' })).toThrow(/ALLOWED_HOSTS/);
  });

  it('production without any configured name: any Host, but a browser Origin must be same-origin', async () => {
    const send = guarded({ ...PRODUCTION, HOST: '0.0.0.0', PORT: '8080' }, 'http://127.0.0.1:8080');
    expect((await send('POST', '/mcp', { host: 'api.example.com' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host: 'api.example.com', origin: 'https://api.example.com' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host: 'api.example.com:8080', origin: 'http://api.example.com:8080' })).status).toBe(200);
    expect((await send('POST', '/mcp', { host: 'api.example.com:8080', origin: 'http://api.example.com' })).status).toBe(403);
    expect((await send('POST', '/mcp', { host: 'api.example.com', origin: 'https://evil.example' })).status).toBe(403);
    expect((await send('POST', '/agent/identity', { host: 'api.example.com', origin: 'null' })).status).toBe(403);
    expect((await send('POST', '/mcp', { host: 'a b' })).status).toBe(403);
  });
});

/** One raw HTTP/1.1 exchange with the local service; node:http sends the Host header we give. */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    if (url.hostname !== '127.0.0.1') throw new Error('tests talk to loopback only');
    const req = request(url, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('host guard on the running service', () => {
  let chain: DevChain;
  let service: RunningService;
  useTestService((c, s) => ((chain = c), (service = s)));

  const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const rpc = (method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const initialize = rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host-guard-test', version: '1' } });
  const own = () => new URL(service.localUrl).host;

  it('/mcp: a foreign Host or Origin gets 403 on initialize, tools/list and tools/call; nothing is served or charged', async () => {
    const base = service.localUrl;
    // A genuine payment for a paid tool, obtained through the allowed door.
    const unpaid = await raw(base, 'POST', '/mcp', MCP_HEADERS, rpc('tools/call', { name: 'echo', arguments: { hello: 'mcp' } }));
    const required = (JSON.parse(unpaid.body) as { result: { structuredContent: PaymentRequired } }).result.structuredContent;
    const payment = await signPayment(chain.buyer.privateKey, required);
    const paidCall = rpc('tools/call', { name: 'echo', arguments: { hello: 'mcp' }, _meta: { 'x402/payment': payment } });
    const before = await balances(chain);
    const ledger = (await service.percall.store.ledger()).length;

    const foreigns: Record<string, string>[] = [{ host: 'evil.example' }, { host: `evil.example:${new URL(base).port}` }, { origin: 'http://evil.example' }, { origin: 'null' }];
    for (const foreign of foreigns) {
      for (const body of [initialize, rpc('tools/list'), paidCall]) {
        const answer = await raw(base, 'POST', '/mcp', { ...MCP_HEADERS, ...foreign }, body);
        expect(answer.status, JSON.stringify(foreign)).toBe(403);
        expect(answer.type).toBe('application/problem+json');
        expect(answer.body).not.toMatch(/"result"|"tools"|serverInfo/);
        expect((JSON.parse(answer.body) as { code: string }).code).toBe(foreign.host ? 'forbidden-host' : 'forbidden-origin');
      }
    }
    expect(await balances(chain)).toEqual(before);
    expect((await service.percall.store.ledger()).length).toBe(ledger);

    // The same payment through the allowed door, with an allowed browser Origin: served once, paid once.
    const served = await raw(base, 'POST', '/mcp', { ...MCP_HEADERS, host: own(), origin: `http://localhost:${new URL(base).port}` }, paidCall);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toMatchObject({ result: { structuredContent: { echo: 'hello=mcp' } } });
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
  });

  it('/mcp with an allowed Host and no Origin works (initialize, tools/list)', async () => {
    for (const body of [initialize, rpc('tools/list')]) {
      const answer = await raw(service.localUrl, 'POST', '/mcp', { ...MCP_HEADERS, host: own() }, body);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatch(/"result"/);
    }
  });

  it('a paid route and /agent/identity refuse a foreign Origin, charge nothing, and leave the payment usable', async () => {
    const base = service.localUrl;
    const url = `${base}/api/v1/paid/echo?x=1`;
    const payment = paymentHeader(await signPayment(chain.buyer.privateKey, await quote(url)));
    const before = await balances(chain);
    for (const foreign of [{ origin: 'http://evil.example' }, { host: 'evil.example' }] as Record<string, string>[]) {
      const answer = await raw(base, 'GET', '/api/v1/paid/echo?x=1', { ...payment, ...foreign });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('x=1');
    }
    const post = await raw(base, 'POST', '/api/v1/paid/endpoint-task-evaluation', { origin: 'http://evil.example' }, JSON.stringify({ target_url: 'https://example.com' }));
    expect([post.status, post.type]).toEqual([403, 'application/problem+json']);
    const identity = await raw(base, 'POST', '/agent/identity', { origin: 'http://evil.example' }, JSON.stringify({ type: 'anonymous' }));
    expect(identity.status).toBe(403);
    expect(identity.body).not.toContain('identity_assertion');
    expect(await balances(chain)).toEqual(before);

    expect((await raw(base, 'POST', '/agent/identity', { origin: `http://127.0.0.1:${new URL(base).port}` }, JSON.stringify({ type: 'anonymous' }))).status).toBe(201);
    expect((await raw(base, 'GET', '/api/v1/paid/echo?x=1', payment)).status).toBe(200);
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
  });
});
