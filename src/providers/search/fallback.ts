import { UpstreamError } from '../../products/kit/errors.ts';
import type { SearchResult, WebSearchProvider } from './types.ts';

/**
 * Several search providers in order of preference: one that fails (down, over budget, rate-limited)
 * hands the query to the next; the last one's failure is the answer.
 */
export class FallbackSearch implements WebSearchProvider {
  readonly name: string;

  constructor(private readonly providers: WebSearchProvider[]) {
    if (providers.length === 0) throw new Error('FallbackSearch: no provider');
    this.name = providers.map((p) => p.name).join(', then ');
  }

  async search(query: string, limit: number, signal?: AbortSignal): Promise<{ provider: string; results: SearchResult[] }> {
    let failure: unknown;
    for (const provider of this.providers) {
      try {
        return await provider.search(query, limit, signal);
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        failure = error;
      }
    }
    throw failure;
  }
}
