/**
 * A product context for unit tests: a pinned clock, no network unless a test gives one, no browser
 * or LLM unless given. Products reach the outside only through their context, so a product's logic
 * is tested here without a chain, a store or a payment.
 */
import { DEFAULT_POLICY, SafeFetchError, safeFetch, type FetchPolicy, type SafeRequest, type SafeResponse } from '../../providers/safe-fetch.ts';
import type { ProductContext } from './types.ts';

/** The clock of every fake context unless a test sets `now`. */
export const FAKE_NOW = new Date('2025-06-01T12:00:00.000Z');

/**
 * A context with `overrides` applied. Its default `fetch` throws a plain error (not a
 * SafeFetchError): a product that fetches must have its fetch stubbed, or the test fails loudly.
 */
export function fakeContext(overrides: Partial<ProductContext> = {}): ProductContext {
  return {
    now: FAKE_NOW,
    signal: new AbortController().signal,
    tier: 'paid',
    catalogue: [],
    fetch: (url) => Promise.reject(new Error(`fakeContext: ctx.fetch(${url}) was called, but this test gave no fetch`)),
    ...overrides,
  };
}

/** A response as the safe fetcher returns it; `url` (the final URL) is the requested one unless set. */
export type StubResponse = Omit<SafeResponse, 'url'> & { url?: string };

export function response(body: string | object, init: { url?: string; status?: number; contentType?: string; headers?: Record<string, string> } = {}): StubResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = init.contentType ?? (typeof body === 'string' ? 'text/html' : 'application/json');
  return {
    ...(init.url ? { url: init.url } : {}),
    status: init.status ?? 200,
    headers: { 'content-type': contentType, ...init.headers },
    contentType,
    body: Buffer.from(text, 'utf8'),
    latencyMs: 1,
    redirects: 0,
  };
}

type Answer = StubResponse | SafeFetchError | ((request: SafeRequest) => StubResponse | SafeFetchError);

/**
 * A fetch answering from a table keyed by URL (each response's `url` defaults to its key); any
 * other URL is refused as unresolvable, as the safe fetcher refuses a name that does not resolve.
 * `requests` records every call, for tests that check what was sent.
 */
export function stubFetch(answers: Record<string, Answer>): ProductContext['fetch'] & { requests: { url: string; request: SafeRequest }[] } {
  const requests: { url: string; request: SafeRequest }[] = [];
  const fetch = async (url: string, request: SafeRequest = {}) => {
    requests.push({ url, request });
    const entry = answers[url];
    const answer = typeof entry === 'function' ? entry(request) : entry;
    if (answer === undefined) throw new SafeFetchError('unresolvable_host', `stubFetch: ${url} does not resolve`);
    if (answer instanceof SafeFetchError) throw answer;
    return { ...answer, url: answer.url ?? url };
  };
  return Object.assign(fetch, { requests });
}

/** The real safe fetcher with loopback allowed, for tests that serve pages on 127.0.0.1. */
export function loopbackFetch(policy: Partial<FetchPolicy> = {}): ProductContext['fetch'] {
  const effective: FetchPolicy = { ...DEFAULT_POLICY, allowLoopback: true, timeoutMs: 2_000, ...policy };
  return (url, request) => safeFetch(url, request, effective);
}
