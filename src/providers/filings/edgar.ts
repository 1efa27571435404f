/**
 * SEC EDGAR's public APIs (https://www.sec.gov/search-filings/edgar-application-programming-interfaces):
 * `www.sec.gov/files/company_tickers.json` (every listed filer: `{"0": {cik_str, ticker, title}, …}`),
 * `data.sec.gov/submissions/CIK##########.json` (the filer's profile and its recent filings as
 * column arrays under `filings.recent`) and `data.sec.gov/api/xbrl/companyfacts/CIK##########.json`
 * (every XBRL fact it filed, by taxonomy and concept, then by unit). Keyless; SEC asks for a
 * User-Agent with a contact email (the client sends it) and at most 10 requests a second. An unknown
 * CIK, or a filer without XBRL facts, is a 404.
 */
import type { ProviderClient, ProviderRequest } from '../api/client.ts';

export interface EdgarListing {
  /** Ten digits, zero-padded, as EDGAR's URLs take it. */
  cik: string;
  ticker: string;
  /** The filer's name as EDGAR lists it. */
  name: string;
}

export interface EdgarAddress {
  street: string[];
  city: string | null;
  /** A US state code, or EDGAR's code of a country. */
  state_or_country: string | null;
  state_or_country_description: string | null;
  postal_code: string | null;
}

export interface EdgarFiling {
  accession_number: string;
  form: string;
  filing_date: string;
  report_date: string | null;
  primary_document: string | null;
  description: string | null;
}

export interface EdgarCompany {
  cik: string;
  name: string;
  entity_type: string | null;
  sic: string | null;
  sic_description: string | null;
  tickers: string[];
  exchanges: string[];
  /** EDGAR's LEI field, when the filer gave one. */
  lei: string | null;
  filer_category: string | null;
  /** MMDD. */
  fiscal_year_end: string | null;
  state_of_incorporation: string | null;
  state_of_incorporation_description: string | null;
  business_address: EdgarAddress | null;
  mailing_address: EdgarAddress | null;
  phone: string | null;
  website: string | null;
  former_names: { name: string; from: string | null; to: string | null }[];
  /** Newest first, as EDGAR lists them. */
  recent_filings: EdgarFiling[];
}

/** One reported value of a concept (`start` only on durations). */
export interface EdgarFact {
  start: string | null;
  end: string;
  value: number;
  accession_number: string;
  /** The fiscal year and period of the filing that reported the value (EDGAR's `fy`, `fp`). */
  fiscal_year: number | null;
  fiscal_period: string | null;
  form: string;
  filed: string;
}

export interface EdgarConcept {
  /** `us-gaap:Revenues`, `dei:EntityCommonStockSharesOutstanding`… */
  concept: string;
  label: string | null;
  /** Values by unit (`USD`, `shares`, `USD/shares`…). */
  units: Record<string, EdgarFact[]>;
}

/** An answer with the URL it was read from, for citations. */
export interface Sourced<T> {
  url: string;
  value: T;
}

export interface CompanyFilingsProvider {
  readonly name: string;
  /** Every listed filer with its ticker, in EDGAR's order (one row per ticker). */
  listings(signal?: AbortSignal): Promise<Sourced<EdgarListing[]>>;
  /** The filer's profile and recent filings; undefined when EDGAR has no such CIK. */
  company(cik: string, signal?: AbortSignal): Promise<Sourced<EdgarCompany> | undefined>;
  /** The named concepts (`taxonomy:Concept`) the filer reported; undefined when it has no XBRL facts. */
  facts(cik: string, concepts: readonly string[], signal?: AbortSignal): Promise<Sourced<{ entity_name: string | null; concepts: EdgarConcept[] }> | undefined>;
  /** A filing's pages on EDGAR: the folder index and, when known, its primary document. */
  filingLinks(cik: string, accessionNumber: string, primaryDocument: string | null): { index_url: string; document_url: string | null };
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(str).filter((s): s is string => s !== null) : []);

/** A CIK as EDGAR's URLs take it: ten digits, zero-padded. */
export const paddedCik = (cik: string | number): string => String(cik).replace(/^0+/, '').padStart(10, '0');

function address(value: unknown): EdgarAddress | null {
  const a = obj(value);
  const street = [str(a.street1), str(a.street2)].filter((s): s is string => s !== null);
  if (street.length === 0 && !str(a.city)) return null;
  return { street, city: str(a.city), state_or_country: str(a.stateOrCountry), state_or_country_description: str(a.stateOrCountryDescription), postal_code: str(a.zipCode) };
}

/** `filings.recent` holds one array per field, index-aligned. */
function recentFilings(value: unknown): EdgarFiling[] {
  const recent = obj(value);
  const column = (name: string): unknown[] => (Array.isArray(recent[name]) ? (recent[name] as unknown[]) : []);
  const accession = column('accessionNumber');
  const [form, filed, report, document, description] = ['form', 'filingDate', 'reportDate', 'primaryDocument', 'primaryDocDescription'].map(column) as [unknown[], unknown[], unknown[], unknown[], unknown[]];
  const out: EdgarFiling[] = [];
  accession.forEach((number, i) => {
    const accessionNumber = str(number);
    const formName = str(form[i]);
    const filingDate = str(filed[i]);
    if (!accessionNumber || !formName || !filingDate) return;
    out.push({ accession_number: accessionNumber, form: formName, filing_date: filingDate, report_date: str(report[i]), primary_document: str(document[i]), description: str(description[i]) });
  });
  return out;
}

function factsOf(value: unknown): EdgarFact[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const f = obj(item);
    const end = str(f.end);
    const accession = str(f.accn);
    if (!end || !accession || typeof f.val !== 'number' || !Number.isFinite(f.val)) return [];
    return [{ start: str(f.start), end, value: f.val, accession_number: accession, fiscal_year: typeof f.fy === 'number' ? f.fy : null, fiscal_period: str(f.fp), form: str(f.form) ?? '', filed: str(f.filed) ?? '' }];
  });
}

export class SecEdgar implements CompanyFilingsProvider {
  readonly name = 'SEC EDGAR';

  constructor(private readonly client: ProviderClient) {}

  private async read(request: ProviderRequest, signal?: AbortSignal): Promise<Sourced<unknown> | undefined> {
    const answer = await this.client.request({ ...request, accept: [404] }, signal);
    if (answer.status === 404) return undefined;
    return { url: this.client.citedUrl(request), value: answer.body };
  }

  async listings(signal?: AbortSignal): Promise<Sourced<EdgarListing[]>> {
    // One document of every listed filer, refreshed by SEC about daily.
    const answer = await this.read({ origin: 'www', path: '/files/company_tickers.json', cacheTtlMs: 86_400_000 }, signal);
    const body = answer?.value;
    if (!answer || typeof body !== 'object' || body === null) throw this.client.invalid('answered the ticker list with something other than an object');
    const rows = Object.values(body as Json).flatMap((row) => {
      const r = obj(row);
      const ticker = str(r.ticker);
      const name = str(r.title);
      if ((typeof r.cik_str !== 'number' && typeof r.cik_str !== 'string') || !ticker || !name) return [];
      return [{ cik: paddedCik(r.cik_str), ticker: ticker.toUpperCase(), name }];
    });
    if (rows.length === 0) throw this.client.invalid('answered an empty ticker list');
    return { url: answer.url, value: rows };
  }

  async company(cik: string, signal?: AbortSignal): Promise<Sourced<EdgarCompany> | undefined> {
    const answer = await this.read({ path: `/submissions/CIK${paddedCik(cik)}.json` }, signal);
    if (!answer) return undefined;
    const b = obj(answer.value);
    const name = str(b.name);
    if (!name || (typeof b.cik !== 'string' && typeof b.cik !== 'number')) throw this.client.invalid('answered a submissions document without a name or CIK');
    const addresses = obj(b.addresses);
    return {
      url: answer.url,
      value: {
        cik: paddedCik(b.cik as string),
        name,
        entity_type: str(b.entityType),
        sic: str(b.sic),
        sic_description: str(b.sicDescription),
        tickers: strings(b.tickers),
        exchanges: strings(b.exchanges),
        lei: str(b.lei),
        filer_category: str(b.category),
        fiscal_year_end: str(b.fiscalYearEnd),
        state_of_incorporation: str(b.stateOfIncorporation),
        state_of_incorporation_description: str(b.stateOfIncorporationDescription),
        business_address: address(addresses.business),
        mailing_address: address(addresses.mailing),
        phone: str(b.phone),
        website: str(b.website),
        former_names: (Array.isArray(b.formerNames) ? b.formerNames : []).flatMap((n) => {
          const f = obj(n);
          const former = str(f.name);
          return former ? [{ name: former, from: str(f.from), to: str(f.to) }] : [];
        }),
        recent_filings: recentFilings(obj(b.filings).recent),
      },
    };
  }

  async facts(cik: string, concepts: readonly string[], signal?: AbortSignal): Promise<Sourced<{ entity_name: string | null; concepts: EdgarConcept[] }> | undefined> {
    // Large filers' documents run to megabytes: read once per call, not kept in the cache.
    const answer = await this.read({ path: `/api/xbrl/companyfacts/CIK${paddedCik(cik)}.json`, cacheTtlMs: 0 }, signal);
    if (!answer) return undefined;
    const b = obj(answer.value);
    if (typeof b.facts !== 'object' || b.facts === null) throw this.client.invalid('answered company facts without a facts object');
    const byTaxonomy = obj(b.facts);
    const found = concepts.flatMap((name) => {
      const [taxonomy, concept] = name.split(':') as [string, string];
      const c = obj(obj(byTaxonomy[taxonomy])[concept]);
      const units: Record<string, EdgarFact[]> = {};
      for (const [unit, list] of Object.entries(obj(c.units))) {
        const facts = factsOf(list);
        if (facts.length > 0) units[unit] = facts;
      }
      return Object.keys(units).length > 0 ? [{ concept: name, label: str(c.label), units }] : [];
    });
    return { url: answer.url, value: { entity_name: str(b.entityName), concepts: found } };
  }

  filingLinks(cik: string, accessionNumber: string, primaryDocument: string | null) {
    const folder = `${this.client.citedUrl({ origin: 'www', path: `/Archives/edgar/data/${Number(cik)}/${accessionNumber.replaceAll('-', '')}` })}`;
    return { index_url: `${folder}/${accessionNumber}-index.htm`, document_url: primaryDocument ? `${folder}/${encodeURIComponent(primaryDocument)}` : null };
  }
}
