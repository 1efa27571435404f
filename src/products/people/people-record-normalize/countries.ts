import { getCountries } from 'libphonenumber-js/max';

/** Country names (English) and common aliases to ISO 3166-1 alpha-2, from the phone metadata's regions. */
const names = new Intl.DisplayNames(['en'], { type: 'region' });
const BY_NAME = new Map<string, string>();
for (const code of getCountries()) {
  BY_NAME.set(code.toLowerCase(), code);
  const name = names.of(code);
  if (name) BY_NAME.set(fold(name), code);
}
for (const [alias, code] of [
  ['usa', 'US'],
  ['u.s.a.', 'US'],
  ['u.s.', 'US'],
  ['united states of america', 'US'],
  ['america', 'US'],
  ['uk', 'GB'],
  ['u.k.', 'GB'],
  ['great britain', 'GB'],
  ['england', 'GB'],
  ['scotland', 'GB'],
  ['wales', 'GB'],
  ['deutschland', 'DE'],
  ['holland', 'NL'],
  ['the netherlands', 'NL'],
  ['españa', 'ES'],
  ['schweiz', 'CH'],
  ['suisse', 'CH'],
  ['österreich', 'AT'],
  ['south korea', 'KR'],
  ['korea', 'KR'],
  ['russia', 'RU'],
  ['uae', 'AE'],
] as const) BY_NAME.set(fold(alias), code);

function fold(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** The ISO alpha-2 code of a country name, alias or code; undefined when unknown. */
export function countryCode(text: string | undefined): string | undefined {
  if (!text) return undefined;
  return BY_NAME.get(fold(text)) ?? BY_NAME.get(fold(text).replace(/\.$/, ''));
}
