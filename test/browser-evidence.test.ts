import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import type { IncomingMessage, Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import type { DevChain } from '../src/devchain/stack.ts';
import { BrowserPool, chromiumPath } from '../src/providers/browser.ts';
import { DEFAULT_POLICY } from '../src/providers/safe-fetch.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson, quote } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

const PAGE = `<!doctype html><html><head><title>Counter</title></head><body>
<h1 id="state">not clicked</h1>
<button id="go" onclick="document.getElementById('state').textContent = 'clicked ' + document.getElementById('name').value">Go</button>
<input id="name" value="">
<script>
  fetch('http://0.0.0.0:9/secret').then(() => { document.getElementById('leak').textContent = 'LEAKED'; }, () => { document.getElementById('leak').textContent = 'private fetch blocked'; });
</script>
<p id="leak">pending</p>
</body></html>`;

/** 0.02 USD, the product's price, in atomic USDC. */
const PRICE = 20_000n;

if (!chromiumPath() && process.env.PERCALL_REQUIRE_BROWSER) throw new Error('PERCALL_REQUIRE_BROWSER is set but no Chromium was found');
const suite = chromiumPath() ? describe : describe.skip;

let chain: DevChain;
let service: RunningService;
let site: Server;
let siteUrl: string;
/** Loopback servers the browser must never reach: 127.0.0.2 (not allowed), and ones behind 0.0.0.0 and [::]. */
let trap: Server;
let trapPort: number;
let trapBehindUnspecified: Server;
let unspecifiedPort: number;
let trapBehindUnspecifiedV6: Server;
let unspecifiedV6Port: number;
const trapped: string[] = [];
/** WebRTC targets: a UDP socket (STUN) and a TCP listener (TURN over TCP). */
let udp: Socket;
let tcp: TcpServer;
const rtcSeen: string[] = [];
/** Page requests the test waits on (the page's own signals), by path. */
const requested = new Map<string, (request: IncomingMessage) => void>();
const nextRequest = (path: string) => new Promise<IncomingMessage>((resolve) => requested.set(path, resolve));

function html(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8">${body}</html>`;
}

const pages: Record<string, () => { status?: number; headers?: Record<string, string>; body?: string }> = {
  '/': () => ({ body: PAGE }),
  '/redirect-to-refused': () => ({ status: 302, headers: { location: `http://127.0.0.2:${trapPort}/stolen` } }),
  '/redirect-to-unspecified': () => ({ status: 302, headers: { location: `http://0.0.0.0:${unspecifiedPort}/stolen` } }),
  '/redirect-to-unspecified-v6': () => ({ status: 302, headers: { location: `http://[::]:${unspecifiedV6Port}/stolen` } }),
  '/links': () => ({
    body: html(`<title>Links</title></head><body>
      <a id="out" href="/redirect-to-refused">refused</a>
      <a id="out0" href="/redirect-to-unspecified">unspecified</a>
      <a id="in" href="/start">allowed</a></body>`),
  }),
  '/start': () => ({ status: 302, headers: { location: '/deep/landing' } }),
  '/deep/landing': () => ({
    body: html(`<title>Landing</title></head><body><p id="where"></p><p id="relative">pending</p>
      <script>
        document.getElementById('where').textContent = 'at ' + location.pathname;
        fetch('data.txt').then((r) => r.text()).then((t) => { document.getElementById('relative').textContent = t; });
      </script></body>`),
  }),
  '/deep/data.txt': () => ({ headers: { 'content-type': 'text/plain' }, body: 'relative fetch resolved against the final URL' }),
  '/loop': () => ({ body: html('<title>Spin</title></head><body><h1>spinning</h1><script>while (true) {}</script></body>') }),
  '/rtc': () => ({
    body: html(`<title>RTC</title></head><body><p id="ice">new</p><script>
      const pc = new RTCPeerConnection({ iceServers: [
        { urls: 'stun:127.0.0.1:${(udp.address() as AddressInfo).port}' },
        { urls: 'turn:127.0.0.1:${(tcp.address() as AddressInfo).port}?transport=tcp', username: 'user', credential: 'secret' },
      ] });
      pc.onicegatheringstatechange = () => {
        document.getElementById('ice').textContent = 'ice gathering ' + pc.iceGatheringState;
        fetch('/ice?state=' + pc.iceGatheringState);
        if (pc.iceGatheringState === 'complete') {
          const done = document.createElement('button');
          done.id = 'ice-done';
          done.textContent = 'done';
          document.body.append(done);
        }
      };
      pc.createDataChannel('probe');
      pc.createOffer().then((offer) => pc.setLocalDescription(offer));
    </script></body>`),
  }),
  '/ice': () => ({ headers: { 'content-type': 'text/plain' }, body: 'noted' }),
};

suite('browser_evidence', () => {
  beforeAll(async () => {
    ({ url: siteUrl, server: site } = await localSite((req, res) => {
      const path = new URL(req.url!, 'http://site').pathname;
      requested.get(path)?.(req);
      requested.delete(path);
      const page = pages[path]?.();
      if (!page) return void res.writeHead(404).end();
      res.writeHead(page.status ?? 200, { 'content-type': 'text/html', ...page.headers }).end(page.body ?? '');
    }));
    ({ server: trap } = await localSite((req, res) => (trapped.push(`127.0.0.2 ${req.url}`), res.end('SECRET')), '127.0.0.2'));
    trapPort = (trap.address() as AddressInfo).port;
    ({ server: trapBehindUnspecified } = await localSite((req, res) => (trapped.push(`0.0.0.0 ${req.url}`), res.end('SECRET'))));
    unspecifiedPort = (trapBehindUnspecified.address() as AddressInfo).port;
    ({ server: trapBehindUnspecifiedV6 } = await localSite((req, res) => (trapped.push(`[::] ${req.url}`), res.end('SECRET')), '::1'));
    unspecifiedV6Port = (trapBehindUnspecifiedV6.address() as AddressInfo).port;
    udp = createSocket('udp4').on('message', (_message, from) => rtcSeen.push(`udp from ${from.address}:${from.port}`));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    tcp = createTcpServer((socket) => (rtcSeen.push('tcp connection'), socket.destroy()));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));

    chain = await startTestChain();
    // Not PERCALL_FETCH_ALLOW_LOOPBACK: only the site's own address stands in for the internet, so
    // 127.0.0.2 (and every other loopback or special address) stays refused.
    // Shorter page limits than the defaults: the cases that run into them take seconds, not tens.
    service = await startTestService({ chain, env: { PERCALL_FETCH_ALLOW_ADDRESSES: '127.0.0.1', BROWSER_LOAD_TIMEOUT_MS: '4000', BROWSER_ACTION_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => {
    site?.close();
    trap?.close();
    trapBehindUnspecified?.close();
    trapBehindUnspecifiedV6?.close();
    udp?.close();
    tcp?.close();
    await service?.stop();
    await chain?.stop();
  });

  const evidence = (body: unknown) => paidPostJson(chain, `${service.url}/api/v1/paid/evidence/browser`, body);
  const fieldsOf = async (response: Response) => ((await response.json()) as { errors?: { field: string }[] }).errors?.map((e) => e.field);

  it('fills, clicks, and returns a screenshot and the DOM text; the page cannot reach a private address', async () => {
    const filled = await evidence({ url: siteUrl, action: 'fill', selector: '#name', value: 'Ada' });
    expect(filled.status).toBe(200);
    const clicked = await evidence({ url: siteUrl, action: 'click', selector: '#go', wait_ms: 200 });
    expect(clicked.status).toBe(200);
    const result = (await clicked.json()) as { title: string; text: string; final_url: string; timed_out: boolean; screenshot: { base64: string; sha256: string; mime_type: string } };
    expect(result.title).toBe('Counter');
    expect(result.text).toContain('clicked');
    expect(result.text).toContain('private fetch blocked');
    expect(result.text).not.toContain('LEAKED');
    expect(result.timed_out).toBe(false);
    const png = Buffer.from(result.screenshot.base64, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(createHash('sha256').update(png).digest('hex')).toBe(result.screenshot.sha256);
  });

  it('bad actions are refused and not charged', async () => {
    const before = await balances(chain);
    expect((await evidence({ url: siteUrl, action: 'click' })).status).toBe(400);
    expect((await evidence({ url: siteUrl, action: 'click', selector: '#missing' })).status).toBe(422);
    expect((await evidence({ url: 'http://[::]:9/' })).status).toBe(422);
    expect(await balances(chain)).toEqual(before);
  });

  it('a redirect to a refused address is never followed, neither on load nor after a click: 422 on url, not charged', async () => {
    const before = await balances(chain);
    for (const body of [
      { url: `${siteUrl}/redirect-to-refused` },
      { url: `${siteUrl}/redirect-to-unspecified` },
      { url: `${siteUrl}/redirect-to-unspecified-v6` },
      { url: `${siteUrl}/links`, action: 'click', selector: '#out' },
      { url: `${siteUrl}/links`, action: 'click', selector: '#out0' },
    ]) {
      const response = await evidence(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(await fieldsOf(response)).toEqual(['url']);
    }
    expect(trapped).toEqual([]);
    expect(await balances(chain)).toEqual(before);
  });

  it('an allowed redirect lands on the final URL, and the page resolves relative URLs against it', async () => {
    for (const body of [{ url: `${siteUrl}/start` }, { url: `${siteUrl}/links`, action: 'click', selector: '#in' }]) {
      const response = await evidence(body);
      expect(response.status, JSON.stringify(body)).toBe(200);
      const result = (await response.json()) as { final_url: string; title: string; text: string; status: number; timed_out: boolean };
      expect(result.final_url).toBe(`${siteUrl}/deep/landing`);
      expect(result.title).toBe('Landing');
      expect(result.status).toBe(200);
      expect(result.text).toContain('at /deep/landing');
      expect(result.text).toContain('relative fetch resolved against the final URL');
      expect(result.timed_out).toBe(false);
    }
  });

  it('only http and https pages: a data: URL is refused before payment (400), the quote already says why', async () => {
    const dataUrl = 'data:text/html,<script>new RTCPeerConnection()</script>';
    for (const url of [dataUrl, 'file:///etc/passwd', 'javascript:alert(1)']) {
      const unpaid = await quote(`${service.url}/api/v1/paid/evidence/browser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
      expect(unpaid.error, url).toMatch(/^invalid_input: url:/);
    }
    const before = await balances(chain);
    const paid = await evidence({ url: dataUrl });
    expect(paid.status).toBe(400);
    expect(await fieldsOf(paid)).toEqual(['url']);
    expect(await balances(chain)).toEqual(before);
  });

  it('WebRTC in a page reaches nothing: no STUN over UDP, no TURN over TCP', async () => {
    const gathering = nextRequest('/ice');
    const before = await balances(chain);
    // The click waits (bounded by the action time limit) for the page's own signal that ICE
    // gathering completed; the browser has no network at all, so gathering may never complete.
    const response = await evidence({ url: `${siteUrl}/rtc`, action: 'click', selector: '#ice-done' });
    const beacon = await gathering;
    expect(beacon.url).toBe('/ice?state=gathering');
    expect([200, 422]).toContain(response.status);
    if (response.status === 200) {
      expect(((await response.json()) as { text: string }).text).toContain('ice gathering complete');
      expect((await balances(chain)).buyer).toBe(before.buyer - PRICE);
    } else {
      expect(await fieldsOf(response)).toEqual(['selector']);
      expect(await balances(chain)).toEqual(before);
    }
    expect(rtcSeen).toEqual([]);
  });

  it('a page that never yields is delivered with timed_out and charged; the same payer cannot run two at once; the pool is free after', async () => {
    const before = await balances(chain);
    const spinning = nextRequest('/loop');
    const first = evidence({ url: `${siteUrl}/loop` });
    await spinning; // the first call holds its page now
    const second = await evidence({ url: siteUrl });
    expect(second.status).toBe(429);
    const firstResponse = await first;
    expect(firstResponse.status).toBe(200);
    const result = (await firstResponse.json()) as { timed_out: boolean; final_url: string; status: number };
    expect(result.timed_out).toBe(true);
    expect(result.final_url).toBe(`${siteUrl}/loop`);
    expect(result.status).toBe(200);
    const after = await balances(chain);
    expect(after.buyer).toBe(before.buyer - PRICE);
    expect(after.payTo).toBe(before.payTo + PRICE);

    const next = await evidence({ url: siteUrl });
    expect(next.status).toBe(200);
    const normal = (await next.json()) as { timed_out: boolean; title: string; screenshot: { sha256: string } | null };
    expect(normal.timed_out).toBe(false);
    expect(normal.title).toBe('Counter');
    expect(normal.screenshot?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the pool: a bounded wait for a free page, one page per caller, a hard limit, and the page always given back', async () => {
    const policy = { ...DEFAULT_POLICY, allowAddresses: ['127.0.0.1'], timeoutMs: 2_000 };
    const pool = new BrowserPool(policy, { pages: 1, perCaller: 1, slotWaitMs: 200 });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let opened!: () => void;
      const isOpen = new Promise<void>((resolve) => (opened = resolve));
      const first = pool.withPage({ caller: '0xA', timeoutMs: 10_000 }, async () => {
        opened();
        await held;
        return 'first';
      });
      await isOpen;
      await expect(pool.withPage({ caller: '0xa', timeoutMs: 10_000 }, async () => 'same caller')).rejects.toMatchObject({ name: 'ProductInputError', status: 429 });
      await expect(pool.withPage({ caller: '0xb', timeoutMs: 10_000 }, async () => 'other caller')).rejects.toMatchObject({ name: 'BrowserBusyError' });
      release();
      expect(await first).toBe('first');
      await expect(pool.withPage({ caller: '0xa', timeoutMs: 10_000 }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      await expect(pool.withPage({ caller: '0xa', timeoutMs: 0 }, () => new Promise(() => undefined))).rejects.toMatchObject({ name: 'BrowserTimeLimitError' });
      const loaded = await pool.withPage({ caller: '0xa', timeoutMs: 10_000 }, (page) => page.open(siteUrl, 5_000));
      expect(loaded).toEqual({ status: 200, timedOut: false });
    } finally {
      await pool.close();
    }
  });
});
