import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** A phone number in E.164, parsed with libphonenumber-js (Google's libphonenumber metadata). */
export interface PhoneResult {
  input: string;
  e164: string;
  country: string | null;
  type: string | null;
  extension: string | null;
}

export interface PhoneParse {
  phone: PhoneResult;
  confidence: number;
  note: string;
}

/**
 * Parses one number. An international number (`+…`, `00…`) needs no country; a national one is read
 * in `country` (from the record's address or country field) or, lacking one, in `fallback` with a
 * lower confidence and a note saying so. Invalid for its country: undefined.
 */
export function parsePhone(raw: string, country: string | undefined, fallback: CountryCode = 'US'): PhoneParse | undefined {
  const text = raw.trim().replace(/^00(?=[1-9])/, '+');
  if (!/\d/.test(text) || text.length > 64) return undefined;
  const international = text.startsWith('+');
  const region = (international ? undefined : (country as CountryCode | undefined)) ?? (international ? undefined : fallback);
  const parsed = parsePhoneNumberFromString(text, region ? { defaultCountry: region } : undefined);
  if (!parsed?.isValid()) return undefined;
  const phone: PhoneResult = { input: raw, e164: parsed.number, country: parsed.country ?? null, type: parsed.getType()?.toLowerCase() ?? null, extension: parsed.ext ?? null };
  if (international) return { phone, confidence: 0.97, note: 'international format: valid for its country code' };
  if (country) return { phone, confidence: 0.9, note: `national format read in ${country}, the record's country` };
  return { phone, confidence: 0.6, note: `national format and no country in the record: read as a ${fallback} number` };
}
