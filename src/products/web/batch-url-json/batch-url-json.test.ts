import { describe, expect, it } from 'vitest';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { batchOutput } from '../batch.ts';
import { batchUrlJson } from './index.ts';

const fetch = stubFetch({
  'https://harbour.example/api': response({ name: 'tide' }),
  'https://harbour.example/page': response('<html><head><title>Harbour</title></head><body><p>Open at six.</p></body></html>'),
  'https://harbour.example/bad.json': response('{nope', { contentType: 'application/json' }),
});
const run = (urls: string[]) => batchUrlJson.run(batchUrlJson.input.parse({ urls }), fakeContext({ fetch }));

describe('batch-url-json', () => {
  it('returns a JSON answer as itself and any other page as its extraction record, one result per URL', async () => {
    const batch = await run(['https://harbour.example/api', 'https://harbour.example/page', 'https://harbour.example/bad.json']);
    expect(batch).toMatchObject({
      succeeded: 2,
      failed: 1,
      results: [
        { ok: true, data: { name: 'tide' } },
        { ok: true, data: { title: 'Harbour', url: 'https://harbour.example/page' } },
        { ok: false, error: { status: 422, message: 'the URL claims JSON but is not valid JSON' } },
      ],
    });
    expect(batchOutput.safeParse(batch).success).toBe(true);
  });

  it("every URL failed, all the caller's targets: 422 naming urls", async () => {
    await expect(run(['https://no-such-host.invalid/a'])).rejects.toMatchObject({ status: 422, field: 'urls' });
  });

  it('takes 1 to 10 HTTPS URLs only', () => {
    expect(batchUrlJson.input.safeParse({ urls: ['http://example.com/'] }).success).toBe(false);
    expect(batchUrlJson.input.safeParse({ urls: Array(11).fill('https://example.com/') }).success).toBe(false);
    expect(batchUrlJson.input.safeParse({ urls: [] }).success).toBe(false);
  });
});
