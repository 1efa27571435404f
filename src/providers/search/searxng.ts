/**
 * SearXNG's search API (https://docs.searxng.org/dev/search_api.html): `GET /search?q=…&format=json`
 * on the operator's own instance (the `json` format must be enabled in its settings.yml, else it
 * answers 403). Results carry `url`, `title`, `content`, `engine(s)` and, for news, `publishedDate`.
 */
import type { ProviderClient } from '../api/client.ts';
import { cleanResults, hostOf, isoTime, type SearchResult, type WebSearchProvider } from './types.ts';

export class SearxngSearch implements WebSearchProvider {
  readonly name = 'SearXNG';

  constructor(private readonly client: ProviderClient) {}

  async search(query: string, limit: number, signal?: AbortSignal): Promise<{ provider: string; results: SearchResult[] }> {
    const answer = await this.client.request({ path: '/search', query: { q: query, format: 'json', pageno: 1, safesearch: 1 } }, signal);
    const results = (answer.body as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw this.client.invalid('answered without a results list');
    const mapped = results.map((r: Record<string, unknown>) => {
      const url = typeof r.url === 'string' ? r.url : '';
      return {
        title: typeof r.title === 'string' ? r.title.trim() : '',
        url,
        snippet: typeof r.content === 'string' ? r.content.trim() : '',
        published_at: isoTime(r.publishedDate),
        source: hostOf(url),
      };
    });
    return { provider: this.name, results: cleanResults(mapped, limit) };
  }
}
