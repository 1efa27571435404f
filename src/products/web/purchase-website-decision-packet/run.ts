/**
 * purchase_website_decision_packet: what an agent needs to decide whether to buy from a site: what
 * it offers (from its page), its payment signals (x402 catalogue, OpenAPI, a paid route's
 * challenge), trust signals (HTTPS, policy and contact links, readiness score) and, for each
 * signal, the evidence URL it came from. Charged only once the page is extracted (fetchPage draws
 * the line: the caller's target 422, a failing site 502/504); the audit of the site then only adds
 * findings, unless the site answers none of its requests (502/504, see agent-readiness-audit).
 */
import { z } from 'zod';
import { fetchPage, type ProductContext } from '../../kit/index.ts';
import { auditAgentReadiness } from '../../agent/agent-readiness-audit/run.ts';
import { extractPage } from '../web-extract/extract.ts';

const POLICY_LINKS = [
  ['privacy_policy', /privacy/i],
  ['terms', /terms|conditions|legal/i],
  ['contact', /contact|support|help/i],
  ['about', /about|company|team/i],
  ['pricing', /pricing|prices|plans/i],
] as const satisfies readonly (readonly [signal: string, pattern: RegExp])[];
type PolicySignal = (typeof POLICY_LINKS)[number][0];

const link = z.string().nullable();
export const decisionOutput = z.object({
  site: z.string().describe('The site origin'),
  offer: z.object({ title: z.string(), description: z.string(), summary: z.string(), source: z.string() }),
  payment_signals: z.object({
    x402_catalogue: z.boolean(),
    openapi: z.boolean(),
    paid_route_challenge: z.boolean(),
    readiness_score: z.int(),
    missing: z.array(z.string()),
  }),
  trust_signals: z.object({
    https: z.boolean(),
    canonical: link,
    privacy_policy: link,
    terms: link,
    contact: link,
    about: link,
    pricing: link,
  }),
  evidence: z.array(z.object({ claim: z.string(), source: z.string() })).describe('The evidence URL behind each signal'),
  fixes: z.array(z.string()),
  decided_at: z.iso.datetime(),
});

export async function decisionPacket(input: { url: string }, ctx: ProductContext): Promise<z.infer<typeof decisionOutput>> {
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
  ) as Record<PolicySignal, string | null>;
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
