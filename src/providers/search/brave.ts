/**
 * Brave Search API (https://api-dashboard.search.brave.com/app/documentation/web-search/get-started):
 * `GET /web/search?q=…&count=…` with `X-Subscription-Token`; results under `web.results[]` with
 * `title`, `url`, `description` and, when Brave dates the page, `page_age`. At most 20 per request.
 */
import type { ProviderClient } from '../api/client.ts';
import { cleanResults, hostOf, isoTime, type SearchResult, type WebSearchProvider } from './types.ts';

/** Brave marks query terms in titles and descriptions with <strong>; the text is what we sell. */
const plain = (value: unknown) => (typeof value === 'string' ? value.replace(/<\/?strong>/g, '').replace(/&#x27;|&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&').trim() : '');

export class BraveSearch implements WebSearchProvider {
  readonly name = 'Brave Search';

  constructor(private readonly client: ProviderClient) {}

  async search(query: string, limit: number, signal?: AbortSignal): Promise<{ provider: string; results: SearchResult[] }> {
    const answer = await this.client.request({ path: '/web/search', query: { q: query, count: Math.min(20, limit), safesearch: 'moderate' } }, signal);
    const body = answer.body as { web?: { results?: unknown } } | null;
    // A query with no web results answers without a `web` block.
    const results = body?.web?.results ?? [];
    if (!Array.isArray(results)) throw this.client.invalid('answered web results that are not a list');
    const mapped = results.map((r: Record<string, unknown>) => {
      const url = typeof r.url === 'string' ? r.url : '';
      return { title: plain(r.title), url, snippet: plain(r.description), published_at: isoTime(r.page_age), source: hostOf(url) };
    });
    return { provider: this.name, results: cleanResults(mapped, limit) };
  }
}
