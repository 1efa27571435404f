import { describe, expect, it } from 'vitest';
import { ProviderClient, type ProviderSettings } from './client.ts';
import { dataProviderSettingsFromEnv } from './settings.ts';

const settings = (over: Partial<ProviderSettings> = {}): ProviderSettings => ({ baseUrl: 'http://provider.invalid/v1', headers: { 'x-api-key': 'k-secret' }, timeoutMs: 1_000, budgetPerMinute: 2, cacheTtlMs: 60_000, ...over });

describe('ProviderClient', () => {
  it('spends its budget per minute, refusing (503) before sending, and refills with the clock', async () => {
    let now = 0;
    let sent = 0;
    const client = new ProviderClient('p', 'P', settings({ cacheTtlMs: 0 }), () => now, async () => (sent++, Response.json({ ok: true })));
    await client.request({ path: '/a' });
    await client.request({ path: '/b' });
    await expect(client.request({ path: '/c' })).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    expect(sent).toBe(2);
    now += 30_000; // half a minute: one request's worth
    await client.request({ path: '/c' });
    expect(client.stats()).toMatchObject({ requests: 3, failures: { budget: 1 } });
  });

  it('answers identical requests from the cache until the TTL passes', async () => {
    let now = 0;
    const seen: string[] = [];
    const client = new ProviderClient('p', 'P', settings({ budgetPerMinute: 100 }), () => now, async (url) => (seen.push(String(url)), Response.json({ n: seen.length })));
    expect((await client.request({ path: '/x', query: { q: 'a b' } })).body).toEqual({ n: 1 });
    expect((await client.request({ path: '/x', query: { q: 'a b' } })).body).toEqual({ n: 1 });
    now += 61_000;
    expect((await client.request({ path: '/x', query: { q: 'a b' } })).body).toEqual({ n: 2 });
    expect(seen[0]).toBe('http://provider.invalid/v1/x?q=a+b');
    expect(client.stats()).toMatchObject({ requests: 2, cacheHits: 1 });
  });

  it('maps failures to problems of its own words: timeout 504, 429 503, 401 and 5xx 502, non-JSON 502', async () => {
    const hang = new ProviderClient('p', 'P', settings({ timeoutMs: 20 }), Date.now, (_url, init) => new Promise((_, reject) => init!.signal!.addEventListener('abort', () => reject(new Error('aborted')))));
    await expect(hang.request({ path: '/' })).rejects.toMatchObject({ status: 504 });
    for (const [status, expected] of [[429, 503], [401, 502], [500, 502]] as const) {
      const client = new ProviderClient('p', 'P', settings(), Date.now, async () => new Response('secret text k-secret', { status }));
      const error = await client.request({ path: '/' }).catch((e: Error) => e);
      expect(error).toMatchObject({ name: 'UpstreamError', status: expected });
      expect((error as Error).message).not.toContain('secret');
    }
    const html = new ProviderClient('p', 'P', settings(), Date.now, async () => new Response('<html>'));
    await expect(html.request({ path: '/' })).rejects.toMatchObject({ status: 502 });
  });

  it('settings: keyless GLEIF and CoinGecko by default, keyed providers only with their key, bad values named', () => {
    expect(Object.keys(dataProviderSettingsFromEnv({}))).toEqual(['gleif', 'coingecko']);
    expect(Object.keys(dataProviderSettingsFromEnv({ GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off' }))).toEqual([]);
    expect(dataProviderSettingsFromEnv({ COINGECKO_API_KEY: 'k', COINGECKO_API_PLAN: 'demo' }).coingecko).toMatchObject({ baseUrl: 'https://api.coingecko.com/api/v3', headers: { 'x-cg-demo-api-key': 'k' }, budgetPerMinute: 30 });
    expect(() => dataProviderSettingsFromEnv({ X_BEARER_TOKEN: 't', X_BUDGET_PER_MINUTE: 'lots' })).toThrow(/X_BUDGET_PER_MINUTE/);
  });
});
