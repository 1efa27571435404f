/**
 * x402_endpoint_verify (is this URL's 402 a correct x402 challenge?) and agent_readiness_audit
 * (can an agent discover and pay this service?). Both only read, through the safe fetcher.
 *
 * Charging: both judge what the target answers, so both are charged once it answered over HTTP,
 * whatever the status (a 500 is judged like any other answer). A target that is malformed, refused
 * by the address policy or whose name does not resolve is the caller's input: 422 (field `url`),
 * not charged. A target that resolves but gives no HTTP answer at all (connection refused or reset,
 * timeout) leaves nothing to judge: 502, or 504 on a timeout, not charged. For the audit this is
 * about the service's origin; a single document or listed route that fails once the origin has
 * answered is a finding of the audit.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import type { ProductContext } from '../catalogue/types.ts';
import { SafeFetchError, type SafeResponse } from '../providers/safe-fetch.ts';
import { fetchFailure, isCallerTarget } from './web-extract.ts';

export interface Finding {
  severity: 'error' | 'warning' | 'info';
  check: string;
  message: string;
  fix?: string;
}

export interface EndpointVerification {
  url: string;
  status: number;
  x402_version: number | null;
  valid: boolean;
  accepts: { scheme: string; network: string; amount: string; asset: string; pay_to: string }[];
  bazaar: boolean;
  findings: Finding[];
  checked_at: string;
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

export async function verifyX402Endpoint(input: { url: string; method?: 'GET' | 'POST' }, ctx: ProductContext): Promise<EndpointVerification> {
  const response = await probe(input.url, input.method ?? 'GET', ctx);
  return { url: response.url, ...judgeChallenge(response), checked_at: ctx.now.toISOString() };
}

/** The one probe of verify: any HTTP answer is judged; no answer is a problem (see the charging note above). */
async function probe(url: string, method: string, ctx: ProductContext): Promise<SafeResponse> {
  try {
    return await ctx.fetch(url, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
  } catch (error) {
    if (error instanceof SafeFetchError) throw fetchFailure(error);
    throw error;
  }
}

function judgeChallenge(response: SafeResponse): Omit<EndpointVerification, 'url' | 'checked_at'> {
  const findings: Finding[] = [];
  const add = (severity: Finding['severity'], check: string, message: string, fix?: string) => findings.push({ severity, check, message, ...(fix ? { fix } : {}) });
  let required: PaymentRequired | undefined;
  let version: number | null = null;
  if (response.status !== 402) add('error', 'status', `answered ${response.status}, not 402, without payment`, 'answer unpaid requests with 402 and the payment requirements');
  const header = response.headers['payment-required'];
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (header) {
    try {
      required = decodePaymentRequiredHeader(header);
      version = required.x402Version;
    } catch {
      add('error', 'payment-required-header', 'PAYMENT-REQUIRED is not base64 JSON', 'send base64(JSON.stringify(PaymentRequired))');
    }
    if (required && JSON.stringify(body) !== JSON.stringify(required)) add('warning', 'body', 'the JSON body differs from the PAYMENT-REQUIRED header', 'send the same PaymentRequired object as the body');
  } else if (body && typeof body === 'object' && (body as { x402Version?: unknown }).x402Version === 1) {
    version = 1;
    required = body as PaymentRequired;
    add('info', 'version', 'x402 v1 challenge (JSON body, no PAYMENT-REQUIRED header)', 'x402 v2 adds the PAYMENT-REQUIRED header');
  } else if (response.status === 402) {
    add('error', 'payment-required-header', 'no PAYMENT-REQUIRED header and no x402 body', 'add the x402 v2 PAYMENT-REQUIRED header');
  }
  const accepts: EndpointVerification['accepts'] = [];
  if (required) {
    if (version !== 1 && version !== 2) add('error', 'version', `unknown x402Version ${String(version)}`);
    if (version === 2 && !required.resource?.url) add('error', 'resource', 'resource.url is missing');
    if (!Array.isArray(required.accepts) || required.accepts.length === 0) add('error', 'accepts', 'accepts is empty', 'offer at least one payment option');
    for (const [i, a] of (required.accepts ?? []).entries()) {
      const amount = String((a as { amount?: unknown; maxAmountRequired?: unknown }).amount ?? (a as { maxAmountRequired?: unknown }).maxAmountRequired ?? '');
      const payTo = String(a.payTo ?? '');
      accepts.push({ scheme: String(a.scheme ?? ''), network: String(a.network ?? ''), amount, asset: String(a.asset ?? ''), pay_to: payTo });
      if (!a.scheme) add('error', `accepts.${i}.scheme`, 'scheme is missing');
      if (version === 2 && !CAIP2.test(String(a.network))) add('error', `accepts.${i}.network`, `network ${String(a.network)} is not a CAIP-2 id`, 'use e.g. eip155:8453');
      if (!/^[1-9][0-9]*$/.test(amount)) add('error', `accepts.${i}.amount`, `amount ${amount} is not a positive integer of atomic units`);
      if (!a.asset) add('error', `accepts.${i}.asset`, 'asset is missing');
      if (!payTo) add('error', `accepts.${i}.payTo`, 'payTo is missing');
      if (!(Number(a.maxTimeoutSeconds) > 0)) add('warning', `accepts.${i}.maxTimeoutSeconds`, 'maxTimeoutSeconds is missing or not positive');
      if (String(a.network).startsWith('eip155:') && a.scheme === 'exact' && !(a.extra as { name?: unknown } | undefined)?.name) {
        add('warning', `accepts.${i}.extra`, 'extra.name/version (the token EIP-712 domain) are missing', 'clients need them to sign EIP-3009');
      }
    }
  }
  const bazaarBlock = (required?.extensions as Record<string, unknown> | undefined)?.bazaar;
  const bazaar = bazaarBlock !== undefined && validateDiscoveryExtension(bazaarBlock as never).valid;
  if (required && !bazaar) add('warning', 'bazaar', bazaarBlock ? 'extensions.bazaar is not valid' : 'no extensions.bazaar discovery block', 'declare the input schema and an output example for discovery');
  if (response.status === 402 && !/no-store/.test(response.headers['cache-control'] ?? '')) add('warning', 'cache-control', 'the 402 may be cached', 'send Cache-Control: no-store');
  return { status: response.status, x402_version: version, valid: !findings.some((f) => f.severity === 'error'), accepts, bazaar, findings };
}

export interface ReadinessAudit {
  url: string;
  score: number;
  missing: string[];
  findings: Finding[];
  fixes: string[];
  /** Each document fetched: its HTTP status, or null and `error` (the fetcher's code) when it got no answer. */
  documents: Record<string, { url: string; status: number | null; error?: string }>;
  audited_at: string;
}

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
