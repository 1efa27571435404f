import { addressFromFields, parseAddress, type AddressResult } from './addresses.ts';
import { countryCode } from './countries.ts';
import { parseDate } from './dates.ts';
import { parseEmail, type EmailResult } from './emails.ts';
import { parseName, type ParsedName } from './names.ts';
import { parsePhone, type PhoneResult } from './phones.ts';
import { normalizeCompany, normalizeTitle } from './roles.ts';

/** What each loose key of a record is, by its name (case, spaces, dashes and underscores ignored). */
type Role =
  | 'name' | 'given' | 'middle' | 'family' | 'email' | 'phone' | 'address'
  | 'street' | 'unit' | 'city' | 'region' | 'postal_code' | 'country' | 'date' | 'title' | 'company';

const EXACT: Record<string, Role> = {
  name: 'name', fullname: 'name', person: 'name', contactname: 'name', displayname: 'name', personname: 'name',
  firstname: 'given', givenname: 'given', first: 'given', fname: 'given', forename: 'given',
  middlename: 'middle', middle: 'middle', middleinitial: 'middle',
  lastname: 'family', surname: 'family', familyname: 'family', last: 'family', lname: 'family',
  address: 'address', fulladdress: 'address', postaladdress: 'address', mailingaddress: 'address', homeaddress: 'address', location: 'address',
  street: 'street', streetaddress: 'street', address1: 'street', addressline1: 'street', line1: 'street',
  address2: 'unit', addressline2: 'unit', line2: 'unit', unit: 'unit', apt: 'unit', suite: 'unit',
  city: 'city', town: 'city', locality: 'city',
  state: 'region', region: 'region', province: 'region', county: 'region', stateprovince: 'region',
  zip: 'postal_code', zipcode: 'postal_code', postalcode: 'postal_code', postcode: 'postal_code', postal: 'postal_code',
  country: 'country', countrycode: 'country', nation: 'country',
  title: 'title', jobtitle: 'title', position: 'title', role: 'title', occupation: 'title',
  company: 'company', companyname: 'company', organization: 'company', organisation: 'company', employer: 'company', org: 'company', business: 'company',
};

function roleOf(key: string): Role | undefined {
  const k = key.toLowerCase().replace(/[\s_.-]+/g, '');
  if (EXACT[k]) return EXACT[k];
  if (/e?mail/.test(k)) return 'email';
  if (/phone|mobile|cell|telephone|^tel|fax/.test(k)) return 'phone';
  if (/date|dob|birth|since$|^born/.test(k)) return 'date';
  return undefined;
}

export interface FieldReport {
  /** Where the value lands in `normalized`, e.g. `name`, `emails[0]`, `dates.dob`. */
  field: string;
  /** The record keys it came from. */
  from: string[];
  input: unknown;
  output: unknown;
  changed: boolean;
  /** 0..1: how sure the reading is (see `note`). */
  confidence: number;
  note: string;
}

export interface Unparsed {
  key: string;
  input: unknown;
  reason: string;
}

export interface Normalized {
  name: ParsedName | null;
  emails: EmailResult[];
  phones: PhoneResult[];
  address: AddressResult | null;
  dates: Record<string, string>;
  title: string | null;
  company: string | null;
  /** Keys this product does not recognise, passed on unchanged. */
  other: Record<string, unknown>;
}

/** Strings of a value: a string, a number (phones, zips), or a list of them; separators split lists of emails and phones. */
function texts(value: unknown, split: boolean): string[] | undefined {
  if (typeof value === 'string') return split ? value.split(/[;\n]|,(?=\s*\S+@)|\s+\/\s+/).map((s) => s.trim()).filter(Boolean) : [value];
  if (typeof value === 'number' && Number.isFinite(value)) return [String(value)];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.map(String).flatMap((v) => texts(v, split) ?? []);
  return undefined;
}

export function normalizeRecord(record: Record<string, unknown>, now: Date): { normalized: Normalized; fields: FieldReport[]; unparsed: Unparsed[] } {
  const fields: FieldReport[] = [];
  const unparsed: Unparsed[] = [];
  const normalized: Normalized = { name: null, emails: [], phones: [], address: null, dates: {}, title: null, company: null, other: {} };
  const byRole = new Map<Role, [string, unknown][]>();
  for (const [key, value] of Object.entries(record)) {
    const role = roleOf(key);
    if (!role || value === null || value === undefined || value === '') {
      if (!role) normalized.other[key] = value;
      continue;
    }
    byRole.set(role, [...(byRole.get(role) ?? []), [key, value]]);
  }
  const one = (role: Role): [string, string] | undefined => {
    const entries = byRole.get(role) ?? [];
    for (const [key, value] of entries.slice(1)) unparsed.push({ key, input: value, reason: `a second ${role} field; only the first (${entries[0]![0]}) is read` });
    const first = entries[0];
    if (!first) return undefined;
    const text = texts(first[1], false);
    if (!text || text.length !== 1) {
      unparsed.push({ key: first[0], input: first[1], reason: 'expected one text value' });
      return undefined;
    }
    return [first[0], text[0]!];
  };

  // The country first: phones, addresses and dates read national forms in it.
  const countryField = one('country');
  const recordCountry = countryField ? countryCode(countryField[1]) : undefined;
  if (countryField && !recordCountry) unparsed.push({ key: countryField[0], input: countryField[1], reason: 'not a country name or ISO code' });

  const nameField = one('name');
  const [given, middle, family] = [one('given'), one('middle'), one('family')];
  const nameKeys = [nameField, given, middle, family].filter((f): f is [string, string] => f !== undefined);
  if (nameKeys.length > 0) {
    const parsed = parseName(nameField?.[1], { given: given?.[1], middle: middle?.[1], family: family?.[1] });
    if (parsed) {
      normalized.name = parsed.name;
      const input = nameField ? nameField[1] : nameKeys.map(([, v]) => v).join(' ');
      fields.push({ field: 'name', from: nameKeys.map(([k]) => k), input, output: parsed.name.full, changed: parsed.name.full !== input, confidence: parsed.confidence, note: parsed.notes.join('; ') || 'already in canonical form' });
    } else for (const [key, value] of nameKeys) unparsed.push({ key, input: value, reason: 'no letters in the name' });
  }

  for (const [key, value] of byRole.get('email') ?? []) {
    for (const text of texts(value, true) ?? []) {
      const email = parseEmail(text);
      if (!email) {
        unparsed.push({ key, input: text, reason: 'not an email address' });
        continue;
      }
      if (normalized.emails.some((e) => e.canonical === email.canonical)) continue;
      fields.push({ field: `emails[${normalized.emails.length}]`, from: [key], input: text, output: email.normalized, changed: email.normalized !== text, confidence: 0.95, note: email.rule });
      normalized.emails.push(email);
    }
    if (!texts(value, true)) unparsed.push({ key, input: value, reason: 'expected text' });
  }

  const addressLine = one('address');
  const components = { street: one('street'), unit: one('unit'), city: one('city'), region: one('region'), postal_code: one('postal_code') };
  const componentKeys = Object.values(components).filter((c): c is [string, string] => c !== undefined);
  if (componentKeys.length > 0) {
    const parsed = addressFromFields({ ...Object.fromEntries(Object.entries(components).map(([k, v]) => [k, v?.[1]])), country: countryField?.[1] });
    normalized.address = parsed.address;
    fields.push({ field: 'address', from: [...componentKeys.map(([k]) => k), ...(countryField ? [countryField[0]] : [])], input: componentKeys.map(([, v]) => v).join(', '), output: parsed.address, changed: true, confidence: parsed.confidence, note: parsed.note });
    if (addressLine) normalized.other[addressLine[0]] = addressLine[1];
  } else if (addressLine) {
    const parsed = parseAddress(addressLine[1], countryField?.[1]);
    if (parsed) {
      normalized.address = parsed.address;
      fields.push({ field: 'address', from: [addressLine[0]], input: addressLine[1], output: parsed.address, changed: true, confidence: parsed.confidence, note: parsed.note });
    } else unparsed.push({ key: addressLine[0], input: addressLine[1], reason: 'not an address' });
  } else if (recordCountry) normalized.address = { street: null, unit: null, city: null, region: null, postal_code: null, country: recordCountry };
  const country = normalized.address?.country ?? recordCountry;

  for (const [key, value] of byRole.get('phone') ?? []) {
    const list = texts(value, true);
    if (!list) unparsed.push({ key, input: value, reason: 'expected text' });
    for (const text of list ?? []) {
      const parsed = parsePhone(text, country);
      if (!parsed) {
        unparsed.push({ key, input: text, reason: `not a valid phone number${country ? ` for ${country}` : ''}` });
        continue;
      }
      if (normalized.phones.some((p) => p.e164 === parsed.phone.e164 && p.extension === parsed.phone.extension)) continue;
      fields.push({ field: `phones[${normalized.phones.length}]`, from: [key], input: text, output: parsed.phone.e164, changed: parsed.phone.e164 !== text, confidence: parsed.confidence, note: parsed.note });
      normalized.phones.push(parsed.phone);
    }
  }

  for (const [key, value] of byRole.get('date') ?? []) {
    const text = texts(value, false)?.[0];
    const parsed = text ? parseDate(text, country, now) : undefined;
    if (!parsed) {
      unparsed.push({ key, input: value, reason: 'not a calendar date' });
      continue;
    }
    normalized.dates[key] = parsed.iso;
    fields.push({ field: `dates.${key}`, from: [key], input: text, output: parsed.iso, changed: parsed.iso !== text, confidence: parsed.confidence, note: parsed.note });
  }

  for (const [role, parse] of [['title', normalizeTitle], ['company', normalizeCompany]] as const) {
    const field = one(role);
    if (!field) continue;
    const parsed = parse(field[1]);
    if (!parsed) {
      unparsed.push({ key: field[0], input: field[1], reason: `not a ${role}` });
      continue;
    }
    normalized[role] = parsed.value;
    fields.push({ field: role, from: [field[0]], input: field[1], output: parsed.value, changed: parsed.value !== field[1], confidence: parsed.confidence, note: parsed.note });
  }
  return { normalized, fields, unparsed };
}
