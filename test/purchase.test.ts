import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { PaymentRequired } from '@x402/core/types';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { signPayment } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  ({ url: siteUrl, server: site } = await localSite((req, res) => (req.url === '/broken' ? res.writeHead(500).end('boom') : res.writeHead(404).end('not here'))));
});
afterAll(() => site?.close());

useTestService((c, s) => ((chain = c), (service = s)), { env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });

async function mcpCall(name: string, args: unknown, meta?: unknown): Promise<{ isError?: boolean; structuredContent: any }> {
  const response = await fetch(`${service.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } }),
  });
  return ((await response.json()) as { result: { isError?: boolean; structuredContent: any } }).result;
}

describe('purchase-decision products', () => {
  it('purchase_website_decision_packet on percall: payment signals with evidence', async () => {
    const unpaid = await mcpCall('purchase_website_decision_packet', { url: service.url });
    const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
    const paid = await mcpCall('purchase_website_decision_packet', { url: service.url }, { 'x402/payment': payment });
    expect(paid.isError, JSON.stringify(paid).slice(0, 600)).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({
      site: service.url,
      payment_signals: { x402_catalogue: true, openapi: true, paid_route_challenge: true, readiness_score: 100, missing: [] },
      trust_signals: { https: false },
    });
    expect(paid.structuredContent.evidence).toEqual(expect.arrayContaining([expect.objectContaining({ claim: 'publishes an x402 payment catalogue' })]));
  });

  it('purchase_website_decision_packet is charged only once the page is extracted', async () => {
    const port = new URL(siteUrl).port;
    for (const [url, says] of [
      ['http://no-such-host.invalid/', 'does not resolve'],
      [`http://[::127.0.0.1]:${port}/`, 'non-public address'],
      [`http://0.0.0.0:${port}/`, 'non-public address'],
      [`${siteUrl}/missing`, 'HTTP 404'],
      [`${siteUrl}/broken`, 'HTTP 500'],
    ]) {
      const before = await balances(chain);
      const unpaid = await mcpCall('purchase_website_decision_packet', { url });
      const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
      const paid = await mcpCall('purchase_website_decision_packet', { url }, { 'x402/payment': payment });
      expect(paid.isError, url).toBe(true);
      expect(JSON.stringify(paid), url).toContain(says);
      expect(JSON.stringify(paid), url).toContain('Nothing was charged');
      expect(await balances(chain), url).toEqual(before);
    }
  });

  it('purchase_web_extraction_sample takes HTTPS URLs only, said before payment', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/purchase-web-extraction-sample`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${siteUrl}/missing` }),
    });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toMatch(/^invalid_input: url: must be an https URL/);
  });
});
