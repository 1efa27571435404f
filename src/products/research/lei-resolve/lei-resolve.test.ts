import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { EXAMPLE_LEI, SUBSIDIARY_LEI, providerDouble } from '../../../providers/provider-double.fixture.ts';
import { leiResolve } from './index.ts';

const double = providerDouble();
const ctx = () => fakeContext({ data: double.providers() });
const run = (input: Record<string, unknown>) => leiResolve.run(leiResolve.input.parse(input), ctx());

describe('lei-resolve', () => {
  it('answers its published example from GLEIF\'s full-text search', async () => {
    expect(await run(leiResolve.inputExample!)).toEqual(leiResolve.outputExample);
    const sent = double.requests.at(-1)!;
    expect(sent).toMatchObject({ provider: 'gleif', method: 'GET', path: '/api/v1/lei-records', query: { 'filter[fulltext]': 'Example Global', 'filter[entity.legalAddress.country]': 'US', 'page[size]': '10' } });
  });

  it('resolves an LEI with its direct and ultimate parents', async () => {
    const out = await run({ query: ` ${SUBSIDIARY_LEI.toLowerCase()} ` });
    expect(out.match).toBe('lei');
    expect(out.records[0]!.parents).toEqual({ direct: { lei: EXAMPLE_LEI, legal_name: 'Example Global, Inc.' }, ultimate: { lei: EXAMPLE_LEI, legal_name: 'Example Global, Inc.' } });
    expect(double.requests.slice(-3).map((r) => r.path).sort()).toEqual([`/api/v1/lei-records/${SUBSIDIARY_LEI}`, `/api/v1/lei-records/${SUBSIDIARY_LEI}/direct-parent`, `/api/v1/lei-records/${SUBSIDIARY_LEI}/ultimate-parent`]);
    const top = await run({ query: EXAMPLE_LEI });
    expect(top.records[0]!.parents).toEqual({ direct: null, ultimate: null });
  });

  it('refuses an LEI with wrong check digits without asking GLEIF, and an unknown LEI, naming the field', async () => {
    const before = double.requests.length;
    await expect(run({ query: '549300V5ZCHZ7G2YYX30' })).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'query' });
    expect(double.requests.length).toBe(before);
    await expect(run({ query: '7LTWFZYICNSX8D621K86' })).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'query' });
  });

  it('a name matching nothing is an empty list; a blank query is refused before running', async () => {
    expect((await run({ query: 'No Such Entity Anywhere' })).records).toEqual([]);
    expect(leiResolve.input.safeParse({ query: '   ' }).success).toBe(false);
  });

  it('a GLEIF outage is a 502 and its text is not passed on', async () => {
    double.failWith.gleif = 500;
    try {
      const error = await run({ query: 'Outage Holdings' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'UpstreamError', status: 502 });
      expect(String((error as Error).message)).not.toContain('secret-provider-text');
    } finally {
      delete double.failWith.gleif;
    }
  });
});
