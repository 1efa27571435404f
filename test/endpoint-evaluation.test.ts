import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let api: Server;
let apiUrl: string;
/** A loopback port nothing listens on (a server was bound there and closed). */
let closedPort: number;

beforeAll(async () => {
  ({ url: apiUrl, server: api } = await localSite((req, res) => {
    if (req.url === '/status') return res.writeHead(200, { 'content-type': 'application/json', 'x-api-version': '3.1.4' }).end(JSON.stringify({ ok: true, uptime: 42, secret: 'never-returned' }));
    res.writeHead(500).end('boom');
  }));
  const closed = await localSite(() => undefined);
  closedPort = Number(new URL(closed.url).port);
  await new Promise((resolve) => closed.server.close(resolve));
});
afterAll(() => api?.close());
useTestService((c, s) => ((chain = c), (service = s)), { env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });

async function evaluate(body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const response = await paidPostJson(chain, `${service.url}/api/v1/paid/endpoint-task-evaluation`, body);
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

describe('endpoint-task-evaluation', () => {
  it('evaluates a local x402 server (percall itself): 402 seen, a payable challenge, and no payment made', async () => {
    const before = await balances(chain);
    const { status, json } = await evaluate({ target_url: `${service.url}/api/v1/paid/time`, task_assertions: { expect_status: 402 } });
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 402, payment_required: true, payment_accepted: true, response_valid: true, schema_errors: [], failure_reason: null });
    expect(Number.isInteger(json.latency_ms)).toBe(true);
    // Only the evaluation itself was paid: the target (same pay-to) received nothing more.
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);
  });

  it('a private target is bad input: 422, not charged', async () => {
    const before = await balances(chain);
    const { status } = await evaluate({ target_url: 'http://0.0.0.0/' });
    expect(status).toBe(422);
    expect(await balances(chain)).toEqual(before);
  });
});

describe('endpoint-task-evaluation charging', () => {
  const PRICE = 10_000n;
  async function charged(body: unknown): Promise<{ status: number; json: Record<string, any>; charge: bigint }> {
    const before = await balances(chain);
    const { status, json } = await evaluate(body);
    const after = await balances(chain);
    expect(after.payTo - before.payTo).toBe(before.buyer - after.buyer);
    return { status, json, charge: before.buyer - after.buyer };
  }

  it('a name that does not resolve was never evaluated: 422 naming target_url, not charged', async () => {
    const { status, json, charge } = await charged({ target_url: 'http://no-such-host.invalid/status' });
    expect(status).toBe(422);
    expect(json.errors).toEqual([expect.objectContaining({ field: 'target_url' })]);
    expect(json.detail).toContain('does not resolve');
    expect(charge).toBe(0n);
  });

  it('a refused address, also with loopback allowed, is 422 naming target_url, not charged', async () => {
    const port = new URL(apiUrl).port;
    for (const target_url of [`http://[::127.0.0.1]:${port}/status`, `http://0.0.0.0:${port}/status`, `http://[::]:${port}/status`]) {
      const { status, json, charge } = await charged({ target_url });
      expect(status, target_url).toBe(422);
      expect(json.errors, target_url).toEqual([expect.objectContaining({ field: 'target_url' })]);
      expect(json.detail, target_url).toContain('non-public address');
      expect(charge, target_url).toBe(0n);
    }
  });

  it('a reachable endpoint answering 500 is a delivered evaluation: 200, charged exactly the price', async () => {
    const { status, json, charge } = await charged({ target_url: `${apiUrl}/broken` });
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 500, response_valid: false, failure_reason: 'status 500 is not 2xx or 402' });
    expect(charge).toBe(PRICE);
  });

  it('a reachable endpoint answering 200 is charged exactly the price', async () => {
    const { status, json, charge } = await charged({ target_url: `${apiUrl}/status` });
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 200, response_valid: true, failure_reason: null });
    expect(charge).toBe(PRICE);
  });

  it('an endpoint that is down (connection refused on a name that resolves) is the answer: charged, status 0 with the reason', async () => {
    const { status, json, charge } = await charged({ target_url: `http://localhost:${closedPort}/status` });
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: 0, response_valid: false, failure_reason: expect.stringMatching(/^network_error: /) });
    expect(charge).toBe(PRICE);
  });

  it('a schema that does not compile is refused before the target is called: 400, not charged', async () => {
    const { status, json, charge } = await charged({ target_url: `${apiUrl}/status`, task_assertions: { json_schema: { $ref: '#/$defs/nowhere' } } });
    expect(status).toBe(400);
    expect(json.errors).toEqual([expect.objectContaining({ field: 'task_assertions.json_schema' })]);
    expect(charge).toBe(0n);
  });

  it('the unpaid 402 already warns about input that can never be evaluated', async () => {
    const cases: [unknown, RegExp][] = [
      [{ target_url: 'ftp://no-such-host.invalid/' }, /^invalid_input: target_url: must be an http or https URL/],
      [{ target_url: 'http://user:secret@no-such-host.invalid/' }, /^invalid_input: target_url: URLs with credentials/],
      [{ target_url: `${apiUrl}/status`, method: 'GE T' }, /^invalid_input: method: /],
      [{ target_url: `${apiUrl}/status`, headers: { 'bad name': 'x' } }, /^invalid_input: headers\.bad name: /],
      [{ target_url: `${apiUrl}/status`, headers: { 'x-ok': 'line\nbreak' } }, /^invalid_input: headers\.x-ok: /],
      [{ target_url: `${apiUrl}/status`, task_assertions: { json_schema: { type: 'objekt' } } }, /^invalid_input: task_assertions\.json_schema: not a valid JSON Schema/],
      [{ target_url: `${apiUrl}/status`, task_assertions: { expect_headers: { 'x-api-version': '/(unclosed/' } } }, /^invalid_input: task_assertions\.expect_headers\.x-api-version: /],
    ];
    for (const [body, error] of cases) {
      const response = await fetch(`${service.url}/api/v1/paid/endpoint-task-evaluation`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status).toBe(402);
      expect(((await response.json()) as { error: string }).error, JSON.stringify(body)).toMatch(error);
    }
  });
});
