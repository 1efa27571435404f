/**
 * One operator-configured data provider reached over HTTP (GLEIF, CoinGecko, a search API…): its base
 * URL, credentials (headers, never logged nor shown), a time limit per request, a request budget per
 * minute and a short-lived cache of identical requests, with counters for /metrics.
 *
 * Every failure becomes the kit's UpstreamError with a sentence of our own: a provider's error text
 * can echo a key or a query and is never passed on. The caller is not charged for any of them.
 */
import { readTextLimited } from '../../read-limited.ts';
import { UpstreamError } from '../../products/kit/errors.ts';
import { MinuteBudget } from './budget.ts';
import { TtlCache } from './cache.ts';

export interface ProviderSettings {
  baseUrl: string;
  /** Sent with every request (credentials, a contact User-Agent); never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
  budgetPerMinute: number;
  /** How long an identical request is answered from the cache (0: not cached). */
  cacheTtlMs: number;
  /** Query parameters sent with every request (a key some providers take in the URL); never logged. */
  query?: Record<string, string>;
  /** Other base URLs of the same provider by name (SEC serves from two hosts), chosen per request; one budget, cache and counters. */
  origins?: Record<string, string>;
  /** At most this many requests in a burst (a provider limiting requests per second); default a minute's worth. */
  burst?: number;
  /** The largest answer read, in bytes; default 4 MiB. */
  maxAnswerBytes?: number;
}

export interface ProviderRequest {
  method?: 'GET' | 'POST';
  /** Appended to the base URL. */
  path: string;
  /** One of the settings' `origins` instead of the base URL. */
  origin?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (POST). */
  body?: unknown;
  /** Statuses the adapter reads itself (e.g. 404 for "no such record") instead of failing. */
  accept?: readonly number[];
  /** This request's cache lifetime, when it differs from the provider's. */
  cacheTtlMs?: number;
  /** An in-band failure in a 200 answer (a rate-limit note): the error to throw; such an answer is never cached. */
  refusal?(body: unknown): Error | undefined;
}

export interface ProviderAnswer {
  status: number;
  body: unknown;
}

export type FailureReason = 'budget' | 'timeout' | 'unreachable' | 'rate_limited' | 'credentials' | 'http_error' | 'invalid_response';

export interface ProviderStats {
  provider: string;
  requests: number;
  cacheHits: number;
  cacheEntries: number;
  budgetPerMinute: number;
  failures: Record<FailureReason, number>;
}

/** A provider answer larger than this is not one we sell for cents. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export class ProviderClient {
  private readonly budget: MinuteBudget;
  private readonly cache: TtlCache<ProviderAnswer>;
  private readonly counts = { requests: 0, cacheHits: 0 };
  private readonly failures: Record<FailureReason, number> = { budget: 0, timeout: 0, unreachable: 0, rate_limited: 0, credentials: 0, http_error: 0, invalid_response: 0 };

  constructor(
    /** Short id, the metrics label: `gleif`, `coingecko`… */
    readonly id: string,
    /** As the provider is named in messages. */
    readonly name: string,
    private readonly settings: ProviderSettings,
    now: () => number = Date.now,
    /** Tests answer in process with a provider double; the service uses the platform's fetch. */
    private readonly fetcher: typeof fetch = fetch,
  ) {
    this.budget = new MinuteBudget(settings.budgetPerMinute, now, settings.burst);
    this.cache = new TtlCache(settings.cacheTtlMs, 1_000, now);
  }

  /** The request's JSON answer, from the cache when an identical one was answered within its TTL. */
  async request(request: ProviderRequest, signal?: AbortSignal): Promise<ProviderAnswer> {
    const url = this.url(request);
    const key = `${request.method ?? 'GET'} ${url} ${request.body === undefined ? '' : JSON.stringify(request.body)}`;
    const { value, hit } = await this.cache.get(key, () => this.send(url, request, signal), request.cacheTtlMs ?? this.settings.cacheTtlMs);
    if (hit) this.counts.cacheHits++;
    return value;
  }

  stats(): ProviderStats {
    return { provider: this.id, ...this.counts, cacheEntries: this.cache.size, budgetPerMinute: this.settings.budgetPerMinute, failures: { ...this.failures } };
  }

  /** The request's URL without the configured query parameters (a key some providers take in the URL): what a citation may show. */
  citedUrl(request: ProviderRequest): string {
    return this.url(request, false);
  }

  private url(request: ProviderRequest, withCredentials = true): string {
    const base = request.origin === undefined ? this.settings.baseUrl : this.settings.origins?.[request.origin];
    if (base === undefined) throw new Error(`${this.name}: no origin ${request.origin} is configured`);
    const url = new URL(base.replace(/\/$/, '') + request.path);
    for (const [name, value] of Object.entries({ ...request.query, ...(withCredentials ? this.settings.query : {}) })) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private fail(reason: FailureReason, message: string, status: 502 | 503 | 504 = 502): UpstreamError {
    this.failures[reason]++;
    return new UpstreamError(`${this.name}: ${message}`, status);
  }

  private async send(url: string, request: ProviderRequest, signal?: AbortSignal): Promise<ProviderAnswer> {
    if (!this.budget.take()) throw this.fail('budget', `this instance's request budget for ${this.name} is spent for now (about ${this.budget.retryAfterSeconds()} s)`, 503);
    this.counts.requests++;
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    let response: Response;
    try {
      response = await this.fetcher(url, {
        method: request.method ?? 'GET',
        headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...this.settings.headers },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: 'error',
      });
    } catch {
      if (timeout.aborted) throw this.fail('timeout', `no answer within ${this.settings.timeoutMs} ms`, 504);
      throw this.fail('unreachable', 'could not be reached');
    }
    const accepted = response.ok || (request.accept ?? []).includes(response.status);
    if (!accepted) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 429) throw this.fail('rate_limited', 'is rate-limiting this instance for now', 503);
      if (response.status === 401 || response.status === 403) throw this.fail('credentials', `refused this instance's credentials (HTTP ${response.status})`);
      throw this.fail('http_error', `answered HTTP ${response.status}`);
    }
    let text: string | undefined;
    try {
      text = await readTextLimited(response.body, this.settings.maxAnswerBytes ?? MAX_ANSWER_BYTES);
    } catch {
      if (timeout.aborted) throw this.fail('timeout', `no complete answer within ${this.settings.timeoutMs} ms`, 504);
      throw this.fail('unreachable', 'broke off its answer');
    }
    if (text === undefined) throw this.fail('invalid_response', 'answered with more than we read');
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // An accepted error status (a 404 "no such record") may come as an HTML or XML page.
      if (response.ok) throw this.fail('invalid_response', 'answered with something other than JSON');
      body = null;
    }
    const refusal = request.refusal?.(body);
    if (refusal) throw refusal;
    return { status: response.status, body };
  }

  /** Counts an answer the adapter found unusable (a shape it does not know). */
  invalid(message: string): UpstreamError {
    return this.fail('invalid_response', message);
  }

  /** Counts a provider's in-band rate-limit answer (some answer HTTP 200 with a note). */
  rateLimited(): UpstreamError {
    return this.fail('rate_limited', 'is rate-limiting this instance for now', 503);
  }
}
