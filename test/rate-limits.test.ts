import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevChain } from '../src/devchain/stack.ts';
import { DEFAULT_RATE_LIMITS, parseRateLimits } from '../src/http/rate-limit.ts';
import type { RunningService } from '../src/runtime.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { startTestChain, startTestService } from './helpers/service.ts';
import { TEST_PRODUCTS } from './helpers/products.ts';

/** The default limits (the test helper relaxes them elsewhere): as a stranger would meet them. */
let chain: DevChain;
let a: RunningService;
let b: RunningService;
let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  chain = await startTestChain();
  db = await freshDatabase();
  const env = { RATE_LIMITS: 'proof=20/m', ...(db ? { DATABASE_URL: db.url } : {}) };
  a = await startTestService({ chain, env, products: TEST_PRODUCTS });
  b = db ? await startTestService({ chain, env, products: TEST_PRODUCTS }) : a;
});
afterAll(async () => {
  if (b !== a) await b?.stop();
  await a?.stop();
  await chain?.stop();
  await db?.drop();
});

const register = (s: RunningService) => fetch(`${s.url}/agent/identity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'anonymous' }) });

describe('free routes that create state are rate-limited per client, across instances', () => {
  it('registration flooding: the 11th registration within the hour (on either instance) gets 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await register(i % 2 ? b : a)).status);
    expect(statuses.slice(0, DEFAULT_RATE_LIMITS.registration.limit).every((s) => s === 201)).toBe(true);
    expect(statuses.slice(DEFAULT_RATE_LIMITS.registration.limit).every((s) => s === 429)).toBe(true);
    const limited = await register(a);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(((await limited.json()) as { code?: string; type: string }).type).toContain('rate-limited');
  });

  it('token requests are limited per client too', async () => {
    const token = () => fetch(`${a.url}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=x&assertion=y' });
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_RATE_LIMITS.token.limit + 5; i++) statuses.push((await token()).status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(DEFAULT_RATE_LIMITS.token.limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it('proof requests: past the limit 429 instead of a new PROOF-REQUEST', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      statuses.push((await fetch(`${a.url}/api/v1/paid/test-proof`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ urls: ['https://example.com/'] }) })).status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe('RATE_LIMITS', () => {
  it('parses per-bucket counts and windows and keeps the defaults of buckets not named', () => {
    expect(parseRateLimits('registration=5/d, token=10/s')).toEqual({ ...DEFAULT_RATE_LIMITS, registration: { limit: 5, windowSeconds: 86_400 }, token: { limit: 10, windowSeconds: 1 } });
    expect(() => parseRateLimits('everything=1/m')).toThrow(/RATE_LIMITS/);
  });
});
