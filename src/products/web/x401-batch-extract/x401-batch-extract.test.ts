import { describe, expect, it } from 'vitest';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { x401BatchExtract } from './index.ts';

describe('x401-batch-extract', () => {
  it('is proof-gated (the doors check the proof) and extracts like batch-url-json, http URLs included', async () => {
    expect(x401BatchExtract.requiresProof).toBe(true);
    const fetch = stubFetch({
      'http://harbour.example/api': response({ name: 'tide' }),
      'https://harbour.example/page': response('<html><head><title>Harbour</title></head><body><p>Open at six.</p></body></html>'),
    });
    const input = x401BatchExtract.input.parse({ urls: ['http://harbour.example/api', 'https://harbour.example/page'], proof: 'header.payload.signature' });
    const batch = await x401BatchExtract.run(input, fakeContext({ fetch }));
    expect(batch).toMatchObject({ succeeded: 2, failed: 0, results: [{ ok: true, data: { name: 'tide' } }, { ok: true, data: { title: 'Harbour' } }] });
  });

  it('takes a JWT or a JSON object as proof, or none (then the door sends its PROOF-REQUEST)', () => {
    const urls = ['https://example.com/'];
    expect(x401BatchExtract.input.safeParse({ urls }).success).toBe(true);
    expect(x401BatchExtract.input.safeParse({ urls, proof: { route: 'POST /api/v1/paid/x401-batch-extract' } }).success).toBe(true);
    expect(x401BatchExtract.input.safeParse({ urls, proof: 42 }).success).toBe(false);
    expect(x401BatchExtract.input.safeParse({ urls: ['ftp://example.com/'] }).success).toBe(false);
  });
});
