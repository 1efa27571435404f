import { countryCode } from './countries.ts';

/** A postal address in components; a component the input did not give is null, never guessed. */
export interface AddressResult {
  street: string | null;
  unit: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string | null;
}

const US_STATES: Record<string, string> = Object.fromEntries(
  'AL Alabama,AK Alaska,AZ Arizona,AR Arkansas,CA California,CO Colorado,CT Connecticut,DE Delaware,DC District of Columbia,FL Florida,GA Georgia,HI Hawaii,ID Idaho,IL Illinois,IN Indiana,IA Iowa,KS Kansas,KY Kentucky,LA Louisiana,ME Maine,MD Maryland,MA Massachusetts,MI Michigan,MN Minnesota,MS Mississippi,MO Missouri,MT Montana,NE Nebraska,NV Nevada,NH New Hampshire,NJ New Jersey,NM New Mexico,NY New York,NC North Carolina,ND North Dakota,OH Ohio,OK Oklahoma,OR Oregon,PA Pennsylvania,RI Rhode Island,SC South Carolina,SD South Dakota,TN Tennessee,TX Texas,UT Utah,VT Vermont,VA Virginia,WA Washington,WV West Virginia,WI Wisconsin,WY Wyoming,PR Puerto Rico'
    .split(',')
    .flatMap((entry) => {
      const code = entry.slice(0, 2);
      return [[code.toLowerCase(), code], [entry.slice(3).toLowerCase(), code]];
    }),
);

const POSTAL: Record<string, RegExp> = {
  US: /^\d{5}(-\d{4})?$/,
  CA: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i,
  GB: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i,
};
const UNIT = /^(apt|apartment|suite|ste|unit|#|floor|fl|room|rm|flat)\b\.?/i;

const tidy = (text: string | undefined) => text?.trim().replace(/\s+/g, ' ') || null;
/** Title case for text written all in one case; mixed case is kept as written. */
const recase = (text: string | null) =>
  text && (text === text.toUpperCase() || text === text.toLowerCase()) ? text.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_, s: string, l: string) => s + l.toUpperCase()) : text;

function region(text: string | null, country: string | null): string | null {
  if (!text) return null;
  if (country === 'US' || (!country && US_STATES[text.toLowerCase()])) return US_STATES[text.toLowerCase()] ?? recase(text);
  return text.length <= 3 ? text.toUpperCase() : recase(text);
}

function postal(text: string | null, country: string | null): string | null {
  if (!text) return null;
  const upper = text.toUpperCase();
  if (country === 'GB' || country === 'CA') return upper.replace(/^(.+?) ?(\w{3})$/, '$1 $2');
  return upper;
}

/** "[city] <region> <postal>" as US and Canadian addresses end; the region may be a state's name of several words. */
function splitRegionPostal(text: string): { city: string | null; region: string; postal: string } | undefined {
  const m = /^(.*?)\s+(\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d)$/i.exec(text);
  if (!m) return undefined;
  const words = m[1]!.split(' ');
  for (let take = Math.min(3, words.length); take >= 1; take--) {
    const region = words.slice(-take).join(' ');
    if (US_STATES[region.toLowerCase()]) return { city: words.slice(0, -take).join(' ') || null, region, postal: m[2]! };
  }
  // A Canadian province or another two-letter region.
  if (/^[A-Za-z]{2}$/.test(words.at(-1)!)) return { city: words.slice(0, -1).join(' ') || null, region: words.at(-1)!, postal: m[2]! };
  return undefined;
}

export interface AddressParse {
  address: AddressResult;
  confidence: number;
  note: string;
}

/** Structured fields (street, city, state, zip, country…) as given, cleaned. */
export function addressFromFields(fields: { street?: string; unit?: string; city?: string; region?: string; postal_code?: string; country?: string }): AddressParse {
  const country = countryCode(fields.country) ?? null;
  const address: AddressResult = {
    street: recase(tidy(fields.street)),
    unit: tidy(fields.unit),
    city: recase(tidy(fields.city)),
    region: region(tidy(fields.region), country),
    postal_code: postal(tidy(fields.postal_code), country),
    country,
  };
  const unknownCountry = fields.country && !country;
  return { address, confidence: unknownCountry ? 0.7 : 0.9, note: unknownCountry ? `country "${fields.country}" not recognised` : 'components were separate fields' };
}

/**
 * One address line ("1600 Amphitheatre Pkwy, Mountain View, CA 94043, USA") read into components:
 * a trailing country, then "<region> <postal>" (US, Canada), a UK postcode, or "<postal> <city>"
 * (most of Europe), then city, unit and street. What cannot be placed stays in `street`.
 */
export function parseAddress(raw: string, countryHint?: string): AddressParse | undefined {
  const parts = raw.split(/[,\n]/).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0 || !/\p{L}/u.test(raw)) return undefined;
  let country = countryCode(parts.at(-1)) ?? null;
  if (country && parts.length > 1) parts.pop();
  else country = countryCode(countryHint) ?? null;
  let city: string | null = null;
  let regionText: string | null = null;
  let postalCode: string | null = null;
  const last = parts.length > 1 ? parts.at(-1)! : '';
  const regionPostal = splitRegionPostal(last);
  const postalCity = /^(\d{4,5}|[A-Z]{1,2}-?\d{4,5})\s+(\p{L}[\p{L} .'-]*)$/iu.exec(last);
  const cityPostal = /^(\p{L}[\p{L} .'-]*?)\s+([A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})$/iu.exec(last);
  if (regionPostal && (US_STATES[regionPostal.region.toLowerCase()] || /^[A-Z]/i.test(regionPostal.postal) || country === 'US' || country === 'CA')) {
    parts.pop();
    ({ city, region: regionText, postal: postalCode } = regionPostal);
    if (!country) country = /^\d/.test(postalCode) ? 'US' : 'CA';
    if (!city && parts.length > 1) city = parts.pop()!;
  } else if (cityPostal && (country === 'GB' || !country) && POSTAL.GB!.test(cityPostal[2]!)) {
    parts.pop();
    city = cityPostal[1]!;
    postalCode = cityPostal[2]!;
    country ??= 'GB';
  } else if (postalCity) {
    parts.pop();
    postalCode = postalCity[1]!;
    city = postalCity[2]!;
  } else if (parts.length > 1 && POSTAL.GB!.test(last) && (country === 'GB' || !country)) {
    postalCode = parts.pop()!;
    country ??= 'GB';
    if (parts.length > 1) city = parts.pop()!;
  } else if (parts.length > 1) city = parts.pop()!;
  let unit: string | null = null;
  const unitIndex = parts.findIndex((p, i) => i > 0 && UNIT.test(p));
  if (unitIndex > 0) unit = parts.splice(unitIndex, 1)[0]!;
  const address: AddressResult = {
    street: recase(tidy(parts.join(', '))),
    unit,
    city: recase(tidy(city ?? undefined)),
    region: region(tidy(regionText ?? undefined), country),
    postal_code: postal(postalCode, country),
    country,
  };
  const placed = [address.city, address.postal_code, address.country].filter(Boolean).length;
  const postalOk = !address.postal_code || !address.country || !POSTAL[address.country] || POSTAL[address.country]!.test(address.postal_code);
  const confidence = postalOk ? [0.4, 0.55, 0.7, 0.85][placed]! : 0.5;
  const note = postalOk ? `read from one line: ${placed} of city, postal code and country found` : `postal code ${address.postal_code} does not have the form used in ${address.country}`;
  return { address, confidence, note };
}
