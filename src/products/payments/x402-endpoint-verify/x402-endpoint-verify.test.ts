import { describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { x402EndpointVerify } from './index.ts';

const URL = 'https://api.example.com/api/v1/paid/time';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const challenge = {
  x402Version: 2,
  resource: { url: URL },
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }],
};
const header = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

const verify = (answers: Parameters<typeof stubFetch>[0], input: Record<string, unknown> = { url: URL }) => {
  const fetch = stubFetch(answers);
  return { fetch, result: x402EndpointVerify.run(x402EndpointVerify.input.parse(input), fakeContext({ fetch })) };
};

describe('x402-endpoint-verify', () => {
  it('a well-formed v2 challenge is valid; the missing bazaar block is a warning', async () => {
    const { result } = verify({ [URL]: response(challenge, { status: 402, headers: { 'payment-required': header(challenge), 'cache-control': 'no-store' } }) });
    const out = await result;
    expect(out).toMatchObject({ url: URL, status: 402, x402_version: 2, valid: true, bazaar: false, checked_at: '2025-06-01T12:00:00.000Z' });
    expect(out.accepts).toEqual([{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: challenge.accepts[0]!.asset, pay_to: PAY_TO }]);
    expect(out.findings.map((f) => [f.severity, f.check])).toEqual([['warning', 'bazaar']]);
    expect(x402EndpointVerify.output.safeParse(out).success).toBe(true);
  });

  it('flags an endpoint that does not ask for payment', async () => {
    const out = await verify({ [URL]: response('<html><body>hello</body></html>') }).result;
    expect(out).toMatchObject({ status: 200, valid: false, x402_version: null });
    expect(out.findings.map((f) => f.check)).toContain('status');
  });

  it('flags a broken challenge field by field, and reads an x402 v1 body', async () => {
    const broken = { ...challenge, accepts: [{ scheme: 'exact', network: 'base', amount: '0.01', asset: '', payTo: PAY_TO }] };
    const out = await verify({ [URL]: response(broken, { status: 402, headers: { 'payment-required': header(broken) } }) }).result;
    expect(out.valid).toBe(false);
    expect(out.findings.filter((f) => f.severity === 'error').map((f) => f.check)).toEqual(['accepts.0.network', 'accepts.0.amount', 'accepts.0.asset']);
    expect(out.findings.map((f) => f.check)).toContain('cache-control');
    const v1 = await verify({ [URL]: response({ x402Version: 1, accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '10000', asset: '0xa', payTo: PAY_TO, maxTimeoutSeconds: 60 }] }, { status: 402 }) }).result;
    expect(v1).toMatchObject({ x402_version: 1, accepts: [{ amount: '10000' }] });
    expect(v1.findings).toEqual(expect.arrayContaining([expect.objectContaining({ severity: 'info', check: 'version' })]));
  });

  it('probes with the chosen method; any HTTP answer is a verdict, a 500 included', async () => {
    const { fetch, result } = verify({ [URL]: response('boom', { status: 500 }) }, { url: URL, method: 'POST' });
    expect(await result).toMatchObject({ status: 500, valid: false });
    expect(fetch.requests[0]!.request).toMatchObject({ method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  });

  it("no HTTP answer: the caller's target 422 naming url, a silent endpoint 502, a slow one 504", async () => {
    await expect(verify({}).result).rejects.toMatchObject({ status: 422, field: 'url' });
    await expect(verify({ [URL]: new SafeFetchError('blocked_address', 'refused: non-public address') }).result).rejects.toMatchObject({ status: 422, field: 'url' });
    await expect(verify({ [URL]: new SafeFetchError('network_error', 'connection refused') }).result).rejects.toMatchObject({ status: 502 });
    await expect(verify({ [URL]: new SafeFetchError('timeout', 'no answer in time') }).result).rejects.toMatchObject({ status: 504 });
  });
});
