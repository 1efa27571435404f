import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { normalizeRecord } from './normalize.ts';

/** Bounds of one record: more is not one person. */
const MAX_FIELDS = 50;
const MAX_VALUE_CHARS = 2_000;

const nullableText = (what: string) => z.string().nullable().describe(what);

export const peopleRecordNormalizeOutput = z.object({
  normalized: z
    .object({
      name: z
        .object({
          full: z.string().describe('The whole name in canonical order and case'),
          prefix: nullableText('Honorific, e.g. "Dr."'),
          given: nullableText('Given (first) name'),
          middle: nullableText('Middle names'),
          family: nullableText('Family (last) name, particles included ("van Beethoven")'),
          suffix: nullableText('Suffix, e.g. "Jr." or "PhD"'),
        })
        .nullable()
        .describe('The person\'s name split into parts'),
      emails: z
        .array(
          z.object({
            input: z.string().describe('As given'),
            normalized: z.string().describe('Trimmed and lower-cased'),
            canonical: z.string().describe('The mailbox it delivers to, where the provider documents it (Gmail dots and +tags, others\' +tags)'),
            rule: z.string().describe('The rule applied to reach `canonical`'),
          }),
        )
        .describe('Valid email addresses, one per mailbox'),
      phones: z
        .array(
          z.object({
            input: z.string().describe('As given'),
            e164: z.string().describe('E.164, e.g. "+14155550100"'),
            country: nullableText('ISO 3166-1 alpha-2 country of the number'),
            type: nullableText('mobile, fixed_line, fixed_line_or_mobile, toll_free… (libphonenumber)'),
            extension: nullableText('Extension, when given'),
          }),
        )
        .describe('Valid phone numbers in E.164'),
      address: z
        .object({
          street: nullableText('Street line'),
          unit: nullableText('Apartment, suite or floor'),
          city: nullableText('City'),
          region: nullableText('State, province or region (US states as their two-letter code)'),
          postal_code: nullableText('Postal code'),
          country: nullableText('ISO 3166-1 alpha-2 country'),
        })
        .nullable()
        .describe('Postal address in components; what the input did not give is null'),
      dates: z.record(z.string(), z.string()).describe('Dates by their record key, as ISO 8601 YYYY-MM-DD'),
      title: nullableText('Job title, abbreviations written out'),
      company: nullableText('Company, legal suffix in its usual form'),
      other: z.record(z.string(), z.unknown()).describe('Fields not recognised, passed on unchanged'),
    })
    .describe('The record in canonical shape'),
  fields: z
    .array(
      z.object({
        field: z.string().describe('Where the value is in `normalized`, e.g. "phones[0]"'),
        from: z.array(z.string()).describe('The record keys it was read from'),
        input: z.unknown().describe('The value as given'),
        output: z.unknown().describe('The normalized value'),
        changed: z.boolean().describe('Whether normalizing changed it'),
        confidence: z.number().min(0).max(1).describe('How sure the reading is, 0 to 1 (see `note`)'),
        note: z.string().describe('What was done and why'),
      }),
    )
    .describe('One entry per normalized value, with its confidence'),
  unparsed: z
    .array(z.object({ key: z.string().describe('Record key'), input: z.unknown().describe('The value'), reason: z.string().describe('Why it could not be read') }))
    .describe('Values that could not be parsed (they are not in `normalized`)'),
  changed: z.array(z.string()).describe('Record keys whose value changed'),
});

/** One person record in, its canonical shape out; local, no provider. */
export const peopleRecordNormalize = product({
  id: 'people-record-normalize',
  title: 'People record normalize',
  description:
    'Normalizes one person record (names, emails, phones, addresses, dates, title, company) into a canonical shape: names split and re-cased, emails lower-cased with each provider\'s documented dot and +tag rule, phones in E.164, addresses in components, dates in ISO 8601; with per-field confidence, the fields changed and any that could not be parsed.',
  price: '0.28',
  annotations: READ,
  input: z.object({
    record: z
      .record(z.string(), z.unknown())
      .superRefine((record, ctx) => {
        const keys = Object.keys(record);
        if (keys.length === 0) ctx.addIssue({ code: 'custom', message: 'the record has no fields' });
        if (keys.length > MAX_FIELDS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_FIELDS} fields per record` });
        for (const key of keys) {
          if (JSON.stringify(record[key] ?? null).length > MAX_VALUE_CHARS) ctx.addIssue({ code: 'custom', path: [key], message: `longer than ${MAX_VALUE_CHARS} characters` });
        }
      })
      .describe('The person record as loose key/value fields'),
  }),
  inputExample: {
    record: { name: 'DOE, jane', email: 'Jane.Doe@Example.COM ', phone: '(415) 555-0100', title: 'vp eng' },
  },
  output: peopleRecordNormalizeOutput,
  outputExample: {
    normalized: {
      name: { full: 'Jane Doe', prefix: null, given: 'Jane', middle: null, family: 'Doe', suffix: null },
      emails: [{ input: 'Jane.Doe@Example.COM', normalized: 'jane.doe@example.com', canonical: 'jane.doe@example.com', rule: 'lower-cased; dots and +tags kept (the provider of this domain does not document ignoring them)' }],
      phones: [{ input: '(415) 555-0100', e164: '+14155550100', country: 'US', type: 'fixed_line_or_mobile', extension: null }],
      address: null,
      dates: {},
      title: 'VP Engineering',
      company: null,
      other: {},
    },
    fields: [
      { field: 'name', from: ['name'], input: 'DOE, jane', output: 'Jane Doe', changed: true, confidence: 0.95, note: '"Last, First" order read from the comma; case repaired (words written all in one case)' },
      { field: 'emails[0]', from: ['email'], input: 'Jane.Doe@Example.COM', output: 'jane.doe@example.com', changed: true, confidence: 0.95, note: 'lower-cased; dots and +tags kept (the provider of this domain does not document ignoring them)' },
      { field: 'phones[0]', from: ['phone'], input: '(415) 555-0100', output: '+14155550100', changed: true, confidence: 0.6, note: 'national format and no country in the record: read as a US number' },
      { field: 'title', from: ['title'], input: 'vp eng', output: 'VP Engineering', changed: true, confidence: 0.75, note: 'abbreviations written out' },
    ],
    unparsed: [],
    changed: ['name', 'email', 'phone', 'title'],
  },
  run: async (input, ctx) => {
    const { normalized, fields, unparsed } = normalizeRecord(input.record, ctx.now);
    const changed = [...new Set(fields.filter((f) => f.changed).flatMap((f) => f.from))];
    return { normalized, fields, unparsed, changed };
  },
});
