import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let bare: Server;
let bareUrl: string;
let failing: Server;
let failingUrl: string;
let redirecting: Server;
let redirectingUrl: string;
/** A loopback port nothing listens on (a server was bound there and closed). */
let closedPort: number;

beforeAll(async () => {
  // A service with none of the discovery documents, whose "paid" route answers 200.
  ({ url: bareUrl, server: bare } = await localSite((req, res) => (req.url === '/' ? res.end('<html><body>hello</body></html>') : res.writeHead(404).end())));
  // A service that answers every request with 500.
  ({ url: failingUrl, server: failing } = await localSite((_req, res) => res.writeHead(500).end('boom')));
  // A service whose x402.json redirects to an address the fetcher refuses, and that answers 404 otherwise.
  ({ url: redirectingUrl, server: redirecting } = await localSite((req, res) =>
    req.url === '/.well-known/x402.json' ? res.writeHead(302, { location: `http://0.0.0.0:${portOf(bareUrl)}/x402.json` }).end() : res.writeHead(404).end(),
  ));
  const closed = await localSite(() => undefined);
  closedPort = portOf(closed.url);
  await new Promise((resolve) => closed.server.close(resolve));
});
afterAll(() => {
  bare?.close();
  failing?.close();
  redirecting?.close();
});

function portOf(url: string): number {
  return Number(new URL(url).port);
}
useTestService((c, s) => ((chain = c), (service = s)), { env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });

async function call(path: string, body: unknown): Promise<Record<string, any>> {
  const response = await paidPostJson(chain, `${service.url}${path}`, body);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

/** A paid call with its status, body and what the buyer was charged (atomic USDC). */
async function charged(path: string, body: unknown): Promise<{ status: number; json: Record<string, any>; charge: bigint }> {
  const before = await balances(chain);
  const response = await paidPostJson(chain, `${service.url}${path}`, body);
  const json = (await response.json()) as Record<string, any>;
  const after = await balances(chain);
  expect(after.payTo - before.payTo).toBe(before.buyer - after.buyer);
  return { status: response.status, json, charge: before.buyer - after.buyer };
}

const AUDIT = '/api/v1/paid/agent-readiness-audit';
const VERIFY = '/api/v1/paid/x402-endpoint-verify';
const AUDIT_PRICE = 1_000_000n;
const VERIFY_PRICE = 20_000n;

describe('x402 endpoint verify and agent readiness audit', () => {
  it('verifies percall\'s own 402: x402 v2, valid, with its bazaar block', async () => {
    const result = await call('/api/v1/paid/x402-endpoint-verify', { url: `${service.url}/api/v1/paid/time` });
    expect(result).toMatchObject({ status: 402, x402_version: 2, valid: true, bazaar: true });
    expect(result.accepts[0]).toMatchObject({ scheme: 'exact', network: chain.network, amount: '10000', pay_to: chain.payTo });
    expect(result.findings.filter((f: { severity: string }) => f.severity !== 'info')).toEqual([]);
  });

  it('percall scores 100', async () => {
    const { status, json: audit, charge } = await charged(AUDIT, { url: service.url });
    expect(status).toBe(200);
    expect(audit.findings).toEqual([]);
    expect(audit.score).toBe(100);
    expect(charge).toBe(AUDIT_PRICE);
  });
});

describe('charging of the audit and the verification', () => {
  const refused = () => [`http://[::127.0.0.1]:${portOf(bareUrl)}/`, `http://0.0.0.0:${portOf(bareUrl)}/`];

  it('audit: a name that does not resolve is the caller\'s input: 422 naming url, not charged', async () => {
    const { status, json, charge } = await charged(AUDIT, { url: 'http://no-such-host.invalid/' });
    expect(status).toBe(422);
    expect(json.errors).toEqual([expect.objectContaining({ field: 'url' })]);
    expect(json.detail).toContain('does not resolve');
    expect(charge).toBe(0n);
  });

  it('audit: a refused address, also with loopback allowed, is 422 naming url, not charged', async () => {
    for (const url of refused()) {
      const { status, json, charge } = await charged(AUDIT, { url });
      expect(status, url).toBe(422);
      expect(json.errors, url).toEqual([expect.objectContaining({ field: 'url' })]);
      expect(json.detail, url).toContain('non-public address');
      expect(charge, url).toBe(0n);
    }
  });

  it('audit: a service that answers 500 to everything is audited (score 0) and charged exactly the price', async () => {
    const { status, json, charge } = await charged(AUDIT, { url: failingUrl });
    expect(status).toBe(200);
    expect(json.score).toBe(0);
    expect(json.documents.x402).toMatchObject({ status: 500 });
    expect(charge).toBe(AUDIT_PRICE);
  });

  it('audit: a service that gives no answer at all (connection refused) leaves nothing to audit: 502, not charged', async () => {
    const { status, json, charge } = await charged(AUDIT, { url: `http://127.0.0.1:${closedPort}/` });
    expect(status).toBe(502);
    expect(json.detail).toContain('did not answer');
    expect(charge).toBe(0n);
  });

  it('audit: a document redirecting to a refused address is a finding of a delivered audit', async () => {
    const { status, json, charge } = await charged(AUDIT, { url: redirectingUrl });
    expect(status).toBe(200);
    expect(json.documents.x402).toMatchObject({ status: null, error: 'blocked_address' });
    expect(json.findings).toEqual(expect.arrayContaining([expect.objectContaining({ check: 'x402.json', message: expect.stringContaining('could not be fetched (blocked_address)') })]));
    expect(charge).toBe(AUDIT_PRICE);
  });

  it('verify: unresolvable or refused is 422 naming url; an answer of 500 is a verdict, charged; no answer is 502', async () => {
    for (const url of ['http://no-such-host.invalid/paid', ...refused()]) {
      const { status, json, charge } = await charged(VERIFY, { url });
      expect(status, url).toBe(422);
      expect(json.errors, url).toEqual([expect.objectContaining({ field: 'url' })]);
      expect(charge, url).toBe(0n);
    }
    const failed = await charged(VERIFY, { url: `${failingUrl}/paid` });
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({ status: 500, valid: false });
    expect(failed.charge).toBe(VERIFY_PRICE);
    const down = await charged(VERIFY, { url: `http://127.0.0.1:${closedPort}/paid` });
    expect(down.status).toBe(502);
    expect(down.charge).toBe(0n);
  });

  it('the unpaid 402 already warns about a URL the fetcher never takes', async () => {
    for (const [path, url] of [
      [AUDIT, 'ftp://no-such-host.invalid/'],
      [VERIFY, 'http://user:secret@no-such-host.invalid/'],
    ] as const) {
      const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
      expect(response.status).toBe(402);
      expect(((await response.json()) as { error: string }).error, url).toMatch(/^invalid_input: url: /);
    }
  });
});
