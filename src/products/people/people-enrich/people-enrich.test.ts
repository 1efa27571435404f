import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { pdlDouble } from '../../../providers/people/pdl-double.fixture.ts';
import { peopleEnrich } from './index.ts';

const double = pdlDouble();
const run = (input: Record<string, unknown>) => peopleEnrich.run(peopleEnrich.input.parse(input), fakeContext({ data: double.providers() }));
const issues = (input: Record<string, unknown>) => peopleEnrich.input.safeParse(input).error?.issues.map((i) => i.path.join('.'));

describe('people-enrich', () => {
  it('answers its published example (a profile URL), and matches a name with its company\'s domain', async () => {
    expect(await run(peopleEnrich.inputExample!)).toEqual(peopleEnrich.outputExample);
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v5/person/enrich', query: { profile: 'https://github.com/rmiles-example', min_likelihood: '6', titlecase: 'true' } });
    const byName = await run({ name: ' Jane Doe ', company: 'example.com' });
    expect(byName).toMatchObject({ matched_on: ['name', 'company'], likelihood: 8, person: { company: 'Example Corp', source: { record_id: 'qXmpl3JaneDoeLondon0001_0000' } } });
    expect(double.requests.at(-1)!.query).toMatchObject({ name: 'Jane Doe', company: 'example.com' });
  });

  it('matches an email or a profile URL, and never hands contact details on', async () => {
    const byEmail = await run({ email: 'Jane@example.org' });
    expect(byEmail).toMatchObject({ matched_on: ['email'], likelihood: 9, person: { name: 'Jane Doe', location: 'Berlin, Berlin, Germany' } });
    expect(JSON.stringify(byEmail.person)).not.toMatch(/@|\+44|street|1988/);
    const byProfile = await run({ profile_url: 'https://www.linkedin.com/in/jane-doe-example/' });
    expect(byProfile).toMatchObject({ matched_on: ['profile_url'], likelihood: 10, person: { source: { provider: 'peopledatalabs', record_id: 'qXmpl3JaneDoeLondon0001_0000' } } });
    expect(double.requests.at(-1)!.query.profile).toBe('https://www.linkedin.com/in/jane-doe-example/');
  });

  it('refuses input without enough identifiers, naming the fields, before asking PDL', () => {
    const before = double.requests.length;
    expect(issues({})).toEqual(['email', 'profile_url', 'name']);
    expect(issues({ name: 'Jane Doe' })).toEqual(['company']);
    expect(issues({ company: 'Example Corp', name: '  ' })).toEqual(['name']);
    expect(issues({ email: 'not-an-email' })).toContain('email');
    expect(double.requests.length).toBe(before);
  });

  it('no match, or a match PDL rates below the minimum likelihood, is 404 naming the identifier', async () => {
    await expect(run({ email: 'nobody@example.com' })).rejects.toMatchObject({ name: 'ProductInputError', status: 404, field: 'email', code: 'not-found' });
    // A former employer only: PDL rates it 5, under the min_likelihood of 6 we send.
    await expect(run({ name: 'Richard Miles', company: 'Example Analytics' })).rejects.toMatchObject({ status: 404, field: 'name' });
    expect(double.requests.at(-1)!.query).toMatchObject({ name: 'Richard Miles', company: 'Example Analytics', min_likelihood: '6' });
    double.forceLikelihood = 3;
    try {
      await expect(run({ profile_url: 'https://linkedin.com/in/jane-doe-example' })).rejects.toMatchObject({ status: 404, field: 'profile_url' });
    } finally {
      delete double.forceLikelihood;
    }
  });
});
