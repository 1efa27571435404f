import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, dataProvider, product, trimmedText } from '../../kit/index.ts';
import { isValidLei } from '../../../providers/lei/gleif.ts';

const address = z
  .object({
    lines: z.array(z.string()).describe('Street lines'),
    city: z.string().nullable().describe('City'),
    region: z.string().nullable().describe('Region code (ISO 3166-2), when registered'),
    postal_code: z.string().nullable().describe('Postal code'),
    country: z.string().nullable().describe('ISO 3166-1 alpha-2 country'),
  })
  .describe('An address as registered');
const parent = z.object({ lei: z.string().describe('Parent LEI'), legal_name: z.string().describe('Parent legal name') }).nullable();

export const leiResolveOutput = z.object({
  query: z.string().describe('The query as read'),
  match: z.enum(['lei', 'name']).describe('`lei`: the query was an LEI code; `name`: a full-text search of the registry'),
  records: z
    .array(
      z.object({
        lei: z.string().describe('The 20-character LEI'),
        legal_name: z.string().describe('Registered legal name'),
        other_names: z.array(z.string()).describe('Other registered names (trading, transliterated)'),
        entity_status: z.string().nullable().describe('ACTIVE or INACTIVE'),
        registration_status: z.string().nullable().describe('ISSUED, LAPSED, RETIRED…'),
        jurisdiction: z.string().nullable().describe('Legal jurisdiction (ISO 3166 code)'),
        category: z.string().nullable().describe('GENERAL, FUND, BRANCH…'),
        legal_form: z.string().nullable().describe('ISO 20275 entity legal form code'),
        legal_address: address,
        headquarters_address: address,
        registered_at: z.string().nullable().describe('First registration, ISO 8601'),
        last_updated_at: z.string().nullable().describe('Last update of the record, ISO 8601'),
        next_renewal_at: z.string().nullable().describe('Next renewal due, ISO 8601'),
        source_url: z.string().describe('The record on GLEIF\'s search site'),
        parents: z
          .object({ direct: parent.describe('Direct accounting parent, null when none is reported'), ultimate: parent.describe('Ultimate parent, null when none is reported') })
          .nullable()
          .describe('Reported parents; looked up on LEI queries only (null on name searches: resolve the LEI for them)'),
      }),
    )
    .describe('Matching records, best first; empty when a name matches nothing'),
  source: z.string().describe('The registry read'),
  retrieved_at: z.iso.datetime().describe('When the registry was read, ISO 8601'),
});

/** LEI records from GLEIF (keyless, on sale by default; identical lookups cached for GLEIF_CACHE_SECONDS, 1 h). */
export const leiResolve = product({
  id: 'lei-resolve',
  title: 'Legal entity (LEI) resolve',
  description:
    'Looks up a legal entity in the GLEIF LEI registry by name or 20-character LEI and returns the matching records: LEI, legal name, jurisdiction, addresses, status and, for an LEI, its direct and ultimate parents. An LEI with wrong check digits or not in the registry is 422, not charged; a name matching nothing is an empty list.',
  http: false,
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).max(200).refine(trimmedText, 'empty once trimmed').describe('Legal entity name or a 20-character LEI code'),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional()
      .describe('ISO 3166-1 alpha-2 country code to narrow a name search'),
  }),
  inputExample: { query: 'Example Global', country: 'US' },
  output: leiResolveOutput,
  outputExample: {
    query: 'Example Global',
    match: 'name',
    records: [
      {
        lei: '549300V5ZCHZ7G2YYX88',
        legal_name: 'Example Global, Inc.',
        other_names: [],
        entity_status: 'ACTIVE',
        registration_status: 'ISSUED',
        jurisdiction: 'US-DE',
        category: 'GENERAL',
        legal_form: 'XTIQ',
        legal_address: { lines: ['251 Little Falls Drive'], city: 'Wilmington', region: 'US-DE', postal_code: '19808', country: 'US' },
        headquarters_address: { lines: ['One Madison Avenue', 'Suite 2400'], city: 'New York', region: 'US-NY', postal_code: '10010', country: 'US' },
        registered_at: '2021-02-04T17:47:21Z',
        last_updated_at: '2025-02-07T21:25:59Z',
        next_renewal_at: '2026-02-04T17:47:21Z',
        source_url: 'https://search.gleif.org/#/record/549300V5ZCHZ7G2YYX88',
        parents: null,
      },
    ],
    source: 'GLEIF',
    retrieved_at: '2025-06-01T12:00:00.000Z',
  },
  requires: ['lei'],
  run: async (input, ctx) => {
    const gleif = dataProvider(ctx, 'lei');
    const query = input.query.trim();
    const compact = query.toUpperCase().replace(/\s+/g, '');
    const base = { query, source: gleif.name, retrieved_at: ctx.now.toISOString() };
    if (/^[A-Z0-9]{18}[0-9]{2}$/.test(compact)) {
      if (!isValidLei(compact)) throw new ProductInputError(`${compact} is not a valid LEI: its check digits do not match (ISO 17442)`, 422, 'query');
      const record = await gleif.byLei(compact, ctx.signal);
      if (!record) throw new ProductInputError(`no entity with the LEI ${compact} is in the GLEIF registry`, 422, 'query');
      const [direct, ultimate] = await Promise.all([gleif.parent(compact, 'direct', ctx.signal), gleif.parent(compact, 'ultimate', ctx.signal)]);
      return { ...base, match: 'lei' as const, records: [{ ...record, parents: { direct, ultimate } }] };
    }
    const records = await gleif.search(query, { limit: 10, ...(input.country ? { country: input.country } : {}) }, ctx.signal);
    return { ...base, match: 'name' as const, records: records.map((r) => ({ ...r, parents: null })) };
  },
});
