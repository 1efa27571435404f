import { ARTICLE, expectTidesArticle } from './article.fixture.ts';
import { describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { webExtract, webExtractOutput } from './index.ts';

const SITE = 'https://coastal.example';

const fetch = stubFetch({
  // A redirect already followed by the fetcher: the final URL is the article's.
  [`${SITE}/old`]: response(ARTICLE, { url: `${SITE}/articles/tides`, contentType: 'text/html' }),
  [`${SITE}/data.json`]: response('{"b":2,"a":[1,2]}', { contentType: 'application/json' }),
  [`${SITE}/notes.txt`]: response('  line one  \n\n\n\nline two', { contentType: 'text/plain' }),
  [`${SITE}/file.pdf`]: response('%PDF-1.7', { contentType: 'application/pdf' }),
  [`${SITE}/bad.json`]: response('{not json', { contentType: 'application/json' }),
  [`${SITE}/missing`]: response('not here', { status: 404 }),
  [`${SITE}/broken`]: response('boom', { status: 500 }),
  [`${SITE}/busy`]: response('slow down', { status: 429 }),
  [`${SITE}/refused`]: new SafeFetchError('blocked_address', 'refused: non-public address'),
  [`${SITE}/down`]: new SafeFetchError('network_error', 'connection refused'),
  [`${SITE}/slow`]: new SafeFetchError('timeout', 'no answer in time'),
});
const ctx = fakeContext({ fetch });
const extract = (path: string) => webExtract.run(webExtract.input.parse({ url: `${SITE}${path}` }), ctx);

describe('web-extract', () => {
  it('extracts the article: clean text, Markdown, title, final URL, links and metadata', async () => {
    const page = await extract('/old');
    expectTidesArticle(page, SITE);
    expect(page.extracted_at).toBe(ctx.now.toISOString());
    expect(webExtractOutput.safeParse(page).success).toBe(true);
    expect(fetch.requests.find((r) => r.url === `${SITE}/old`)?.request.headers?.accept).toMatch(/^text\/html/);
  });

  it('JSON pages are returned as JSON text, plain text is normalized', async () => {
    expect(JSON.parse((await extract('/data.json')).content)).toEqual({ b: 2, a: [1, 2] });
    expect((await extract('/notes.txt')).content).toBe('line one\n\nline two');
  });

  it("the caller's target is a 4xx naming url: unsupported type 415, invalid JSON, a missing page or a refused address 422", async () => {
    await expect(extract('/file.pdf')).rejects.toMatchObject({ name: 'ProductInputError', status: 415, field: 'url', message: expect.stringContaining('application/pdf') });
    await expect(extract('/bad.json')).rejects.toMatchObject({ status: 422, field: 'url' });
    await expect(extract('/missing')).rejects.toMatchObject({ status: 422, field: 'url', message: 'the page answered HTTP 404' });
    await expect(extract('/refused')).rejects.toMatchObject({ status: 422, field: 'url', message: expect.stringContaining('non-public address') });
    await expect(extract('/nowhere')).rejects.toMatchObject({ status: 422, field: 'url' });
  });

  it('a failing, busy, silent or slow site is the upstream: 502 or 504', async () => {
    await expect(extract('/broken')).rejects.toMatchObject({ status: 502 });
    await expect(extract('/busy')).rejects.toMatchObject({ status: 502 });
    await expect(extract('/down')).rejects.toMatchObject({ status: 502 });
    await expect(extract('/slow')).rejects.toMatchObject({ status: 504 });
  });

  it('takes only http and https URLs without credentials', () => {
    for (const url of ['ftp://example.com/file', 'http://user:secret@example.com/', 'not a url']) {
      expect(webExtract.input.safeParse({ url }).success, url).toBe(false);
    }
  });
});
