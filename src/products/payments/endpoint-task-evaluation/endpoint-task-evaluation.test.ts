import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { localSite } from '../../../../test/helpers/local-site.ts';
import { fakeContext, loopbackFetch, response, stubFetch } from '../../kit/fake-context.ts';
import { endpointTaskEvaluation } from './index.ts';

let api: Awaited<ReturnType<typeof localSite>>;
let seenPaymentHeaders = 0;
const seenHeaders: Record<string, string | string[] | undefined>[] = [];

beforeAll(async () => {
  api = await localSite((req, res) => {
    seenHeaders.push(req.headers);
    if (req.headers['payment-signature'] || req.headers['x-payment']) seenPaymentHeaders++;
    if (req.url === '/status') return res.writeHead(200, { 'content-type': 'application/json', 'x-api-version': '3.1.4' }).end(JSON.stringify({ ok: true, uptime: 42, secret: 'never-returned' }));
    res.writeHead(500).end('boom');
  });
});
afterAll(() => api?.close());

const evaluate = (input: Record<string, unknown>, fetch = loopbackFetch()) => endpointTaskEvaluation.run(endpointTaskEvaluation.input.parse(input), fakeContext({ fetch }));

describe('endpoint-task-evaluation', () => {
  it('checks a plain JSON endpoint against status, header, schema and latency assertions, never returning its body', async () => {
    const passing = await evaluate({
      target_url: `${api.url}/status`,
      headers: { 'x-trace': '1', 'payment-signature': 'would-pay', Authorization: 'Payment abc' },
      task_assertions: {
        expect_status: [200, 204],
        expect_headers: { 'x-api-version': '/^3\\./' },
        json_schema: { type: 'object', required: ['ok', 'uptime'], properties: { ok: { const: true }, uptime: { type: 'integer' } } },
        max_latency_ms: 5000,
        body_contains: '"ok":true',
      },
    });
    expect(passing).toMatchObject({ status: 200, payment_required: false, payment_accepted: false, response_valid: true, schema_errors: [], failure_reason: null, tested_at: '2025-06-01T12:00:00.000Z' });
    expect(JSON.stringify(passing)).not.toContain('never-returned');
    expect(seenPaymentHeaders).toBe(0);
    expect(seenHeaders.at(-1)).toMatchObject({ 'x-trace': '1' });
    expect(seenHeaders.at(-1)?.authorization).toBeUndefined();
    expect(endpointTaskEvaluation.output.safeParse(passing).success).toBe(true);

    const failing = await evaluate({
      target_url: `${api.url}/status`,
      task_assertions: { json_schema: { type: 'object', required: ['version'] }, expect_headers: { 'x-api-version': '4.0.0' } },
    });
    expect(failing.response_valid).toBe(false);
    expect(failing.schema_errors).toEqual(expect.arrayContaining([expect.stringContaining("must have required property 'version'"), expect.stringContaining('x-api-version')]));
    expect(failing.failure_reason).toEqual(expect.any(String));

    const broken = await evaluate({ target_url: `${api.url}/broken` });
    expect(broken).toMatchObject({ status: 500, response_valid: false, failure_reason: 'status 500 is not 2xx or 402' });
  });

  it('sees a payable challenge in an x402 v2 header, an x402 v1 body or an MPP WWW-Authenticate, and never pays', async () => {
    const v2 = { x402Version: 2, resource: { url: 'https://paid.example/' }, accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1', asset: '0xa', payTo: '0xb', maxTimeoutSeconds: 60 }] };
    const fetch = stubFetch({
      'https://paid.example/v2': response('{}', { status: 402, headers: { 'payment-required': Buffer.from(JSON.stringify(v2)).toString('base64') } }),
      'https://paid.example/v1': response({ x402Version: 1, accepts: [{ scheme: 'exact' }] }, { status: 402 }),
      'https://paid.example/mpp': response('', { status: 402, headers: { 'www-authenticate': 'Payment id="x", method="evm"' } }),
      'https://paid.example/bare': response('pay me', { status: 402 }),
    });
    for (const path of ['v2', 'v1', 'mpp']) expect(await evaluate({ target_url: `https://paid.example/${path}` }, fetch), path).toMatchObject({ status: 402, payment_required: true, payment_accepted: true, response_valid: true });
    expect(await evaluate({ target_url: 'https://paid.example/bare' }, fetch)).toMatchObject({ payment_required: true, payment_accepted: false });
    expect(fetch.requests.every((r) => r.request.followRedirects === false)).toBe(true);
  });

  it("an endpoint that does not answer is the evaluation (status 0); a target that does not resolve or is refused is the caller's 422", async () => {
    const fetch = stubFetch({
      'https://down.example/': new SafeFetchError('network_error', 'connection refused'),
      'https://private.example/': new SafeFetchError('blocked_address', 'refused: non-public address'),
    });
    expect(await evaluate({ target_url: 'https://down.example/' }, fetch)).toMatchObject({ status: 0, response_valid: false, failure_reason: 'network_error: connection refused' });
    await expect(evaluate({ target_url: 'https://private.example/' }, fetch)).rejects.toMatchObject({ status: 422, field: 'target_url' });
    await expect(evaluate({ target_url: 'https://no-such-host.invalid/' }, fetch)).rejects.toMatchObject({ status: 422, field: 'target_url' });
  });

  it('a schema that does not compile is refused (400) before the target is called', async () => {
    const fetch = stubFetch({});
    await expect(evaluate({ target_url: 'https://api.example/', task_assertions: { json_schema: { $ref: '#/$defs/nowhere' } } }, fetch)).rejects.toMatchObject({ status: 400, field: 'task_assertions.json_schema' });
    expect(fetch.requests).toEqual([]);
  });

  it('refuses before payment what can never be sent: a bad method, header name or value, an invalid regex', () => {
    const target_url = 'https://api.example/';
    for (const input of [
      { target_url, method: 'GE T' },
      { target_url, headers: { 'bad name': 'x' } },
      { target_url, headers: { 'x-ok': 'line\nbreak' } },
      { target_url, task_assertions: { expect_headers: { 'x-api-version': '/(unclosed/' } } },
      { target_url, task_assertions: { json_schema: { type: 'objekt' } } },
    ]) {
      expect(endpointTaskEvaluation.input.safeParse(input).success, JSON.stringify(input)).toBe(false);
    }
  });
});
