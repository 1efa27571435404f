import { z } from 'zod';
import { READ_EXTERNAL, dataProvider, product, trimmedText } from '../../kit/index.ts';
import { profileWords, type PersonRecord } from '../../../providers/people/pdl.ts';
import { publicProfileOutput, recordSourceOutput, PDL_SOURCE } from '../person.ts';

export const profileSearchOutput = z.object({
  query: z.string().describe('The query as read (trimmed)'),
  searched_words: z
    .array(z.string())
    .describe('The words searched, lower case, common words left out (at most 8); a profile matches at least two thirds of them in its title, skills, employer, industry or location'),
  total_matches: z.int().describe('How many profiles match in all (more than returned when `limit` cut the list)'),
  profiles: z
    .array(
      z.object({
        name: z.string().nullable().describe('Full name'),
        headline: z.string().nullable().describe('Current title and employer, e.g. "Head of Engineering at Example Corp"'),
        url: z.string().describe('The main public profile: LinkedIn when there is one, else the first profile known'),
        platform: z.string().describe('The network of `url`: linkedin, github, twitter, facebook…'),
        username: z.string().nullable().describe('The handle on that network, when known'),
        location: z.string().nullable().describe('Where the person is based'),
        other_profiles: z.array(publicProfileOutput).describe('The person\'s other public profiles'),
        source: recordSourceOutput,
      }),
    )
    .describe('Matching profiles, one per person, at most `limit`; empty when none match'),
  provider: z.string().describe('The data provider searched'),
  retrieved_at: z.iso.datetime().describe('When the search ran, ISO 8601'),
});
type ProfileOutput = z.infer<typeof profileSearchOutput>['profiles'][number];

function headline(record: PersonRecord): string | null {
  if (record.job_title && record.company) return `${record.job_title} at ${record.company}`;
  return record.job_title ?? record.company;
}

/** A person's profile entry; undefined without any public profile to point at. */
function profileOf(record: PersonRecord): ProfileOutput | undefined {
  const main = (record.linkedin_url && record.profiles.find((p) => p.url === record.linkedin_url)) || record.profiles[0];
  const url = main?.url ?? record.linkedin_url;
  if (!url) return undefined;
  return {
    name: record.full_name,
    headline: headline(record),
    url,
    platform: main?.platform ?? 'linkedin',
    username: main?.username ?? null,
    location: record.location,
    other_profiles: record.profiles.filter((p) => p.url !== url),
    source: { provider: PDL_SOURCE, record_id: record.record_id },
  };
}

/** Professional profiles for a free-text query, over People Data Labs' Person Search (PDL_API_KEY). */
export const profileSearch = product({
  id: 'profile-search',
  title: 'Profile search',
  description:
    'Searches public professional and social profiles for a free-text query (role, skills, employer, industry, place) and returns matching profiles: name, headline (title at employer), profile URL and platform, with the People Data Labs record id. Each word of the query is matched against current title, skills, employer, industry and location; a profile matches at least two thirds of the words. No contact details. A query of only common words is 422; no match is an empty list, charged.',
  price: '0.30',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z
      .string()
      .min(1)
      .max(400)
      .refine(trimmedText, 'empty once trimmed')
      .refine((q) => profileWords(q).length > 0, 'no words to search once common words ("of", "in", "the"…) are left out')
      .describe('Who to find, e.g. "staff engineer payments Berlin"'),
    limit: z.int().min(1).max(25).default(10).describe('Most profiles to return'),
  }),
  inputExample: { query: 'head of engineering stablecoin payments London', limit: 10 },
  output: profileSearchOutput,
  outputExample: {
    query: 'head of engineering stablecoin payments London',
    searched_words: ['head', 'engineering', 'stablecoin', 'payments', 'london'],
    total_matches: 1,
    profiles: [
      {
        name: 'Jane Doe',
        headline: 'Head Of Engineering at Example Corp',
        url: 'https://linkedin.com/in/jane-doe-example',
        platform: 'linkedin',
        username: 'jane-doe-example',
        location: 'London, England, United Kingdom',
        other_profiles: [{ platform: 'github', url: 'https://github.com/janedoe-example', username: 'janedoe-example' }],
        source: { provider: 'peopledatalabs', record_id: 'qXmpl3JaneDoeLondon0001_0000' },
      },
    ],
    provider: 'People Data Labs',
    retrieved_at: '2025-06-01T12:00:00.000Z',
  },
  requires: ['people-data'],
  run: async (input, ctx) => {
    const people = dataProvider(ctx, 'people');
    const query = input.query.trim();
    const found = await people.searchProfiles(query, input.limit, ctx.signal);
    const profiles = found.records.map(profileOf).filter((p): p is ProfileOutput => p !== undefined);
    return { query, searched_words: profileWords(query), total_matches: found.total, profiles, provider: people.name, retrieved_at: ctx.now.toISOString() };
  },
});
