import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, dataProvider, product } from '../../kit/index.ts';
import { ENRICH_MIN_LIKELIHOOD } from '../../../providers/people/pdl.ts';
import { personFrom, personOutput } from '../person.ts';

const IDENTIFIERS = ['email', 'profile_url', 'name', 'company'] as const;
const ONE_IDENTIFIER = 'give at least one identifier: email, profile_url, or name with company';

export const peopleEnrichInput = z
  .object({
    email: z.email().max(320).optional().describe('Email address'),
    profile_url: z.url({ protocol: /^https?$/ }).max(500).optional().describe('URL of a public profile (LinkedIn, GitHub, X…)'),
    name: z.string().max(200).optional().describe('Full name (use with company)'),
    company: z.string().max(200).optional().describe('Company name or domain (use with name)'),
  })
  // Checked with the input, so the unpaid 402 already says what is missing and nothing is charged.
  .superRefine((input, ctx) => {
    const name = input.name?.trim();
    const company = input.company?.trim();
    if (input.email || input.profile_url || (name && company)) return;
    if (name) ctx.addIssue({ code: 'custom', path: ['company'], message: `a name is matched only with its company: ${ONE_IDENTIFIER}` });
    else if (company) ctx.addIssue({ code: 'custom', path: ['name'], message: `a company alone is not a person: ${ONE_IDENTIFIER}` });
    else for (const field of ['email', 'profile_url', 'name'] as const) ctx.addIssue({ code: 'custom', path: [field], message: ONE_IDENTIFIER });
  });

export const peopleEnrichOutput = z.object({
  matched_on: z.array(z.enum(IDENTIFIERS)).describe('The identifiers the match was asked for (their values are not repeated)'),
  likelihood: z.int().min(1).max(10).describe('The provider\'s confidence that this is the person asked for, 1 to 10 (logarithmic)'),
  minimum_likelihood: z.int().describe(`The least likelihood sold as a match (${ENRICH_MIN_LIKELIHOOD}); below it the call is 404 and not charged`),
  person: personOutput.describe('The matched person record'),
  provider: z.string().describe('The data provider that matched the record'),
  retrieved_at: z.iso.datetime().describe('When the match ran, ISO 8601'),
});

/** One person from an email, profile URL, or name and company, over People Data Labs' Person Enrichment (PDL_API_KEY). */
export const peopleEnrich = product({
  id: 'people-enrich',
  title: 'People enrich',
  description: `Enriches a person from at least one identifier (email, profile URL, or name with company) and returns the matched person record: name, title, company, location and public profiles, with the match likelihood and the People Data Labs record id. No contact details. Missing identifiers are 400 naming the fields; no match, or a match below likelihood ${ENRICH_MIN_LIKELIHOOD} of 10, is 404: neither is charged.`,
  price: '0.28',
  annotations: READ_EXTERNAL,
  input: peopleEnrichInput,
  inputExample: { profile_url: 'https://github.com/rmiles-example' },
  output: peopleEnrichOutput,
  outputExample: {
    matched_on: ['profile_url'],
    likelihood: 10,
    minimum_likelihood: 6,
    person: {
      name: 'Richard Miles',
      first_name: 'Richard',
      last_name: 'Miles',
      job_title: 'Staff Engineer',
      company: 'Sample Labs',
      company_website: 'example.net',
      location: 'Berlin, Berlin, Germany',
      industry: 'Computer Software',
      linkedin_url: null,
      profiles: [{ platform: 'github', url: 'https://github.com/rmiles-example', username: 'rmiles-example' }],
      source: { provider: 'peopledatalabs', record_id: 'qXmpl3RichardMiles0003_0000' },
    },
    provider: 'People Data Labs',
    retrieved_at: '2025-06-01T12:00:00.000Z',
  },
  requires: ['people-data'],
  run: async (input, ctx) => {
    const people = dataProvider(ctx, 'people');
    const given = {
      email: input.email,
      profile: input.profile_url,
      name: input.name?.trim() || undefined,
      company: input.company?.trim() || undefined,
    };
    const match = await people.enrich(Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)), ctx.signal);
    if (!match) {
      const field = input.email ? 'email' : input.profile_url ? 'profile_url' : 'name';
      throw new ProductInputError(`no person matches these identifiers with likelihood ${ENRICH_MIN_LIKELIHOOD} or more`, 404, field, 'not-found');
    }
    const matched_on = IDENTIFIERS.filter((id) => (id === 'profile_url' ? given.profile : given[id]) !== undefined);
    return { matched_on, likelihood: match.likelihood, minimum_likelihood: ENRICH_MIN_LIKELIHOOD, person: personFrom(match.record), provider: people.name, retrieved_at: ctx.now.toISOString() };
  },
});
