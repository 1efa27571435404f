import { z } from 'zod';
import { READ_EXTERNAL, fetchableUrl, product } from '../../kit/index.ts';
import { decisionOutput, decisionPacket } from './run.ts';

export const purchaseWebsiteDecisionPacket = product({
  id: 'purchase-website-decision-packet',
  title: 'Website decision packet',
  description:
    'Returns a decision packet on one website for an agent deciding whether to buy from or rely on it: what it offers (from its page), payment signals (x402 catalogue, OpenAPI, a paid route answering 402, readiness score), trust signals (HTTPS, canonical, privacy/terms/contact/about/pricing links) and the evidence URL behind each. Charged when the page is extracted; a refused, unresolvable or missing page (422) or a failing or unreachable site (502/504) is not charged.',
  http: false,
  price: '0.05',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: fetchableUrl().describe('Home page or any page of the website (http or https)'),
  }),
  inputExample: { url: 'https://example.com/' },
  output: decisionOutput,
  outputExample: {
    site: 'https://example.com',
    offer: { title: 'Example Domain', description: '', summary: 'This domain is for use in illustrative examples in documents.', source: 'https://example.com/' },
    payment_signals: { x402_catalogue: false, openapi: false, paid_route_challenge: false, readiness_score: 0, missing: ['x402.json'] },
    trust_signals: { https: true, canonical: null, privacy_policy: null, terms: null, contact: null, about: null, pricing: null },
    evidence: [{ claim: 'agent readiness score 0/100', source: 'https://example.com' }],
    fixes: ['publish every paid route with method, path, price, networks and payTo'],
    decided_at: '2025-06-01T12:00:00.000Z',
  },
  publishOutputSchema: false,
  run: decisionPacket,
});
