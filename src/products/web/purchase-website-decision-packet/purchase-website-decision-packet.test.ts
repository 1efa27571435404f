import { describe, expect, it } from 'vitest';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { purchaseWebsiteDecisionPacket } from './index.ts';
import { decisionOutput } from './run.ts';

const SHOP = 'https://shop.example';
const HOME = `<html><head><title>Shop</title><meta name="description" content="Paid data for agents."><link rel="canonical" href="${SHOP}/"></head>
<body><article><p>We sell market data per call, paid in USDC.</p></article>
<a href="/privacy">Privacy</a> <a href="/legal/terms">Terms</a> <a href="/pricing">Pricing</a></body></html>`;

const run = (url: string, fetch: ReturnType<typeof stubFetch>) =>
  purchaseWebsiteDecisionPacket.run(purchaseWebsiteDecisionPacket.input.parse({ url }), fakeContext({ fetch }));

describe('purchase-website-decision-packet', () => {
  it('offer, payment and trust signals, each with the evidence URL behind it', async () => {
    const fetch = stubFetch({
      [`${SHOP}/`]: response(HOME),
      [`${SHOP}/.well-known/x402.json`]: response({ resources: [{ path: '/api/v1/paid/quote', price: '0.01', networks: ['eip155:8453'], payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C' }] }),
      [`${SHOP}/api/v1/paid/quote`]: response({ error: 'pay first' }, { status: 402 }),
    });
    const packet = await run(`${SHOP}/`, fetch);
    expect(packet).toMatchObject({
      site: SHOP,
      offer: { title: 'Shop', description: 'Paid data for agents.', source: `${SHOP}/` },
      payment_signals: { x402_catalogue: true, openapi: false, paid_route_challenge: true },
      trust_signals: { https: true, canonical: `${SHOP}/`, privacy_policy: `${SHOP}/privacy`, terms: `${SHOP}/legal/terms`, contact: null, about: null, pricing: `${SHOP}/pricing` },
      decided_at: '2025-06-01T12:00:00.000Z',
    });
    expect(packet.offer.summary).toContain('market data per call');
    expect(packet.payment_signals.missing).toEqual(expect.arrayContaining(['openapi', 'llms.txt']));
    expect(packet.evidence.map((e) => e.claim)).toEqual([
      'privacy policy page linked',
      'terms page linked',
      'pricing page linked',
      'publishes an x402 payment catalogue',
      'a listed paid route answers 402 with payment terms',
      `agent readiness score ${packet.payment_signals.readiness_score}/100`,
    ]);
    expect(packet.fixes.length).toBeGreaterThan(0);
    expect(decisionOutput.safeParse(packet).success).toBe(true);
  });

  it('is charged only once the page is extracted: a missing page 422, a failing site 502, an unresolvable name 422', async () => {
    const fetch = stubFetch({ [`${SHOP}/missing`]: response('', { status: 404 }), [`${SHOP}/broken`]: response('', { status: 500 }) });
    await expect(run(`${SHOP}/missing`, fetch)).rejects.toMatchObject({ status: 422, field: 'url', message: expect.stringContaining('HTTP 404') });
    await expect(run(`${SHOP}/broken`, fetch)).rejects.toMatchObject({ status: 502, message: expect.stringContaining('HTTP 500') });
    await expect(run('https://no-such-host.invalid/', fetch)).rejects.toMatchObject({ status: 422, field: 'url' });
  });

  it('is sold as an MCP tool only', () => {
    expect(purchaseWebsiteDecisionPacket.http).toBeUndefined();
    expect(purchaseWebsiteDecisionPacket.mcp).toMatchObject({ tool: 'purchase_website_decision_packet', price: '0.05' });
  });
});
