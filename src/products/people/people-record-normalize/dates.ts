/**
 * Dates to ISO 8601 (YYYY-MM-DD). Unambiguous forms first (ISO, year first, month names, a day over
 * 12); a slashed date whose day and month could swap ("03/04/1985") is read in the record's country
 * convention (month first in the US, day first elsewhere), with a low confidence and a note.
 */
export interface DateParse {
  iso: string;
  confidence: number;
  note: string;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_FIRST = new Set(['US', 'PH', 'FM', 'MH', 'PW']);

function iso(year: number, month: number, day: number): string | undefined {
  if (year < 1000 || year > 9999) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

/** A two-digit year: within the last century of `now` (people's dates are in the past). */
function fullYear(text: string, now: Date): number {
  const value = Number(text);
  if (text.length !== 2) return value;
  const century = Math.floor(now.getUTCFullYear() / 100) * 100;
  return century + value > now.getUTCFullYear() ? century - 100 + value : century + value;
}

function monthOf(word: string): number | undefined {
  const index = MONTHS.indexOf(word.toLowerCase().slice(0, 3));
  return index >= 0 && /^[a-z]+\.?$/i.test(word) ? index + 1 : undefined;
}

export function parseDate(raw: string, country: string | undefined, now: Date): DateParse | undefined {
  const text = raw.trim().replace(/(\d)(st|nd|rd|th)\b/gi, '$1').replace(/,/g, ' ').replace(/\s+/g, ' ');
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ][\d:.]+(?:Z|[+-][\d:]+)?)?$/.exec(text);
  if (m) {
    const out = iso(Number(m[1]), Number(m[2]), Number(m[3]));
    return out ? { iso: out, confidence: 0.98, note: 'year first' } : undefined;
  }
  m = /^(\d{1,2}) ([a-z]+\.?) (\d{2,4})$/i.exec(text) ?? null;
  if (m && monthOf(m[2]!)) {
    const out = iso(fullYear(m[3]!, now), monthOf(m[2]!)!, Number(m[1]));
    return out ? { iso: out, confidence: m[3]!.length === 2 ? 0.8 : 0.95, note: 'month named' } : undefined;
  }
  m = /^([a-z]+\.?) (\d{1,2}) (\d{2,4})$/i.exec(text);
  if (m && monthOf(m[1]!)) {
    const out = iso(fullYear(m[3]!, now), monthOf(m[1]!)!, Number(m[2]));
    return out ? { iso: out, confidence: m[3]!.length === 2 ? 0.8 : 0.95, note: 'month named' } : undefined;
  }
  m = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{2}|\d{4})$/.exec(text);
  if (!m) return undefined;
  const [a, b, year] = [Number(m[1]), Number(m[3]), fullYear(m[4]!, now)];
  const dotted = m[2] === '.';
  const yearNote = m[4]!.length === 2 ? ' (two-digit year read as the last century up to today)' : '';
  if (a > 12 || b > 12) {
    const out = a > 12 ? iso(year, b, a) : iso(year, a, b);
    return out ? { iso: out, confidence: m[4]!.length === 2 ? 0.8 : 0.9, note: `day over 12: ${a > 12 ? 'day' : 'month'} first${yearNote}` } : undefined;
  }
  // Dots are day first everywhere they are used (DE, CH, RU…); slashes follow the country.
  const monthFirst = !dotted && MONTH_FIRST.has(country ?? 'US');
  const out = monthFirst ? iso(year, a, b) : iso(year, b, a);
  if (!out) return undefined;
  if (a === b) return { iso: out, confidence: 0.9, note: `day and month equal${yearNote}` };
  const why = dotted ? 'dotted dates are day first' : country ? `the convention of ${country}` : 'no country in the record: the US convention';
  return { iso: out, confidence: 0.5, note: `ambiguous day and month: read ${monthFirst ? 'month' : 'day'} first (${why})${yearNote}` };
}
