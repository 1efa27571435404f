import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { DOUBLE_KEYS, providerDouble } from '../../../providers/provider-double.fixture.ts';
import { webSearch } from './index.ts';

const double = providerDouble();
const run = (input: Record<string, unknown>, env: Record<string, string> = {}) => webSearch.run(webSearch.input.parse(input), fakeContext({ data: double.providers(env) }));

describe('web-search', () => {
  it('answers its published example through Brave Search, asked in its documented form', async () => {
    const out = await run({ query: 'x402 payment protocol specification', limit: 1 });
    expect(out).toEqual(webSearch.outputExample);
    expect(double.requests.at(-1)).toMatchObject({ provider: 'brave', path: '/res/v1/web/search', query: { q: 'x402 payment protocol specification', count: '1' }, headers: { 'x-subscription-token': DOUBLE_KEYS.brave, accept: 'application/json' } });
  });

  it('normalises Brave\'s markup and page age', async () => {
    const out = await run({ query: 'x402', limit: 5 });
    expect(out.results.map((r) => r.position)).toEqual([1, 2, 3]);
    expect(out.results[2]).toMatchObject({ source: 'developer.mozilla.org', published_at: '2025-03-14T09:30:00.000Z' });
    expect(out.results.every((r) => !r.title.includes('<strong>'))).toBe(true);
  });

  it('uses SearXNG alone when it is the only provider, and falls back to it when Brave fails', async () => {
    const searxOnly = await run({ query: 'x402', limit: 2 }, { BRAVE_SEARCH_API_KEY: '' });
    expect(searxOnly.provider).toBe('SearXNG');
    expect(double.requests.at(-1)).toMatchObject({ provider: 'searxng', path: '/search', query: { q: 'x402', format: 'json' } });
    expect(searxOnly.results).toHaveLength(2);
    expect(searxOnly.results[1]!.published_at).toBe('2025-05-20T00:00:00.000Z');
    double.failWith.brave = 500;
    try {
      expect((await run({ query: 'x402 fallback' })).provider).toBe('SearXNG');
    } finally {
      delete double.failWith.brave;
    }
  });

  it('no results is an empty list; a blank or over-long query is refused before running', async () => {
    expect((await run({ query: 'nothing matches this' })).results).toEqual([]);
    expect(webSearch.input.safeParse({ query: '  ' }).success).toBe(false);
    expect(webSearch.input.safeParse({ query: 'q'.repeat(401) }).error!.issues[0]!.path).toEqual(['query']);
  });

  it('identical queries within the TTL are served from the cache', async () => {
    const providers = double.providers();
    const ctx = fakeContext({ data: providers });
    const before = double.requests.length;
    await webSearch.run(webSearch.input.parse({ query: 'cache me' }), ctx);
    await webSearch.run(webSearch.input.parse({ query: 'cache me' }), ctx);
    expect(double.requests.length - before).toBe(1);
    expect(providers.stats().find((s) => s.provider === 'brave')).toMatchObject({ requests: 1, cacheHits: 1 });
  });
});
