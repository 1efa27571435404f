import { describe, expect, it } from 'vitest';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { twoDays } from '../fixture.ts';
import { bazaarListingLint } from './index.ts';

describe('bazaar-listing-lint', () => {
  it('scores a listing with schemas and a live 402 higher than one without', async () => {
    const fetch = stubFetch({ 'https://ai.invalid/v1/chat': response({ x402Version: 2 }, { status: 402 }), 'https://weather.invalid/api/forecast': response('ok', { status: 200 }) });
    const chat = await bazaarListingLint.run({ resource_url: 'https://ai.invalid/v1/chat' }, fakeContext({ bazaar: twoDays(), fetch }));
    expect(bazaarListingLint.output.parse(chat)).toEqual(chat);
    // The chat listing publishes an input schema and an output example, but no output schema, and
    // "LLM chat completion" is 19 characters.
    expect(chat.findings.map((f) => f.rule)).toEqual(['short_description', 'no_output_schema']);
    expect(chat.score).toBe(80);
    const weather = await bazaarListingLint.run({ resource_url: 'https://weather.invalid/api/forecast' }, fakeContext({ bazaar: twoDays(), fetch }));
    expect(weather.findings.map((f) => f.rule)).toEqual(['no_input_schema', 'no_output_schema', 'no_output_example', 'unreachable_402']);
    expect(weather.score).toBe(35);
  });

  it('flags price outliers against the category median; an unknown listing is 422', async () => {
    const fetch = stubFetch({});
    const embeddings = await bazaarListingLint.run({ resource_url: 'https://ai.invalid/v1/embeddings' }, fakeContext({ bazaar: twoDays(), fetch }));
    // Inference on day 2: 0.05 and 0.10, nearest-rank median 0.05: 0.10 is within 10×, no outlier.
    expect(embeddings.findings.map((f) => f.rule)).not.toContain('price_outlier');
    await expect(bazaarListingLint.run({ resource_url: 'https://nowhere.invalid/x' }, fakeContext({ bazaar: twoDays(), fetch }))).rejects.toMatchObject({ status: 422, field: 'resource_url', code: 'unknown_listing' });
    await expect(bazaarListingLint.precheck!({ resource_url: 'https://nowhere.invalid/x' }, fakeContext({ bazaar: twoDays(), fetch }))).rejects.toMatchObject({ status: 422, field: 'resource_url', code: 'unknown_listing' });
  });
});
