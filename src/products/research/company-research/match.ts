/**
 * Which company a query names: a CIK, a ticker, or a name, read against EDGAR's list of listed filers,
 * then GLEIF's registry. Names are compared without case, punctuation and legal-form suffixes
 * ("Example Global, Inc." = "example global"); a name that only begins a listed name matches the
 * first such filer in EDGAR's order, and the others are named as candidates.
 */
import type { EdgarCompany, EdgarListing } from '../../../providers/filings/edgar.ts';
import type { LeiRecord } from '../../../providers/lei/gleif.ts';

const SUFFIXES = new Set(['inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'ltd', 'limited', 'plc', 'llc', 'lp', 'llp', 'sa', 'ag', 'nv', 'se', 'bv', 'gmbh', 'spa', 'ab', 'asa', 'oyj']);

/** A name for comparison: lower case, `&` as `and`, EDGAR's `/DE/` state tags and legal-form suffixes dropped. */
export function comparableName(name: string): string {
  const words = name
    .toLowerCase()
    .replace(/\/[a-z0-9]{1,3}\/?/g, ' ')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  if (words[0] === 'the' && words.length > 1) words.shift();
  while (words.length > 1 && SUFFIXES.has(words.at(-1)!)) words.pop();
  return words.join(' ');
}

/** A name as people write it: without its legal-form suffix ("Example Global, Inc." → "Example Global"). */
export function shortName(name: string): string {
  const words = name.trim().split(/\s+/);
  const bare = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  while (words.length > 1 && SUFFIXES.has(bare(words.at(-1)!))) words.pop();
  return words.join(' ').replace(/[,;]+$/, '');
}

export type EdgarMatch =
  | { by: 'cik'; cik: string }
  | { by: 'ticker' | 'name' | 'name_prefix'; cik: string; others: EdgarListing[] };

const CIK = /^(?:cik\s*)?(\d{1,10})$/i;
const TICKER = /^[A-Z]{1,5}(?:[.-][A-Z]{1,2})?$/i;

/** The filer a query names in EDGAR's ticker list (a CIK is taken as given); undefined when none. */
export function matchListing(query: string, listings: readonly EdgarListing[]): EdgarMatch | undefined {
  const cik = CIK.exec(query.replace(/\s+/g, ' ').trim());
  if (cik) return { by: 'cik', cik: cik[1]!.padStart(10, '0') };
  const distinct = (rows: EdgarListing[], except: string) => rows.filter((row, i) => row.cik !== except && rows.findIndex((r) => r.cik === row.cik) === i);
  if (TICKER.test(query)) {
    const ticker = query.toUpperCase().replace('.', '-');
    const hit = listings.find((row) => row.ticker === ticker);
    if (hit) return { by: 'ticker', cik: hit.cik, others: [] };
  }
  const wanted = comparableName(query);
  if (wanted === '') return undefined;
  const exact = listings.filter((row) => comparableName(row.name) === wanted);
  if (exact.length > 0) return { by: 'name', cik: exact[0]!.cik, others: distinct(exact, exact[0]!.cik) };
  if (wanted.length < 3) return undefined;
  const prefixed = listings.filter((row) => comparableName(row.name).startsWith(`${wanted} `));
  if (prefixed.length > 0) return { by: 'name_prefix', cik: prefixed[0]!.cik, others: distinct(prefixed, prefixed[0]!.cik).slice(0, 5) };
  return undefined;
}

const usState = (code: string | null) => (code && /^[A-Z]{2}$/.test(code) ? code : null);

/**
 * The GLEIF record that is this company: same comparable name (legal or other name) and, for a
 * company EDGAR says is incorporated in a US state, registered in that state. Active, issued
 * records first; undefined when none fits.
 */
export function matchLeiRecord(name: string, records: readonly LeiRecord[], edgar?: EdgarCompany): LeiRecord | undefined {
  const wanted = comparableName(name);
  const state = usState(edgar?.state_of_incorporation ?? null);
  const fits = records.filter(
    (r) => [r.legal_name, ...r.other_names].some((n) => comparableName(n) === wanted) && (!state || r.jurisdiction === null || r.jurisdiction === 'US' || r.jurisdiction === `US-${state}`),
  );
  const rank = (r: LeiRecord) => (r.entity_status === 'ACTIVE' ? 0 : 2) + (r.registration_status === 'ISSUED' ? 0 : 1);
  return [...fits].sort((a, b) => rank(a) - rank(b))[0];
}
