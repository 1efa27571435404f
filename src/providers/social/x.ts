/**
 * X API v2 recent search (https://docs.x.com/x-api/posts/search-recent-posts):
 * `GET /2/tweets/search/recent?query=…&max_results=10..100&tweet.fields=…&expansions=author_id&user.fields=…`
 * with an app-only `Authorization: Bearer` token; posts of the last seven days. A query the API
 * refuses (operators it does not take, too long) is HTTP 400: the caller's query, told without X's text.
 */
import { ProductInputError } from '../../products/kit/errors.ts';
import type { ProviderClient } from '../api/client.ts';

export interface Post {
  id: string;
  url: string;
  text: string;
  created_at: string | null;
  lang: string | null;
  author: { id: string; username: string | null; name: string | null };
  metrics: { likes: number; reposts: number; replies: number; quotes: number; impressions: number | null };
}

export interface SocialSearchProvider {
  readonly name: string;
  recent(query: string, limit: number, signal?: AbortSignal): Promise<Post[]>;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const count = (value: unknown) => (typeof value === 'number' ? value : 0);

export class XRecentSearch implements SocialSearchProvider {
  readonly name = 'X';

  constructor(private readonly client: ProviderClient) {}

  async recent(query: string, limit: number, signal?: AbortSignal): Promise<Post[]> {
    const answer = await this.client.request(
      {
        path: '/tweets/search/recent',
        query: {
          query,
          // The API takes 10 to 100.
          max_results: Math.max(10, Math.min(100, limit)),
          'tweet.fields': 'created_at,public_metrics,author_id,lang',
          expansions: 'author_id',
          'user.fields': 'username,name',
        },
        accept: [400],
      },
      signal,
    );
    if (answer.status === 400) throw new ProductInputError('X refused this search query (an operator it does not take, or malformed)', 422, 'query');
    const body = obj(answer.body);
    const data = body.data ?? [];
    if (!Array.isArray(data)) throw this.client.invalid('answered posts that are not a list');
    const users = new Map<string, Json>();
    const included = obj(body.includes).users;
    for (const user of Array.isArray(included) ? included.map(obj) : []) if (typeof user.id === 'string') users.set(user.id, user);
    return data.slice(0, limit).map((raw) => {
      const post = obj(raw);
      const id = String(post.id ?? '');
      const authorId = String(post.author_id ?? '');
      const user = users.get(authorId) ?? {};
      const username = typeof user.username === 'string' ? user.username : null;
      const metrics = obj(post.public_metrics);
      return {
        id,
        url: `https://x.com/${username ?? 'i/web'}/status/${id}`,
        text: typeof post.text === 'string' ? post.text : '',
        created_at: typeof post.created_at === 'string' ? post.created_at : null,
        lang: typeof post.lang === 'string' ? post.lang : null,
        author: { id: authorId, username, name: typeof user.name === 'string' ? user.name : null },
        metrics: {
          likes: count(metrics.like_count),
          reposts: count(metrics.retweet_count),
          replies: count(metrics.reply_count),
          quotes: count(metrics.quote_count),
          impressions: typeof metrics.impression_count === 'number' ? metrics.impression_count : null,
        },
      };
    });
  }
}
