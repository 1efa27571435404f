import { z } from 'zod';
import { READ_EXTERNAL, dataProvider, product, trimmedText } from '../../kit/index.ts';
import { personFrom, personOutput } from '../person.ts';

export const peopleSearchOutput = z.object({
  query: z
    .object({
      name: z.string().describe('The name searched'),
      company: z.string().nullable().describe('The employer searched (current or past), null when none was given'),
      location: z.string().nullable().describe('The location searched, null when none was given'),
    })
    .describe('The search as read (trimmed)'),
  total_matches: z.int().describe('How many person records match in all (more than returned when `limit` cut the list)'),
  people: z.array(personOutput).describe('Matching person records, at most `limit`; empty when none match'),
  provider: z.string().describe('The data provider searched'),
  retrieved_at: z.iso.datetime().describe('When the search ran, ISO 8601'),
});

/** People by name over People Data Labs' Person Search (PDL_API_KEY); identical searches cached a day. */
export const peopleSearch = product({
  id: 'people-search',
  title: 'People search',
  description:
    'Searches for people by name, with optional company (current or past employer) and location, and returns matching person records with their sources: name, current title and employer, location, public profiles, and the People Data Labs record id as citation. No contact details. No match is an empty list, charged.',
  price: '0.10',
  annotations: READ_EXTERNAL,
  input: z.object({
    name: z.string().min(1).max(200).refine(trimmedText, 'empty once trimmed').describe('Full or partial name (a single word matches a first or last name)'),
    company: z.string().max(200).optional().describe('Current or past employer: its name, or its website domain'),
    location: z.string().max(200).optional().describe('City, region or country'),
    limit: z.int().min(1).max(25).default(10).describe('Most records to return'),
  }),
  inputExample: { name: 'Jane Doe', company: 'Example Corp', limit: 5 },
  output: peopleSearchOutput,
  outputExample: {
    query: { name: 'Jane Doe', company: 'Example Corp', location: null },
    total_matches: 2,
    people: [
      {
        name: 'Jane Doe',
        first_name: 'Jane',
        last_name: 'Doe',
        job_title: 'Head Of Engineering',
        company: 'Example Corp',
        company_website: 'example.com',
        location: 'London, England, United Kingdom',
        industry: 'Financial Services',
        linkedin_url: 'https://linkedin.com/in/jane-doe-example',
        profiles: [
          { platform: 'linkedin', url: 'https://linkedin.com/in/jane-doe-example', username: 'jane-doe-example' },
          { platform: 'github', url: 'https://github.com/janedoe-example', username: 'janedoe-example' },
        ],
        source: { provider: 'peopledatalabs', record_id: 'qXmpl3JaneDoeLondon0001_0000' },
      },
      {
        name: 'Jane Doe',
        first_name: 'Jane',
        last_name: 'Doe',
        job_title: 'Staff Engineer, Payments',
        company: 'Example Payments Gmbh',
        company_website: 'example.org',
        location: 'Berlin, Berlin, Germany',
        industry: 'Financial Services',
        linkedin_url: 'https://linkedin.com/in/janedoe-berlin-example',
        profiles: [{ platform: 'linkedin', url: 'https://linkedin.com/in/janedoe-berlin-example', username: 'janedoe-berlin-example' }],
        source: { provider: 'peopledatalabs', record_id: 'qXmpl3JaneDoeBerlin0002_0000' },
      },
    ],
    provider: 'People Data Labs',
    retrieved_at: '2025-06-01T12:00:00.000Z',
  },
  requires: ['people-data'],
  run: async (input, ctx) => {
    const people = dataProvider(ctx, 'people');
    const query = { name: input.name.trim(), company: input.company?.trim() || null, location: input.location?.trim() || null };
    const found = await people.search({ name: query.name, ...(query.company ? { company: query.company } : {}), ...(query.location ? { location: query.location } : {}) }, input.limit, ctx.signal);
    return { query, total_matches: found.total, people: found.records.map(personFrom), provider: people.name, retrieved_at: ctx.now.toISOString() };
  },
});
