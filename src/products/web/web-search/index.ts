import { z } from 'zod';
import { READ_EXTERNAL, dataProvider, product, trimmedText } from '../../kit/index.ts';

export const searchResult = z.object({
  position: z.int().describe('Rank, from 1'),
  title: z.string().describe('Result title'),
  url: z.string().describe('Result URL'),
  snippet: z.string().describe('The provider\'s snippet of the page'),
  published_at: z.string().nullable().describe('Publication time when the provider gives one, ISO 8601'),
  source: z.string().describe('Site (host name) of the result'),
});

export const webSearchOutput = z.object({
  query: z.string().describe('The query as sent'),
  provider: z.string().describe('The search provider that answered (Brave Search or SearXNG)'),
  results: z.array(searchResult).describe('Ranked results; empty when nothing matches'),
  retrieved_at: z.iso.datetime().describe('When the search ran, ISO 8601'),
});

/** Web search through the operator's provider (Brave Search, SearXNG); identical queries cached 5 minutes. */
export const webSearch = product({
  id: 'web-search',
  title: 'Web search',
  description:
    'Searches the web for a query and returns ranked results (title, URL, snippet, published time, site) from the operator\'s search provider (Brave Search or a SearXNG instance), named in `provider`. No results is an empty list; a provider failure is 502/503, not charged.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).max(400).refine(trimmedText, 'empty once trimmed').describe('Search query'),
    limit: z.int().min(1).max(20).default(10).describe('Most results to return'),
  }),
  inputExample: { query: 'x402 payment protocol specification', limit: 5 },
  output: webSearchOutput,
  outputExample: {
    query: 'x402 payment protocol specification',
    provider: 'Brave Search',
    results: [
      {
        position: 1,
        title: 'x402 - Payment Required',
        url: 'https://www.x402.org/',
        snippet: 'x402 is an open payment standard that enables AI agents and web services to pay for APIs and content with stablecoins over HTTP.',
        published_at: null,
        source: 'www.x402.org',
      },
    ],
    retrieved_at: '2025-06-01T12:00:00.000Z',
  },
  requires: ['web-search'],
  run: async (input, ctx) => {
    const query = input.query.trim();
    const { provider, results } = await dataProvider(ctx, 'webSearch').search(query, input.limit, ctx.signal);
    return { query, provider, results: results.map((r, i) => ({ position: i + 1, ...r })), retrieved_at: ctx.now.toISOString() };
  },
});
