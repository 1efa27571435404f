/**
 * Purchase-decision products built on extraction:
 * - purchase_web_extraction_sample: one HTTPS page as a sample of web_extract: title, description,
 *   metadata, the first 1,500 characters of the main text and the link count.
 * - purchase_website_decision_packet: what an agent needs to decide whether to buy from a site: what
 *   it offers (from its page), its payment signals (x402 catalogue, OpenAPI, a paid route's
 *   challenge), trust signals (HTTPS, policy and contact links, readiness score) and, for each
 *   signal, the evidence URL it came from.
 * Both are charged only once the page is extracted (fetchPage draws the line: the caller's target
 * 422, a failing site 502/504); the packet's audit of the site then only adds findings, unless the
 * site answers none of its requests (502/504, see x402-audit.ts).
 */
import type { ProductContext } from '../catalogue/types.ts';
import { extractPage, fetchPage } from './web-extract.ts';
import { auditAgentReadiness } from './x402-audit.ts';

const SAMPLE_CHARS = 1500;

export async function extractionSample(input: { url: string }, ctx: ProductContext) {
  const page = extractPage(await fetchPage(input.url, ctx), ctx.now);
  return {
    url: page.url,
    title: page.title,
    description: page.description,
    content_sample: page.content.slice(0, SAMPLE_CHARS),
    content_length: page.content.length,
    truncated: page.content.length > SAMPLE_CHARS,
    link_count: page.links.length,
    metadata: page.metadata,
    full_extraction: { tool: 'web_extract', route: 'POST /api/v1/paid/web-extract' },
    extracted_at: page.extracted_at,
  };
}

const POLICY_LINKS: [signal: string, pattern: RegExp][] = [
  ['privacy_policy', /privacy/i],
  ['terms', /terms|conditions|legal/i],
  ['contact', /contact|support|help/i],
  ['about', /about|company|team/i],
  ['pricing', /pricing|prices|plans/i],
];

export async function decisionPacket(input: { url: string }, ctx: ProductContext) {
  const page = extractPage(await fetchPage(input.url, ctx), ctx.now);
  const audit = await auditAgentReadiness({ url: page.url }, ctx);
  const evidence: { claim: string; source: string }[] = [];
  const x402 = audit.documents.x402;
  const paidRoute = audit.documents['paid-route'];
  const links = Object.fromEntries(
    POLICY_LINKS.map(([signal, pattern]) => {
      const link = page.links.find((l) => pattern.test(new URL(l).pathname));
      if (link) evidence.push({ claim: `${signal.replace('_', ' ')} page linked`, source: link });
      return [signal, link ?? null];
    }),
  );
  if (x402?.status === 200) evidence.push({ claim: 'publishes an x402 payment catalogue', source: x402.url });
  if (paidRoute?.status === 402) evidence.push({ claim: 'a listed paid route answers 402 with payment terms', source: paidRoute.url });
  evidence.push({ claim: `agent readiness score ${audit.score}/100`, source: audit.url });
  return {
    site: new URL(page.url).origin,
    offer: { title: page.title, description: page.description, summary: page.content.slice(0, 600), source: page.url },
    payment_signals: {
      x402_catalogue: x402?.status === 200,
      openapi: audit.documents.openapi?.status === 200,
      paid_route_challenge: paidRoute?.status === 402,
      readiness_score: audit.score,
      missing: audit.missing,
    },
    trust_signals: {
      https: page.url.startsWith('https://'),
      canonical: page.metadata.canonical ?? null,
      ...links,
    },
    evidence,
    fixes: audit.fixes,
    decided_at: ctx.now.toISOString(),
  };
}
