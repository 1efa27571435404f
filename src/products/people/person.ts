/**
 * The person record the people products sell, read from a data provider's record: who the person
 * is professionally (name, current job, location, public profiles) and the record it came from.
 *
 * Deliberately absent: emails, phone numbers, street addresses, birth dates and anything else a
 * provider holds about a private life. None of the products promises contact details, an anonymous
 * paid call is no ground for handing a stranger's private contact details on (GDPR data
 * minimisation), and PDL's own free plans withhold them. The adapter never reads them.
 */
import { z } from 'zod';
import type { PersonRecord } from '../../providers/people/pdl.ts';

/** The provider id a record's citation names. */
export const PDL_SOURCE = 'peopledatalabs';

export const publicProfileOutput = z
  .object({
    platform: z.string().describe('The network: linkedin, github, twitter, facebook…'),
    url: z.string().describe('The profile\'s URL'),
    username: z.string().nullable().describe('The handle on that network, when known'),
  })
  .describe('A public profile of the person');

export const recordSourceOutput = z
  .object({
    provider: z.literal(PDL_SOURCE).describe('The data provider the record comes from (People Data Labs)'),
    record_id: z.string().describe('The provider\'s persistent id of the person record, to cite or look the record up again'),
  })
  .describe('Where this person record comes from');

export const personOutput = z.object({
  name: z.string().nullable().describe('Full name'),
  first_name: z.string().nullable().describe('First (given) name'),
  last_name: z.string().nullable().describe('Last (family) name'),
  job_title: z.string().nullable().describe('Current job title'),
  company: z.string().nullable().describe('Current employer'),
  company_website: z.string().nullable().describe('Current employer\'s website (domain)'),
  location: z.string().nullable().describe('Where the person is based: locality, region, country'),
  industry: z.string().nullable().describe('Industry of the current job'),
  linkedin_url: z.string().nullable().describe('Main LinkedIn profile URL'),
  profiles: z.array(publicProfileOutput).describe('Public social and professional profiles'),
  source: recordSourceOutput,
});
export type PersonOutput = z.infer<typeof personOutput>;

export function personFrom(record: PersonRecord): PersonOutput {
  return {
    name: record.full_name,
    first_name: record.first_name,
    last_name: record.last_name,
    job_title: record.job_title,
    company: record.company,
    company_website: record.company_website,
    location: record.location,
    industry: record.industry,
    linkedin_url: record.linkedin_url,
    profiles: record.profiles.map((p) => ({ platform: p.platform, url: p.url, username: p.username })),
    source: { provider: PDL_SOURCE, record_id: record.record_id },
  };
}
