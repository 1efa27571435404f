import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson } from './helpers/payments.ts';
import { useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let bare: Server;
let bareUrl: string;

beforeAll(async () => {
  // A service with none of the discovery documents, whose "paid" route answers 200.
  ({ url: bareUrl, server: bare } = await localSite((req, res) => (req.url === '/' ? res.end('<html><body>hello</body></html>') : res.writeHead(404).end())));
});
afterAll(() => bare?.close());
useTestService((c, s) => ((chain = c), (service = s)), { env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });

async function call(path: string, body: unknown): Promise<Record<string, any>> {
  const response = await paidPostJson(chain, `${service.url}${path}`, body);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

describe('x402 endpoint verify and agent readiness audit', () => {
  it('verifies percall\'s own 402: x402 v2, valid, with its bazaar block', async () => {
    const result = await call('/api/v1/paid/x402-endpoint-verify', { url: `${service.url}/api/v1/paid/time` });
    expect(result).toMatchObject({ status: 402, x402_version: 2, valid: true, bazaar: true });
    expect(result.accepts[0]).toMatchObject({ scheme: 'exact', network: chain.network, amount: '10000', pay_to: chain.payTo });
    expect(result.findings.filter((f: { severity: string }) => f.severity !== 'info')).toEqual([]);
  });

  it('flags an endpoint that does not ask for payment', async () => {
    const result = await call('/api/v1/paid/x402-endpoint-verify', { url: bareUrl });
    expect(result).toMatchObject({ status: 200, valid: false, x402_version: null });
    expect(result.findings.map((f: { check: string }) => f.check)).toContain('status');
  });

  it('percall scores 100', async () => {
    const audit = await call('/api/v1/paid/agent-readiness-audit', { url: service.url });
    expect(audit.findings).toEqual([]);
    expect(audit.score).toBe(100);
  });

  it('a bare site scores 0 with findings and fixes', async () => {
    const audit = await call('/api/v1/paid/agent-readiness-audit', { url: bareUrl });
    expect(audit.score).toBe(0);
    expect(audit.missing).toEqual(expect.arrayContaining(['x402.json', 'openapi', 'llms.txt', 'agent-card', 'paid-route']));
    expect(audit.fixes.length).toBeGreaterThan(4);
  });
});
