import { describe, expect, it } from 'vitest';
import { dataProviderSettingsFromEnv } from '../api/settings.ts';
import { ProviderClient } from '../api/client.ts';
import { PDL_DOUBLE_KEY, pdlDouble } from './pdl-double.fixture.ts';
import { PeopleDataLabs, peopleQuery, profileWords } from './pdl.ts';

describe('People Data Labs adapter', () => {
  it('is configured only with PDL_API_KEY: the key in X-Api-Key, a small budget, a day of cache', () => {
    expect(dataProviderSettingsFromEnv({}).pdl).toBeUndefined();
    expect(pdlDouble().providers({ PDL_API_KEY: '' }).kinds).not.toContain('people-data');
    expect(dataProviderSettingsFromEnv({ PDL_API_KEY: ' k ' }).pdl).toEqual({ baseUrl: 'https://api.peopledatalabs.com', headers: { 'x-api-key': 'k' }, timeoutMs: 15_000, budgetPerMinute: 10, cacheTtlMs: 86_400_000 });
    expect(dataProviderSettingsFromEnv({ PDL_API_KEY: 'k', PDL_API_URL: 'http://127.0.0.1:9/', PDL_BUDGET_PER_MINUTE: '3', PDL_CACHE_SECONDS: '0' }).pdl).toMatchObject({ baseUrl: 'http://127.0.0.1:9', budgetPerMinute: 3, cacheTtlMs: 0 });
    expect(pdlDouble().providers().kinds).toEqual(['people-data']);
  });

  it('builds the documented Elasticsearch bool queries, in PDL\'s lower case', () => {
    expect(peopleQuery({ name: 'DOE' })).toEqual({ bool: { must: [{ bool: { should: [{ term: { first_name: 'doe' } }, { term: { last_name: 'doe' } }], minimum_should_match: 1 } }] } });
    const query = JSON.stringify(peopleQuery({ name: 'Jane  Q Doe', company: 'Example.com', location: 'United Kingdom' }));
    expect(query).toContain('{"match":{"full_name":"jane q doe"}}');
    expect(query).toContain('{"term":{"last_name":"doe"}}');
    expect(query).toContain('{"term":{"job_company_website":"example.com"}}');
    expect(query).toContain('{"term":{"location_country":"united kingdom"}}');
    expect(JSON.stringify(peopleQuery({ name: 'Jane Doe', company: 'Example Corp' }))).not.toContain('job_company_website');
    expect(profileWords('The Head of C++ and Go, in São Paulo; head again a b c d e f')).toEqual(['head', 'c++', 'go', 'são', 'paulo', 'again', 'b', 'c']);
  });

  it('caches identical requests (PDL bills each match) and refuses over budget before sending', async () => {
    const double = pdlDouble();
    const people = double.providers({ PDL_BUDGET_PER_MINUTE: '2' }, () => 0).people!;
    await people.search({ name: 'Jane Doe' }, 2);
    await people.search({ name: 'Jane Doe' }, 2);
    expect(double.requests).toHaveLength(1);
    await people.search({ name: 'Jane Doe' }, 1);
    await expect(people.search({ name: 'Richard Miles' }, 1)).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    expect(double.requests).toHaveLength(2);
  });

  it('reads PDL\'s 400 on enrich as the caller\'s identifiers (422), a refused key and a record without id as 502', async () => {
    const double = pdlDouble();
    await expect(double.providers().people!.enrich({ name: 'Jane Doe' })).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'name' });
    const refused = await double.providers({ PDL_API_KEY: 'not-the-key' }).people!.search({ name: 'Jane Doe' }, 1).catch((e: Error) => e);
    expect(refused).toMatchObject({ name: 'UpstreamError', status: 502 });
    expect((refused as Error).message).not.toMatch(/secret-provider-text|not-the-key/);
    const settings = dataProviderSettingsFromEnv({ PDL_API_KEY: PDL_DOUBLE_KEY, PDL_API_URL: 'http://pdl.invalid' }).pdl!;
    const noId = new PeopleDataLabs(new ProviderClient('pdl', 'People Data Labs', settings, Date.now, async () => Response.json({ status: 200, data: [{ full_name: 'x' }], total: 1 })));
    await expect(noId.search({ name: 'x' }, 1)).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
  });
});
