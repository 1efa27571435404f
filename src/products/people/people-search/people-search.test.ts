import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { PDL_DOUBLE_KEY, pdlDouble } from '../../../providers/people/pdl-double.fixture.ts';
import { peopleSearch } from './index.ts';

const double = pdlDouble();
const run = (input: Record<string, unknown>) => peopleSearch.run(peopleSearch.input.parse(input), fakeContext({ data: double.providers() }));

describe('people-search', () => {
  it('answers its published example: current and past employees of the company, with record ids and no contact details', async () => {
    const out = await run(peopleSearch.inputExample!);
    expect(out).toEqual(peopleSearch.outputExample);
    const sent = double.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/v5/person/search', headers: { 'x-api-key': PDL_DOUBLE_KEY }, body: { size: 5, titlecase: true } });
    expect(JSON.stringify(sent.body)).toContain('"experience.company.name":"example corp"');
    expect(JSON.stringify(out)).not.toMatch(/@|\+44|street/);
  });

  it('narrows by location; a single word is a first or last name', async () => {
    const berlin = await run({ name: ' jane doe ', location: 'Berlin' });
    expect(berlin.query).toEqual({ name: 'jane doe', company: null, location: 'Berlin' });
    expect(berlin.people.map((p) => p.source.record_id)).toEqual(['qXmpl3JaneDoeBerlin0002_0000']);
    const miles = await run({ name: 'Miles', limit: 1 });
    expect(miles.people.map((p) => p.name)).toEqual(['Richard Miles']);
    expect(miles.people[0]!.linkedin_url).toBeNull();
  });

  it('no match is an empty list (PDL answers 404); a blank name is refused before running', async () => {
    expect(await run({ name: 'Nobody Atall', company: 'Example Corp' })).toMatchObject({ total_matches: 0, people: [] });
    expect(peopleSearch.input.safeParse({ name: '  ' }).success).toBe(false);
  });

  it('a PDL outage is 502 and a rate limit 503, never with PDL\'s text or key', async () => {
    for (const [status, expected] of [[500, 502], [429, 503]] as const) {
      double.failWith = status;
      try {
        const error = await run({ name: `Outage ${status}` }).catch((e: unknown) => e);
        expect(error).toMatchObject({ name: 'UpstreamError', status: expected });
        expect(String((error as Error).message)).not.toMatch(/secret-provider-text|pdl-test-api-key/);
      } finally {
        delete double.failWith;
      }
    }
  });
});
