import type { Context, MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import { describeError, type Logger } from '../log.ts';
import { StoreUnavailableError } from '../store/sql-store.ts';
import type { Store } from '../store/types.ts';
import { clientIp } from '../telemetry/geo.ts';
import { problemResponse, problems, type Problem } from './problem.ts';

/**
 * Free routes that create state, each with its own budget per client:
 * - `registration`: anonymous identity registrations (kept 200 days each);
 * - `token`: OAuth token exchanges and revocations;
 * - `proof`: PROOF-REQUEST documents issued by proof-gated routes;
 * - `free`: free-tier calls and free doors.
 */
export type RateLimitBucket = 'registration' | 'token' | 'proof' | 'free';

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export type RateLimits = Record<RateLimitBucket, RateLimitRule>;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  registration: { limit: 10, windowSeconds: 3600 },
  token: { limit: 60, windowSeconds: 60 },
  proof: { limit: 30, windowSeconds: 60 },
  free: { limit: 30, windowSeconds: 60 },
};

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * `RATE_LIMITS`, e.g. `registration=10/h,token=60/m`: per bucket, requests per window (s, m, h or d)
 * per client. Buckets not named keep their defaults.
 */
export function parseRateLimits(text: string | undefined): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const part of (text ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(registration|token|proof|free)=(\d+)\/(s|m|h|d)$/.exec(part);
    if (!match) throw new Error(`RATE_LIMITS: "${part}" is not <bucket>=<count>/<s|m|h|d> with bucket registration, token, proof or free`);
    limits[match[1] as RateLimitBucket] = { limit: Number(match[2]), windowSeconds: UNIT_SECONDS[match[3]!]! };
  }
  return limits;
}

/**
 * Whom a limit counts: the client's IPv4 address, or its IPv6 /64 (one subscriber's usual
 * allocation, so rotating addresses inside it does not reset the count). From the socket, or from
 * TRUSTED_PROXY_HEADER when the operator's proxy sets it.
 */
export function clientKey(c: Context, trustedHeader: string | undefined): string {
  const ip = clientIp(c, trustedHeader);
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * Per-client fixed-window limits, counted in the shared store so every instance sees the same
 * count. Over the limit: `429` problem+json with `Retry-After`. If the store cannot be reached the
 * request goes on: the route then answers 503 itself if it needs the store, and creates nothing.
 */
export class RateLimiter {
  constructor(
    private readonly store: Store,
    private readonly limits: RateLimits,
    private readonly trustedHeader: string | undefined,
    private readonly log: Logger,
  ) {}

  /** Counts one request of `client`; the 429 to answer when it is over the bucket's limit. */
  async take(bucket: RateLimitBucket, client: string): Promise<Response | undefined> {
    const limited = await this.check(bucket, client);
    return limited && problemResponse(limited.problem, { 'retry-after': String(limited.retryAfter) });
  }

  /** The same, as data for any door: the problem and the seconds until the window resets. */
  async check(bucket: RateLimitBucket, client: string): Promise<{ problem: Problem; retryAfter: number } | undefined> {
    const rule = this.limits[bucket];
    let hit: { hits: number; resetAt: Date };
    try {
      hit = await this.store.hitRateLimit(bucket, client, rule.windowSeconds);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.log.warn({ err: describeError(error), bucket }, 'rate limit not counted: store unavailable');
      return undefined;
    }
    if (hit.hits <= rule.limit) return undefined;
    const retryAfter = Math.max(1, Math.ceil((hit.resetAt.getTime() - Date.now()) / 1000));
    return { problem: problems.rateLimited(bucket, rule.limit, rule.windowSeconds), retryAfter };
  }

  /** The same as middleware for a route. */
  guard(bucket: RateLimitBucket): MiddlewareHandler {
    return async (c, next) => (await this.take(bucket, this.client(c))) ?? next();
  }

  client(c: Context): string {
    return clientKey(c, this.trustedHeader);
  }
}
