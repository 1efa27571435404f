/** A web search provider, as products see it: ranked results normalised to one shape. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** Publication time when the provider gives one, ISO 8601 (or the provider's date text when it is not parseable). */
  published_at: string | null;
  /** The site the result is on (host name). */
  source: string;
}

export interface WebSearchProvider {
  /** The provider that answered, e.g. "Brave Search". */
  readonly name: string;
  search(query: string, limit: number, signal?: AbortSignal): Promise<{ provider: string; results: SearchResult[] }>;
}

/** An ISO 8601 time from a provider's date text, or null. */
export function isoTime(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** Results with an http(s) URL only, the first of each URL, at most `limit`. */
export function cleanResults(results: SearchResult[], limit: number): SearchResult[] {
  const seen = new Set<string>();
  return results
    .filter((r) => /^https?:\/\//i.test(r.url) && r.title !== '' && !seen.has(r.url) && seen.add(r.url))
    .slice(0, limit);
}
