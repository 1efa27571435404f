import { describe, expect, it } from 'vitest';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { purchaseWebExtractionSample, sampleOutput } from './index.ts';

const run = (url: string, fetch: ReturnType<typeof stubFetch>) =>
  purchaseWebExtractionSample.run(purchaseWebExtractionSample.input.parse({ url }), fakeContext({ now: new Date('2026-01-01T00:00:00Z'), fetch }));

describe('purchase-web-extraction-sample', () => {
  it('returns a bounded sample and points to the full extraction', async () => {
    const fetch = stubFetch({
      'https://example.com/long': response(`<html><head><title>Long</title></head><body><article><p>${'word '.repeat(1000)}</p></article></body></html>`),
    });
    const sample = await run('https://example.com/long', fetch);
    expect(sample).toMatchObject({ title: 'Long', truncated: true, full_extraction: { tool: 'web_extract' } });
    expect(sample.content_sample.length).toBe(1500);
    expect(sample.content_length).toBeGreaterThan(1500);
    expect(sample.extracted_at).toBe('2026-01-01T00:00:00.000Z');
    expect(sampleOutput.safeParse(sample).success).toBe(true);
  });

  it('a short page is sampled whole; a missing page is the caller\'s 422, a failing site 502', async () => {
    const fetch = stubFetch({
      'https://example.com/': response('<html><head><title>Short</title></head><body><p>Tiny page, <a href="/a">one link</a>.</p></body></html>'),
      'https://example.com/missing': response('', { status: 404 }),
      'https://example.com/broken': response('', { status: 503 }),
    });
    expect(await run('https://example.com/', fetch)).toMatchObject({ content_sample: 'Tiny page, one link.', content_length: 20, truncated: false, link_count: 1 });
    await expect(run('https://example.com/missing', fetch)).rejects.toMatchObject({ status: 422, field: 'url' });
    await expect(run('https://example.com/broken', fetch)).rejects.toMatchObject({ status: 502 });
  });

  it('takes HTTPS URLs only', () => {
    expect(purchaseWebExtractionSample.input.safeParse({ url: 'http://example.com/' }).error?.issues[0]?.message).toBe('must be an https URL');
  });
});
