import { describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { agentReadinessAudit } from './index.ts';
import { readinessAudit } from './run.ts';

const SITE = 'https://api.example.com';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const challenge = {
  x402Version: 2,
  resource: { url: `${SITE}/api/v1/paid/time` },
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }],
};

/** A service publishing every document the audit scores, and a paid route answering a valid x402 challenge. */
const READY = {
  [`${SITE}/.well-known/x402.json`]: response({ resources: [{ method: 'GET', path: '/api/v1/paid/time', price: '0.01', networks: ['eip155:8453'], payTo: PAY_TO }] }),
  [`${SITE}/openapi.json`]: response({ openapi: '3.1.0', paths: { '/api/v1/paid/time': { get: { responses: { '402': { description: 'pay' } } } } } }),
  [`${SITE}/llms.txt`]: response('# Example API\n\nPaid routes.', { contentType: 'text/plain' }),
  [`${SITE}/.well-known/agent-card.json`]: response({ name: 'Example', skills: [{ id: 'time' }] }),
  [`${SITE}/.well-known/oauth-authorization-server`]: response({ issuer: SITE, token_endpoint: `${SITE}/token` }),
  [`${SITE}/.well-known/oauth-protected-resource`]: response({ resource: SITE }),
  [`${SITE}/api/v1/paid/time`]: response(challenge, {
    status: 402,
    headers: { 'payment-required': Buffer.from(JSON.stringify(challenge)).toString('base64'), 'cache-control': 'no-store' },
  }),
};

const audit = (url: string, answers: Parameters<typeof stubFetch>[0]) => agentReadinessAudit.run(agentReadinessAudit.input.parse({ url }), fakeContext({ fetch: stubFetch(answers) }));

describe('agent-readiness-audit', () => {
  it('a service with every document and a valid paid route scores 100', async () => {
    const result = await audit(`${SITE}/docs`, READY);
    expect(result.findings).toEqual([]);
    expect(result).toMatchObject({ url: SITE, score: 100, missing: [], fixes: [], audited_at: '2025-06-01T12:00:00.000Z' });
    expect(result.documents['paid-route']).toEqual({ url: `${SITE}/api/v1/paid/time`, status: 402 });
    expect(readinessAudit.safeParse(result).success).toBe(true);
  });

  it('a bare site scores 0 with findings and fixes', async () => {
    const result = await audit(SITE, { [`${SITE}/`]: response('<html><body>hello</body></html>') });
    expect(result.score).toBe(0);
    expect(result.missing).toEqual(expect.arrayContaining(['x402.json', 'openapi', 'llms.txt', 'agent-card', 'paid-route']));
    expect(result.fixes.length).toBeGreaterThan(4);
  });

  it('a service answering 500 to everything is audited: score 0, each document with its status', async () => {
    const failing = Object.fromEntries(Object.keys(READY).map((url) => [url, response('boom', { status: 500 })]));
    const result = await audit(SITE, failing);
    expect(result.score).toBe(0);
    expect(result.documents.x402).toMatchObject({ status: 500 });
  });

  it('a document the fetcher refuses once the origin answered is a finding', async () => {
    // x402.json is asked first: its refusal makes the audit check that the origin answers at all.
    const refused = new SafeFetchError('blocked_address', 'redirect to a non-public address');
    const result = await audit(SITE, { ...READY, [`${SITE}/`]: response('', { status: 404 }), [`${SITE}/.well-known/x402.json`]: refused });
    expect(result.documents.x402).toEqual({ url: `${SITE}/.well-known/x402.json`, status: null, error: 'blocked_address' });
    expect(result.findings).toEqual(expect.arrayContaining([expect.objectContaining({ check: 'x402.json', message: expect.stringContaining('could not be fetched (blocked_address)') })]));
  });

  it("no HTTP answer at all leaves nothing to audit: the caller's target 422, a silent service 502, a slow one 504", async () => {
    await expect(audit('https://no-such-host.invalid/', {})).rejects.toMatchObject({ status: 422, field: 'url' });
    await expect(audit(SITE, { [`${SITE}/`]: new SafeFetchError('network_error', 'connection refused') })).rejects.toMatchObject({ status: 502, message: expect.stringContaining('did not answer') });
    await expect(audit(SITE, { [`${SITE}/`]: new SafeFetchError('timeout', 'no answer in time') })).rejects.toMatchObject({ status: 504 });
  });
});
