import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { DOUBLE_KEYS, providerDouble } from '../../../providers/provider-double.fixture.ts';
import { tweetsSearch } from './index.ts';

const double = providerDouble();
const run = (input: Record<string, unknown>) => tweetsSearch.run(tweetsSearch.input.parse(input), fakeContext({ data: double.providers() }));

describe('tweets-search', () => {
  it('answers its published example from the X API v2 recent search, asked in its documented form', async () => {
    expect(await run({ query: 'x402', limit: '1' })).toEqual(tweetsSearch.outputExample);
    expect(double.requests.at(-1)).toMatchObject({
      provider: 'x',
      path: '/2/tweets/search/recent',
      query: { query: 'x402', max_results: '10', 'tweet.fields': 'created_at,public_metrics,author_id,lang', expansions: 'author_id', 'user.fields': 'username,name' },
      headers: { authorization: `Bearer ${DOUBLE_KEYS.x}` },
    });
  });

  it('joins authors from includes; no posts is an empty list', async () => {
    const out = await run({ query: 'x402' });
    expect(out.posts.map((p) => p.author.username)).toEqual(['example_dev', 'another_reader']);
    expect((await run({ query: 'nothing matches this' })).posts).toEqual([]);
  });

  it('a query X refuses is 422 naming the field, without X\'s text', async () => {
    const error = await run({ query: '(((' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ProductInputError', status: 422, field: 'query' });
    expect((error as Error).message).not.toContain('secret-provider-text');
  });

  it('X rate-limiting us is a 503', async () => {
    double.failWith.x = 429;
    try {
      await expect(run({ query: 'rate limited' })).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    } finally {
      delete double.failWith.x;
    }
  });
});
