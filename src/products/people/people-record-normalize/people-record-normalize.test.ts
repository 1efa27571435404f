import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import { parseAddress } from './addresses.ts';
import { parseDate } from './dates.ts';
import { parseEmail } from './emails.ts';
import { parseName } from './names.ts';
import { parsePhone } from './phones.ts';
import { normalizeCompany, normalizeTitle } from './roles.ts';
import { peopleRecordNormalize } from './index.ts';

const now = new Date('2025-06-01T12:00:00Z');
const run = (record: Record<string, unknown>) => peopleRecordNormalize.run(peopleRecordNormalize.input.parse({ record }), fakeContext());

describe('people-record-normalize', () => {
  it('answers its published example with its published output', async () => {
    expect(await peopleRecordNormalize.run(peopleRecordNormalize.input.parse(peopleRecordNormalize.inputExample), fakeContext())).toEqual(peopleRecordNormalize.outputExample);
    expect(peopleRecordNormalize.output.safeParse(peopleRecordNormalize.outputExample).success).toBe(true);
    expect(peopleRecordNormalize.requires).toBeUndefined();
  });

  it.each([
    ['DOE, jane', { given: 'Jane', family: 'Doe', full: 'Jane Doe' }],
    ['Dr. Martin Luther King Jr.', { prefix: 'Dr.', given: 'Martin', middle: 'Luther', family: 'King', suffix: 'Jr.' }],
    ['LUDWIG VAN BEETHOVEN', { given: 'Ludwig', middle: null, family: 'van Beethoven' }],
    ["SEAN O'BRIEN", { given: 'Sean', family: "O'Brien" }],
    ['mary-kate mcdonald', { given: 'Mary-Kate', family: 'McDonald' }],
    ['Ronald McDonald', { given: 'Ronald', family: 'McDonald' }],
    ['Jean-Luc de la Fontaine', { given: 'Jean-Luc', family: 'de la Fontaine', middle: null }],
    ['ms  ada   lovelace', { prefix: 'Ms.', given: 'Ada', family: 'Lovelace' }],
    ['Smith, John Jr.', { given: 'John', family: 'Smith', suffix: 'Jr.' }],
    ['Jane Doe, PhD', { given: 'Jane', family: 'Doe', suffix: 'PhD' }],
    ['Cher', { given: 'Cher', family: null }],
  ])('name %j', (input, expected) => {
    expect(parseName(input)!.name).toMatchObject(expected);
  });

  it('names given in parts are trusted more than a guessed split', () => {
    const parts = parseName(undefined, { given: 'JOHN', family: 'SMITH' })!;
    expect(parts.name.full).toBe('John Smith');
    expect(parts.confidence).toBeGreaterThan(parseName('John Ronald Smith')!.confidence);
  });

  it.each([
    ['John.Smith+news@GoogleMail.com', 'john.smith+news@googlemail.com', 'johnsmith@gmail.com'],
    [' <J.Doe+x@outlook.com> ', 'j.doe+x@outlook.com', 'j.doe@outlook.com'],
    ['first.last+tag@example.com', 'first.last+tag@example.com', 'first.last+tag@example.com'],
    ['mailto:A@ICLOUD.COM', 'a@icloud.com', 'a@icloud.com'],
  ])('email %j', (input, normalized, canonical) => {
    expect(parseEmail(input)).toMatchObject({ normalized, canonical });
  });

  it.each(['not-an-email', 'a@b', 'two@@example.com', 'a..b@example.com'])('refuses email %j', (input) => {
    expect(parseEmail(input)).toBeUndefined();
  });

  it.each([
    ['(415) 555-0100', undefined, '+14155550100', 0.6],
    ['+44 20 7946 0018', undefined, '+442079460018', 0.97],
    ['0044 20 7946 0018', undefined, '+442079460018', 0.97],
    ['030 12345678', 'DE', '+493012345678', 0.9],
    ['06 12 34 56 78', 'FR', '+33612345678', 0.9],
  ] as const)('phone %j in %s', (input, country, e164, confidence) => {
    expect(parsePhone(input, country)).toMatchObject({ phone: { e164 }, confidence });
  });

  it('keeps an extension and refuses an invalid number', () => {
    expect(parsePhone('+1 415-555-0100 ext. 42', undefined)!.phone).toMatchObject({ e164: '+14155550100', extension: '42' });
    expect(parsePhone('12', 'US')).toBeUndefined();
    expect(parsePhone('+1 000 000 0000', undefined)).toBeUndefined();
  });

  it.each([
    ['1600 Amphitheatre Pkwy, Mountain View, CA 94043, USA', { street: '1600 Amphitheatre Pkwy', city: 'Mountain View', region: 'CA', postal_code: '94043', country: 'US' }],
    ['221b baker street, london nw1 6xe', { street: '221b Baker Street', city: 'London', postal_code: 'NW1 6XE', country: 'GB' }],
    ['Unter den Linden 77, 10117 Berlin, Germany', { street: 'Unter den Linden 77', city: 'Berlin', postal_code: '10117', country: 'DE' }],
    ['350 Fifth Avenue, Suite 3300, New York, New York 10118', { street: '350 Fifth Avenue', unit: 'Suite 3300', city: 'New York', region: 'NY', postal_code: '10118', country: 'US' }],
    ['12 rue de Rivoli, 75004 Paris, France', { city: 'Paris', postal_code: '75004', country: 'FR' }],
  ])('address %j', (input, expected) => {
    expect(parseAddress(input)!.address).toMatchObject(expected);
  });

  it.each([
    ['1985-03-04', undefined, '1985-03-04', 0.98],
    ['03/04/1985', 'US', '1985-03-04', 0.5],
    ['03/04/1985', 'GB', '1985-04-03', 0.5],
    ['04.03.1985', 'US', '1985-03-04', 0.5],
    ['31/12/1999', 'US', '1999-12-31', 0.9],
    ['March 4th, 1985', undefined, '1985-03-04', 0.95],
    ['4 Mar 85', undefined, '1985-03-04', 0.8],
    ['12/05/30', 'US', '1930-12-05', 0.5],
  ] as const)('date %j in %s', (input, country, iso, confidence) => {
    expect(parseDate(input, country, now)).toMatchObject({ iso, confidence });
  });

  it.each(['1985-02-30', '13/13/2000', 'yesterday'])('refuses date %j', (input) => {
    expect(parseDate(input, 'US', now)).toBeUndefined();
  });

  it('writes titles and company names in their usual form', () => {
    expect(normalizeTitle('vp eng')!.value).toBe('VP Engineering');
    expect(normalizeTitle('sr. software eng')!.value).toBe('Senior Software Engineer');
    expect(normalizeTitle('Head of Growth')!.value).toBe('Head of Growth');
    expect(normalizeCompany('acme corp')!.value).toBe('Acme Corp.');
    expect(normalizeCompany('IBM')!.value).toBe('IBM');
    expect(normalizeCompany('EXAMPLE HOLDINGS, INC')!.value).toBe('Example Holdings, Inc.');
  });

  it('reads a whole messy record: country drives phones and dates, duplicates fold, failures are listed', async () => {
    const out = await run({
      'First Name': 'JEAN',
      last_name: 'DUPONT',
      Email: 'Jean.Dupont+crm@gmail.com; jeandupont@gmail.com, bad@',
      mobile: '06 12 34 56 78',
      work_phone: '555',
      street: '12 RUE DE RIVOLI',
      zip: '75004',
      city: 'PARIS',
      country: 'France',
      date_of_birth: '04/03/1985',
      company: 'acme sarl',
      favourite_colour: 'blue',
    });
    expect(out.normalized.name).toMatchObject({ full: 'Jean Dupont' });
    expect(out.normalized.emails.map((e) => e.canonical)).toEqual(['jeandupont@gmail.com']);
    expect(out.normalized.phones).toEqual([{ input: '06 12 34 56 78', e164: '+33612345678', country: 'FR', type: 'mobile', extension: null }]);
    expect(out.normalized.address).toEqual({ street: '12 Rue De Rivoli', unit: null, city: 'Paris', region: null, postal_code: '75004', country: 'FR' });
    expect(out.normalized.dates).toEqual({ date_of_birth: '1985-03-04' });
    expect(out.normalized.company).toBe('Acme SARL');
    expect(out.normalized.other).toEqual({ favourite_colour: 'blue' });
    expect(out.unparsed.map((u) => u.key).sort()).toEqual(['Email', 'work_phone']);
    expect(out.fields.find((f) => f.field === 'dates.date_of_birth')!.confidence).toBe(0.5);
    expect(out.changed).toContain('mobile');
    expect(peopleRecordNormalize.output.safeParse(out).success).toBe(true);
  });

  it('refuses an empty record and an over-long value before running, naming the field', () => {
    const empty = peopleRecordNormalize.input.safeParse({ record: {} });
    expect(empty.success).toBe(false);
    const long = peopleRecordNormalize.input.safeParse({ record: { notes: 'x'.repeat(5_000) } });
    expect(long.error!.issues[0]!.path).toEqual(['record', 'notes']);
  });
});
