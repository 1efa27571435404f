import { z } from 'zod';
import { READ_EXTERNAL, dataProvider, product, trimmedText } from '../../kit/index.ts';

export const tweetsSearchOutput = z.object({
  query: z.string().describe('The query as sent'),
  provider: z.string().describe('The source searched (X API v2 recent search: the last seven days)'),
  posts: z
    .array(
      z.object({
        id: z.string().describe('Post id'),
        url: z.string().describe('Link to the post'),
        text: z.string().describe('Post text'),
        created_at: z.string().nullable().describe('When it was posted, ISO 8601'),
        lang: z.string().nullable().describe('Language X detected'),
        author: z
          .object({ id: z.string().describe('Author id'), username: z.string().nullable().describe('Handle, without @'), name: z.string().nullable().describe('Display name') })
          .describe('Author'),
        metrics: z
          .object({
            likes: z.int().describe('Likes'),
            reposts: z.int().describe('Reposts'),
            replies: z.int().describe('Replies'),
            quotes: z.int().describe('Quotes'),
            impressions: z.int().nullable().describe('Impressions, when X reports them'),
          })
          .describe('Engagement counts'),
      }),
    )
    .describe('Matching posts, newest first; empty when none'),
  retrieved_at: z.iso.datetime().describe('When the search ran, ISO 8601'),
});

/** Recent posts on X (X_BEARER_TOKEN); identical queries cached 1 minute. */
export const tweetsSearch = product({
  id: 'tweets-search',
  title: 'Tweet search',
  description:
    'Searches recent posts on X (the last seven days, X API v2) for a query and returns matching posts with author, time, text and engagement counts. A query X refuses is 422, not charged.',
  method: 'GET',
  price: '0.005',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).max(512).refine(trimmedText, 'empty once trimmed').describe('Search query (supports the usual search operators)'),
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('Most posts to return'),
  }),
  inputExample: { query: 'x402', limit: 20 },
  output: tweetsSearchOutput,
  outputExample: {
    query: 'x402',
    provider: 'X',
    posts: [
      {
        id: '1929871234567890123',
        url: 'https://x.com/example_dev/status/1929871234567890123',
        text: 'Shipped our first x402 endpoint today: agents pay per call in USDC.',
        created_at: '2025-06-01T10:21:07.000Z',
        lang: 'en',
        author: { id: '2244994945', username: 'example_dev', name: 'Example Dev' },
        metrics: { likes: 42, reposts: 7, replies: 3, quotes: 1, impressions: 5120 },
      },
    ],
    retrieved_at: '2025-06-01T12:00:00.000Z',
  },
  requires: ['x-search'],
  run: async (input, ctx) => {
    const query = input.query.trim();
    const x = dataProvider(ctx, 'xSearch');
    return { query, provider: x.name, posts: await x.recent(query, input.limit, ctx.signal), retrieved_at: ctx.now.toISOString() };
  },
});
