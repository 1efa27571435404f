/**
 * agent_readiness_audit: can an agent discover and pay this service? Only reads, through the safe
 * fetcher. Charged once the service's origin answered over HTTP, whatever the status; a single
 * document or listed route that fails after that is a finding. A target that is malformed, refused
 * or unresolvable is the caller's input (422, field `url`); an origin that gives no HTTP answer at
 * all leaves nothing to audit (502, or 504 on a timeout). Neither is charged.
 */
import { z } from 'zod';
import { fetchFailure, isCallerTarget, type ProductContext } from '../../kit/index.ts';
import { SafeFetchError, type SafeResponse } from '../../../providers/safe-fetch.ts';
import { finding, judgeChallenge, type Finding } from '../../payments/x402-endpoint-verify/judge.ts';

export const readinessAudit = z.object({
  url: z.string().describe('The audited origin'),
  score: z.int().min(0).max(100),
  missing: z.array(z.string()).describe('Checks that failed'),
  findings: z.array(finding),
  fixes: z.array(z.string()),
  documents: z
    .record(z.string(), z.object({ url: z.string(), status: z.int().nullable(), error: z.string().optional() }))
    .describe("Each document fetched: its HTTP status, or null and `error` (the fetcher's code) when it got no answer"),
  audited_at: z.iso.datetime(),
});
export type ReadinessAudit = z.infer<typeof readinessAudit>;

/**
 * Scores 0-100 how ready a service is for paying agents: discovery documents present and well
 * formed (x402.json 25, openapi.json 25, llms.txt 15, agent card 15, OAuth metadata 10) and a
 * listed paid route answering a valid x402 challenge (10).
 */
export async function auditAgentReadiness(input: { url: string }, ctx: ProductContext): Promise<ReadinessAudit> {
  const base = new URL(input.url);
  const origin = base.origin;
  const findings: Finding[] = [];
  const documents: ReadinessAudit['documents'] = {};
  let score = 0;
  const miss = (check: string, message: string, fix: string) => findings.push({ severity: 'error', check, message, fix });
  let originAnswered = false;
  const grab = async (name: string, path: string) => {
    const url = `${origin}${path}`;
    try {
      const response = await ctx.fetch(url, { headers: { accept: 'application/json, text/plain, */*' } });
      documents[name] = { url, status: response.status };
      originAnswered = true;
      return response.status === 200 ? response : undefined;
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      documents[name] = { url, status: null, error: error.code };
      // Nothing answered yet: is the origin itself there? If not, there is nothing to audit.
      if (!originAnswered) await requireOrigin(origin, ctx);
      originAnswered = true;
      return undefined;
    }
  };
  /** Why a document is missing: not served (its status), or no answer (the fetcher's code). */
  const absent = (name: string, what: string) => {
    const document = documents[name];
    return document?.status === null ? `${what} could not be fetched (${document.error})` : `no ${what}`;
  };
  const json = (response: SafeResponse | undefined): Record<string, any> | undefined => {
    try {
      return response ? (JSON.parse(response.body.toString('utf8')) as Record<string, any>) : undefined;
    } catch {
      return undefined;
    }
  };

  const x402 = json(await grab('x402', '/.well-known/x402.json'));
  const resources: { url?: string; path?: string; method?: string; price?: unknown; networks?: unknown; payTo?: unknown }[] = Array.isArray(x402?.resources) ? x402.resources : [];
  if (!x402) miss('x402.json', absent('x402', '/.well-known/x402.json payment catalogue'), 'publish every paid route with method, path, price, networks and payTo');
  else {
    score += 10;
    if (resources.length > 0) score += 10;
    else miss('x402.resources', 'x402.json lists no resources', 'list the paid routes under resources');
    if (resources.length > 0 && resources.every((r) => r.path && r.price !== undefined && Array.isArray(r.networks) && r.payTo)) score += 5;
    else if (resources.length > 0) miss('x402.resource-fields', 'some x402.json resources lack path, price, networks or payTo', 'give every resource its path, price, networks and payTo');
  }

  const openapi = json(await grab('openapi', '/openapi.json'));
  if (!openapi) miss('openapi', absent('openapi', '/openapi.json'), 'publish an OpenAPI 3.1 document of the paid routes');
  else {
    score += 10;
    if (typeof openapi.openapi === 'string' && openapi.openapi.startsWith('3.')) score += 5;
    else miss('openapi.version', 'openapi.json is not OpenAPI 3.x', 'declare "openapi": "3.1.0"');
    const operations = Object.values((openapi.paths ?? {}) as Record<string, Record<string, any>>).flatMap((item) => Object.values(item ?? {}));
    if (operations.length > 0) score += 5;
    else miss('openapi.paths', 'openapi.json has no operations', 'describe every paid route');
    if (operations.some((op) => op?.['x-payment-info'] || op?.responses?.['402'])) score += 5;
    else miss('openapi.payment', 'no operation documents its payment (x-payment-info or a 402 response)', 'add a 402 response and x-payment-info to paid operations');
  }

  const llms = await grab('llms', '/llms.txt');
  if (!llms) miss('llms.txt', absent('llms', '/llms.txt'), 'publish a Markdown summary for language models');
  else {
    score += 10;
    if (/^#\s+\S/m.test(llms.body.toString('utf8'))) score += 5;
    else miss('llms.heading', 'llms.txt has no Markdown title', 'start llms.txt with "# <service name>"');
  }

  const card = json(await grab('agent-card', '/.well-known/agent-card.json')) ?? json(await grab('agent.json', '/.well-known/agent.json'));
  if (!card) miss('agent-card', 'no agent card at /.well-known/agent-card.json or /.well-known/agent.json', 'publish an A2A agent card');
  else {
    score += 10;
    if (card.name && Array.isArray(card.skills) && card.skills.length > 0) score += 5;
    else miss('agent-card.fields', 'the agent card lacks name or skills', 'name the service and list its skills');
  }

  const authServer = json(await grab('oauth-authorization-server', '/.well-known/oauth-authorization-server'));
  if (authServer?.issuer && authServer?.token_endpoint) score += 5;
  else miss('oauth-authorization-server', 'no RFC 8414 authorization-server metadata with issuer and token_endpoint', 'publish /.well-known/oauth-authorization-server');
  const resource = json(await grab('oauth-protected-resource', '/.well-known/oauth-protected-resource'));
  if (resource?.resource) score += 5;
  else miss('oauth-protected-resource', 'no RFC 9728 protected-resource metadata', 'publish /.well-known/oauth-protected-resource');

  const sample = resources.find((r) => r.url || r.path);
  if (sample) {
    const target = sample.url ?? `${origin}${sample.path}`;
    try {
      const verdict = judgeChallenge(await ctx.fetch(target, { method: sample.method === 'POST' ? 'POST' : 'GET', ...(sample.method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) }));
      documents['paid-route'] = { url: target, status: verdict.status };
      if (verdict.valid) score += 10;
      else findings.push(...verdict.findings.filter((f) => f.severity === 'error').map((f) => ({ ...f, check: `paid-route.${f.check}` })));
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      miss('paid-route', `the listed route ${target} could not be probed: ${error.message}`, 'make the listed paid routes reachable');
    }
  } else {
    miss('paid-route', 'no paid route to probe', 'list a paid route in x402.json');
  }

  return {
    url: origin,
    score,
    missing: findings.filter((f) => f.severity === 'error').map((f) => f.check),
    findings,
    fixes: findings.flatMap((f) => (f.fix ? [f.fix] : [])),
    documents,
    audited_at: ctx.now.toISOString(),
  };
}

/**
 * Whether the audited origin answers at all: one request to its root, redirects not followed, so
 * any HTTP answer counts. No answer ends the audit uncharged: a malformed, refused or unresolvable
 * origin is the caller's input (422), a refused connection or a timeout the service's (502/504).
 */
async function requireOrigin(origin: string, ctx: ProductContext): Promise<void> {
  try {
    await ctx.fetch(`${origin}/`, { followRedirects: false });
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    if (error.code === 'too_large') return; // it answered, at length
    if (isCallerTarget(error)) throw fetchFailure(error);
    throw fetchFailure(error.code === 'timeout' ? error : new SafeFetchError('network_error', `the service at ${origin} did not answer: ${error.message}`));
  }
}
