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
let seenPaymentHeaders = 0;

beforeAll(async () => {
  ({ url: apiUrl, server: api } = await localSite((req, res) => {
    if (req.headers['payment-signature'] || req.headers['x-payment']) seenPaymentHeaders++;
    if (req.url === '/status') return res.writeHead(200, { 'content-type': 'application/json', 'x-api-version': '3.1.4' }).end(JSON.stringify({ ok: true, uptime: 42, secret: 'never-returned' }));
    res.writeHead(500).end('boom');
  }));
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

  it('checks a plain JSON endpoint against status, header, schema and latency assertions, never returning its body', async () => {
    const passing = await evaluate({
      target_url: `${apiUrl}/status`,
      headers: { 'x-trace': '1', 'payment-signature': 'would-pay' },
      task_assertions: {
        expect_status: [200, 204],
        expect_headers: { 'x-api-version': '/^3\\./' },
        json_schema: { type: 'object', required: ['ok', 'uptime'], properties: { ok: { const: true }, uptime: { type: 'integer' } } },
        max_latency_ms: 5000,
        body_contains: '"ok":true',
      },
    });
    expect(passing.json).toMatchObject({ status: 200, payment_required: false, payment_accepted: false, response_valid: true, schema_errors: [] });
    expect(JSON.stringify(passing.json)).not.toContain('never-returned');
    expect(seenPaymentHeaders).toBe(0);

    const failing = await evaluate({
      target_url: `${apiUrl}/status`,
      task_assertions: { json_schema: { type: 'object', required: ['version'] }, expect_headers: { 'x-api-version': '4.0.0' } },
    });
    expect(failing.json.response_valid).toBe(false);
    expect(failing.json.schema_errors).toEqual(expect.arrayContaining([expect.stringContaining("must have required property 'version'"), expect.stringContaining('x-api-version')]));
    expect(failing.json.failure_reason).toEqual(expect.any(String));

    const broken = await evaluate({ target_url: `${apiUrl}/broken` });
    expect(broken.json).toMatchObject({ status: 500, response_valid: false, failure_reason: 'status 500 is not 2xx or 402' });
  });

  it('a private target is bad input: 422, not charged', async () => {
    const before = await balances(chain);
    const { status } = await evaluate({ target_url: 'http://10.0.0.1/' });
    expect(status).toBe(422);
    expect(await balances(chain)).toEqual(before);
  });
});
