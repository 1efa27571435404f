/**
 * A stand-in for People Data Labs' Person API v5, for tests only: it speaks PDL's documented wire
 * format (`X-Api-Key`; `GET /v5/person/enrich` with `min_likelihood` and `titlecase`, 200
 * `{status, likelihood, data}` or 404; `POST /v5/person/search` with an Elasticsearch bool query and
 * `size` 1..100, 200 `{status, data, total, scroll_token}` or 404; errors as `{status, error: {type,
 * message}}`) over a few fictional people stored as PDL stores them (lower case, full records with
 * contact fields the adapter must never read). Searches are evaluated against the records, so a
 * test checks the query the adapter built, not only its shape.
 */
import { Hono, type Context } from 'hono';
import { createDataProviders, type DataProviders } from '../data.ts';
import { dataProviderSettingsFromEnv } from '../api/settings.ts';

export const PDL_DOUBLE_KEY = 'pdl-test-api-key-0123456789abcdef';

export interface SeenPdlRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

type Json = Record<string, unknown>;

const person = (fields: Json): Json => ({
  middle_initial: null,
  middle_name: null,
  sex: null,
  birth_year: 1988,
  birth_date: null,
  headline: null,
  job_title_role: 'engineering',
  job_title_levels: [],
  job_start_date: '2022-03',
  facebook_url: null,
  twitter_url: null,
  mobile_phone: '+442079460123',
  phone_numbers: ['+442079460123'],
  street_address: '1 example street',
  education: [],
  ...fields,
});

/** Fictional people (example domains, drama-range phone numbers), as PDL's index holds them. */
export const PDL_PEOPLE: Json[] = [
  person({
    id: 'qXmpl3JaneDoeLondon0001_0000',
    full_name: 'jane doe',
    first_name: 'jane',
    last_name: 'doe',
    job_title: 'head of engineering',
    job_company_name: 'example corp',
    job_company_website: 'example.com',
    industry: 'financial services',
    skills: ['stablecoin', 'payments', 'go', 'distributed systems'],
    location_name: 'london, england, united kingdom',
    location_locality: 'london',
    location_region: 'england',
    location_country: 'united kingdom',
    linkedin_url: 'linkedin.com/in/jane-doe-example',
    github_url: 'github.com/janedoe-example',
    work_email: 'jane.doe@example.com',
    personal_emails: ['jane.doe.private@example.net'],
    profiles: [
      { network: 'linkedin', id: null, url: 'linkedin.com/in/jane-doe-example', username: 'jane-doe-example' },
      { network: 'github', id: null, url: 'github.com/janedoe-example', username: 'janedoe-example' },
    ],
    experience: [{ company: { name: 'example corp', website: 'example.com' }, title: { name: 'head of engineering' }, is_primary: true, start_date: '2022-03', end_date: null }],
  }),
  person({
    id: 'qXmpl3JaneDoeBerlin0002_0000',
    full_name: 'jane doe',
    first_name: 'jane',
    last_name: 'doe',
    job_title: 'staff engineer, payments',
    job_company_name: 'example payments gmbh',
    job_company_website: 'example.org',
    industry: 'financial services',
    skills: ['payments', 'kotlin'],
    location_name: 'berlin, berlin, germany',
    location_locality: 'berlin',
    location_region: 'berlin',
    location_country: 'germany',
    linkedin_url: 'linkedin.com/in/janedoe-berlin-example',
    work_email: 'jane@example.org',
    personal_emails: [],
    profiles: [{ network: 'linkedin', id: null, url: 'linkedin.com/in/janedoe-berlin-example', username: 'janedoe-berlin-example' }],
    experience: [
      { company: { name: 'example payments gmbh', website: 'example.org' }, title: { name: 'staff engineer, payments' }, is_primary: true, start_date: '2023-01', end_date: null },
      { company: { name: 'example corp', website: 'example.com' }, title: { name: 'software engineer' }, is_primary: false, start_date: '2018-05', end_date: '2022-12' },
    ],
  }),
  person({
    id: 'qXmpl3RichardMiles0003_0000',
    full_name: 'richard miles',
    first_name: 'richard',
    last_name: 'miles',
    job_title: 'staff engineer',
    job_company_name: 'sample labs',
    job_company_website: 'example.net',
    industry: 'computer software',
    skills: ['payments', 'rust'],
    location_name: 'berlin, berlin, germany',
    location_locality: 'berlin',
    location_region: 'berlin',
    location_country: 'germany',
    linkedin_url: null,
    github_url: 'github.com/rmiles-example',
    work_email: null,
    personal_emails: [],
    profiles: [{ network: 'github', id: null, url: 'github.com/rmiles-example', username: 'rmiles-example' }],
    experience: [
      { company: { name: 'sample labs', website: 'example.net' }, title: { name: 'staff engineer' }, is_primary: true, start_date: '2021-01', end_date: null },
      { company: { name: 'example analytics', website: null }, title: { name: 'engineer' }, is_primary: false, start_date: '2016-01', end_date: '2020-12' },
    ],
  }),
];

/** Keyword fields match whole values; `job_title` is full text (any word matches), as in PDL's mapping. */
const TEXT_FIELDS = new Set(['job_title']);
const TITLECASED = ['full_name', 'first_name', 'last_name', 'job_title', 'job_company_name', 'location_name', 'location_locality', 'location_region', 'location_country', 'industry'];

function values(record: unknown, path: string[]): unknown[] {
  if (Array.isArray(record)) return record.flatMap((r) => values(r, path));
  if (path.length === 0) return [record];
  if (typeof record !== 'object' || record === null) return [];
  return values((record as Json)[path[0]!], path.slice(1));
}

const words = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

class InvalidQuery extends Error {}

/** Elasticsearch's bool, term and match, as far as the adapter uses them. */
function matches(query: Json, record: Json): boolean {
  const [kind, spec] = Object.entries(query)[0] ?? [];
  if (kind === 'bool') {
    const b = spec as Json;
    const list = (key: string) => (Array.isArray(b[key]) ? (b[key] as Json[]) : b[key] ? [b[key] as Json] : []);
    const should = list('should');
    const minimum = typeof b.minimum_should_match === 'number' ? b.minimum_should_match : list('must').length || list('filter').length ? 0 : 1;
    return (
      [...list('must'), ...list('filter')].every((q) => matches(q, record)) &&
      !list('must_not').some((q) => matches(q, record)) &&
      (should.length === 0 || should.filter((q) => matches(q, record)).length >= minimum)
    );
  }
  if (kind === 'term' || kind === 'match') {
    const [field, value] = Object.entries(spec as Json)[0] ?? [];
    if (!field || typeof value !== 'string') throw new InvalidQuery(`${kind} needs a field and a string`);
    const stored = values(record, field.split('.')).filter((v): v is string => typeof v === 'string');
    if (kind === 'match' && TEXT_FIELDS.has(field)) return stored.some((s) => words(value).some((w) => words(s).includes(w)));
    return stored.includes(value);
  }
  if (kind === 'exists') {
    const field = (spec as Json).field;
    if (typeof field !== 'string') throw new InvalidQuery('exists needs a field');
    return values(record, field.split('.')).some((v) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0));
  }
  throw new InvalidQuery(`query type ${kind} is not supported`);
}

const titleCase = (text: string) => text.replace(/\p{L}+/gu, (w) => w[0]!.toUpperCase() + w.slice(1));

function answerRecord(record: Json, titlecase: boolean): Json {
  if (!titlecase) return record;
  const out: Json = { ...record };
  for (const field of TITLECASED) if (typeof out[field] === 'string') out[field] = titleCase(out[field]);
  return out;
}

const bare = (url: string) => url.toLowerCase().replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/\/+$/, '');

/** PDL's enrichment match: the identifier given, with a likelihood (1–10) of our invention per kind of match. */
function enrichMatch(params: Record<string, string>): { record: Json; likelihood: number } | undefined {
  const candidates: { record: Json; likelihood: number }[] = [];
  for (const record of PDL_PEOPLE) {
    const emails = [record.work_email, ...(record.personal_emails as string[])].filter((e): e is string => typeof e === 'string');
    if (params.email && emails.includes(params.email.toLowerCase())) candidates.push({ record, likelihood: 9 });
    const urls = [record.linkedin_url, ...values(record.profiles, ['url'])].filter((u): u is string => typeof u === 'string').map(bare);
    if (params.profile && urls.includes(bare(params.profile))) candidates.push({ record, likelihood: 10 });
    if (params.name && params.company && record.full_name === params.name.toLowerCase()) {
      const company = params.company.toLowerCase();
      if (record.job_company_name === company || record.job_company_website === company) candidates.push({ record, likelihood: 8 });
      else if (values(record.experience, ['company', 'name']).includes(company)) candidates.push({ record, likelihood: 5 });
    }
  }
  return candidates.sort((a, b) => b.likelihood - a.likelihood)[0];
}

export interface PdlDouble {
  app: Hono;
  fetch: typeof fetch;
  requests: SeenPdlRequest[];
  /** Answer this status (500, 429…) to every request until cleared. */
  failWith?: number;
  /** Answer every match with this likelihood, whatever `min_likelihood` asked. */
  forceLikelihood?: number;
  /** Env pointing the PDL adapter at `base` (the double's origin). */
  env(base: string): Record<string, string>;
  /** Data providers over the double in process: PDL only, with `extra` env on top. */
  providers(extra?: Record<string, string>, now?: () => number): DataProviders;
}

const error = (c: Context, status: number, type: string, message: string) => c.json({ status, error: { type, message } }, status as 400);

export function pdlDouble(): PdlDouble {
  const app = new Hono();
  const double = { requests: [] as SeenPdlRequest[] } as PdlDouble;

  app.use('/pdl/*', async (c, next) => {
    const url = new URL(c.req.url);
    const body = c.req.method === 'POST' ? await c.req.raw.clone().json().catch(() => undefined) : undefined;
    double.requests.push({ method: c.req.method, path: url.pathname.replace(/^\/pdl/, ''), query: Object.fromEntries(url.searchParams), headers: Object.fromEntries(c.req.raw.headers), body });
    if (double.failWith === 429) return error(c, 429, 'rate_limit_error', 'An error occurred due to requests hitting the API too quickly: secret-provider-text');
    if (double.failWith) return c.text(`upstream exploded: secret-provider-text ${c.req.header('x-api-key') ?? ''}`, double.failWith as 500);
    if (c.req.header('x-api-key') !== PDL_DOUBLE_KEY) return error(c, 401, 'authentication_error', 'You did not provide a valid API key: secret-provider-text');
    await next();
  });

  app.get('/pdl/v5/person/enrich', (c) => {
    const params = c.req.query();
    if (!params.email && !params.profile && !(params.name && (params.company || params.location))) {
      return error(c, 400, 'invalid_request_error', 'Request object must contain enough identifiers to match a person');
    }
    const found = enrichMatch(params);
    const likelihood = double.forceLikelihood ?? found?.likelihood ?? 0;
    if (!found || (double.forceLikelihood === undefined && likelihood < Number(params.min_likelihood ?? 2))) return error(c, 404, 'not_found', 'No records were found matching your request');
    return c.json({ status: 200, likelihood, data: answerRecord(found.record, params.titlecase === 'true') });
  });

  app.post('/pdl/v5/person/search', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Json;
    const size = body.size ?? 1;
    if (typeof size !== 'number' || size < 1 || size > 100) return error(c, 400, 'invalid_request_error', 'size must be between 1 and 100');
    if ((body.query === undefined) === (body.sql === undefined)) return error(c, 400, 'invalid_request_error', 'Provide either query or sql');
    let found: Json[];
    try {
      found = PDL_PEOPLE.filter((record) => matches((body.query ?? {}) as Json, record));
    } catch (e) {
      if (e instanceof InvalidQuery) return error(c, 400, 'invalid_request_error', e.message);
      throw e;
    }
    if (found.length === 0) return error(c, 404, 'not_found', 'No records were found matching your search');
    const data = found.slice(0, size).map((r) => answerRecord(r, body.titlecase === true));
    return c.json({ status: 200, data, total: found.length, scroll_token: found.length > size ? `${size}$1.0` : null });
  });

  const fetchInProcess: typeof fetch = async (input, init) => app.fetch(new Request(input, init));
  double.app = app;
  double.fetch = fetchInProcess;
  double.env = (base) => ({ PDL_API_URL: `${base}/pdl`, PDL_API_KEY: PDL_DOUBLE_KEY });
  double.providers = (extra = {}, now = Date.now) =>
    createDataProviders(dataProviderSettingsFromEnv({ GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off', ...double.env('http://pdl.invalid'), ...extra }), now, fetchInProcess);
  return double;
}
