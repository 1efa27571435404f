/**
 * People Data Labs' Person API v5 (https://docs.peopledatalabs.com/), key in the `X-Api-Key` header:
 * - `GET /v5/person/enrich?email=…|profile=…|name=…&company=…&min_likelihood=…&titlecase=true`:
 *   200 `{ status, likelihood, data: {…} }`, 404 when no record matches (not billed);
 * - `POST /v5/person/search` with `{ query: <Elasticsearch bool query>, size, titlecase }`:
 *   200 `{ status, data: [...], total, scroll_token }`, 404 when nothing matches.
 * PDL bills per matched record, so `size` is exactly what the caller asked for. Its index holds
 * lower-case values (keyword fields match exactly), hence the lower-cased query terms; `titlecase`
 * only changes how records come back.
 *
 * A record is read down to what the products sell: names, current job, location and public
 * profiles. Contact details (emails, phones, street addresses) and birth dates are never read.
 */
import { ProductInputError } from '../../products/kit/errors.ts';
import type { ProviderClient } from '../api/client.ts';

export interface PublicProfile {
  /** PDL's `profiles[].network`: linkedin, github, twitter, facebook… */
  platform: string;
  url: string;
  username: string | null;
}

export interface PersonRecord {
  /** PDL's persistent person id. */
  record_id: string;
  full_name: string | null;
  first_name: string | null;
  last_name: string | null;
  job_title: string | null;
  company: string | null;
  company_website: string | null;
  location: string | null;
  industry: string | null;
  linkedin_url: string | null;
  profiles: PublicProfile[];
}

export interface PersonCriteria {
  name: string;
  company?: string;
  location?: string;
}

/** Identifiers of one person; the product checks that enough of them are given. */
export interface PersonIdentifiers {
  email?: string;
  profile?: string;
  name?: string;
  company?: string;
}

export interface PeopleSearchResult {
  /** How many records PDL counts for the query (more than returned when `limit` cut them). */
  total: number;
  records: PersonRecord[];
}

export interface PeopleDataProvider {
  readonly name: string;
  /** People by name, narrowed by company (current or past) and location. */
  search(criteria: PersonCriteria, limit: number, signal?: AbortSignal): Promise<PeopleSearchResult>;
  /** People whose current title, skills, employer, industry or location match words of `text` (see `profileQuery`). */
  searchProfiles(text: string, limit: number, signal?: AbortSignal): Promise<PeopleSearchResult>;
  /** The one record matching the identifiers at `ENRICH_MIN_LIKELIHOOD` or above; undefined when none does. */
  enrich(identifiers: PersonIdentifiers, signal?: AbortSignal): Promise<{ likelihood: number; record: PersonRecord } | undefined>;
}

/**
 * The least PDL likelihood (1–10, logarithmic) sold as a match: below it PDL is guessing between
 * several people, and a guess about a person is not something to sell as that person.
 */
export const ENRICH_MIN_LIKELIHOOD = 6;
/** Words dropped from a profile query; at most this many words are kept. */
const STOP_WORDS = new Set(['a', 'an', 'and', 'at', 'for', 'from', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'who', 'based', 'near']);
const MAX_PROFILE_WORDS = 8;
const PROFILE_URL_FIELDS = ['linkedin_url', 'github_url', 'twitter_url', 'facebook_url'];

type Json = Record<string, unknown>;
type Query = Json;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
/** A string value; PDL's free plans answer `true`/`false` in place of some values, which are not values. */
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
const lower = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

/** PDL writes URLs without a scheme (`linkedin.com/in/…`). */
export function absoluteUrl(url: string | null): string | null {
  if (!url) return null;
  return /^https?:\/\//i.test(url) ? url : `https://${url}`;
}

const anyOf = (clauses: Query[]): Query => ({ bool: { should: clauses, minimum_should_match: 1 } });
const term = (field: string, value: string): Query => ({ term: { [field]: value } });
const match = (field: string, value: string): Query => ({ match: { [field]: value } });

/**
 * The search for `people-search`: every given criterion must hold.
 * - name: the full name (`full_name`), or for a single word a first or last name;
 * - company: the current employer (`job_company_name`) or any past one (`experience.company.name`),
 *   or the employer's website when the company is given as a domain;
 * - location: the whole location (`location_name`) or its locality, region or country.
 */
export function peopleQuery(criteria: PersonCriteria): Query {
  const name = lower(criteria.name);
  const words = name.split(' ');
  const must: Query[] = [
    words.length === 1
      ? anyOf([term('first_name', name), term('last_name', name)])
      : anyOf([match('full_name', name), { bool: { must: [term('first_name', words[0]!), term('last_name', words.at(-1)!)] } }]),
  ];
  if (criteria.company?.trim()) {
    const company = lower(criteria.company);
    const domain = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(company);
    must.push(anyOf([match('job_company_name', company), match('experience.company.name', company), ...(domain ? [term('job_company_website', company)] : [])]));
  }
  if (criteria.location?.trim()) {
    const location = lower(criteria.location);
    must.push(anyOf([match('location_name', location), term('location_locality', location), term('location_region', location), term('location_country', location)]));
  }
  return { bool: { must } };
}

/** The words of a profile query that are searched: lower case, no stop words, each once, at most eight. */
export function profileWords(text: string): string[] {
  const words = lower(text)
    .split(/[^\p{L}\p{N}+#.-]+/u)
    .map((w) => w.replace(/^[.-]+|[.-]+$/g, ''))
    .filter((w) => w !== '' && !STOP_WORDS.has(w));
  return [...new Set(words)].slice(0, MAX_PROFILE_WORDS);
}

/**
 * The search for `profile-search`: each word of the query may match the current job title
 * (`job_title`, full text), a skill (`skills`), the current employer (`job_company_name`), the
 * industry, or the locality, region or country; a profile must match at least two thirds of the
 * words (rounded up), so a query reads as "all of this, give or take a word". Only people with a
 * public profile (LinkedIn, GitHub, X/Twitter or Facebook URL) are searched: the product sells profiles.
 */
export function profileQuery(words: string[]): Query {
  const clauses = words.map((w) =>
    anyOf([
      match('job_title', w),
      term('skills', w),
      term('job_company_name', w),
      term('industry', w),
      term('location_locality', w),
      term('location_region', w),
      term('location_country', w),
    ]),
  );
  const hasProfile = anyOf(PROFILE_URL_FIELDS.map((field) => ({ exists: { field } })));
  return { bool: { filter: [hasProfile], should: clauses, minimum_should_match: Math.ceil((clauses.length * 2) / 3) } };
}

export class PeopleDataLabs implements PeopleDataProvider {
  readonly name = 'People Data Labs';

  constructor(private readonly client: ProviderClient) {}

  search(criteria: PersonCriteria, limit: number, signal?: AbortSignal): Promise<PeopleSearchResult> {
    return this.query(peopleQuery(criteria), limit, signal);
  }

  searchProfiles(text: string, limit: number, signal?: AbortSignal): Promise<PeopleSearchResult> {
    const words = profileWords(text);
    if (words.length === 0) throw new ProductInputError('the query has no words to search once common words are left out', 422, 'query');
    return this.query(profileQuery(words), limit, signal);
  }

  async enrich(identifiers: PersonIdentifiers, signal?: AbortSignal): Promise<{ likelihood: number; record: PersonRecord } | undefined> {
    const answer = await this.client.request(
      {
        path: '/v5/person/enrich',
        query: { ...identifiers, min_likelihood: ENRICH_MIN_LIKELIHOOD, titlecase: true },
        // 404: no record matches (PDL does not bill it); 400: PDL could not use the identifiers.
        accept: [400, 404],
      },
      signal,
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 400) {
      const field = identifiers.profile ? 'profile_url' : identifiers.email ? 'email' : 'name';
      throw new ProductInputError('People Data Labs could not match on these identifiers (a profile URL or email it does not read)', 422, field);
    }
    const body = obj(answer.body);
    const likelihood = body.likelihood;
    if (typeof likelihood !== 'number') throw this.client.invalid('answered a match without its likelihood');
    if (likelihood < ENRICH_MIN_LIKELIHOOD) return undefined;
    return { likelihood, record: this.record(body.data) };
  }

  private async query(query: Query, limit: number, signal?: AbortSignal): Promise<PeopleSearchResult> {
    const answer = await this.client.request({ method: 'POST', path: '/v5/person/search', body: { query, size: limit, titlecase: true }, accept: [404] }, signal);
    if (answer.status === 404) return { total: 0, records: [] };
    const body = obj(answer.body);
    if (!Array.isArray(body.data)) throw this.client.invalid('answered a search without a data list');
    const records = body.data.slice(0, limit).map((d) => this.record(d));
    return { total: typeof body.total === 'number' ? body.total : records.length, records };
  }

  private record(data: unknown): PersonRecord {
    const d = obj(data);
    const id = str(d.id);
    if (!id) throw this.client.invalid('answered a person record without an id');
    const profiles: PublicProfile[] = [];
    for (const p of Array.isArray(d.profiles) ? d.profiles.map(obj) : []) {
      const url = absoluteUrl(str(p.url));
      const platform = str(p.network);
      if (url && platform && !profiles.some((known) => known.url === url)) profiles.push({ platform: platform.toLowerCase(), url, username: str(p.username) });
    }
    return {
      record_id: id,
      full_name: str(d.full_name),
      first_name: str(d.first_name),
      last_name: str(d.last_name),
      job_title: str(d.job_title),
      company: str(d.job_company_name),
      company_website: str(d.job_company_website),
      location: str(d.location_name),
      industry: str(d.industry),
      linkedin_url: absoluteUrl(str(d.linkedin_url)),
      profiles,
    };
  }
}
