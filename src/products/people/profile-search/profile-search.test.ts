import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { pdlDouble } from '../../../providers/people/pdl-double.fixture.ts';
import { profileSearch } from './index.ts';

const double = pdlDouble();
const run = (input: Record<string, unknown>) => profileSearch.run(profileSearch.input.parse(input), fakeContext({ data: double.providers() }));

describe('profile-search', () => {
  it('answers its published example: title, skills and place read from the words of the query', async () => {
    expect(await run(profileSearch.inputExample!)).toEqual(profileSearch.outputExample);
    const body = double.requests.at(-1)!.body as { query: { bool: { minimum_should_match: number; filter: unknown[] } }; size: number };
    expect(body.size).toBe(10);
    expect(body.query.bool.minimum_should_match).toBe(4); // two thirds of five words, rounded up
    expect(JSON.stringify(body.query.bool.filter)).toContain('"exists":{"field":"linkedin_url"}');
  });

  it('a person without LinkedIn is listed under the profile they have; the headline is title at employer', async () => {
    const out = await run({ query: 'Staff engineer, payments — Berlin', limit: 5 });
    expect(out.searched_words).toEqual(['staff', 'engineer', 'payments', 'berlin']);
    expect(out.profiles.map((p) => [p.name, p.platform, p.headline])).toEqual([
      ['Jane Doe', 'linkedin', 'Staff Engineer, Payments at Example Payments Gmbh'],
      ['Richard Miles', 'github', 'Staff Engineer at Sample Labs'],
    ]);
    expect(out.profiles[1]).toMatchObject({ url: 'https://github.com/rmiles-example', username: 'rmiles-example', other_profiles: [] });
  });

  it('no match is an empty list; a query of common words only is refused before running', async () => {
    expect(await run({ query: 'astronaut pastry chef Reykjavik' })).toMatchObject({ total_matches: 0, profiles: [] });
    const refused = profileSearch.input.safeParse({ query: 'of the in' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]!.path).toEqual(['query']);
  });
});
