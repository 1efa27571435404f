/**
 * A company report from EDGAR (the filer's profile, filings and XBRL figures), GLEIF (the legal
 * entity) and web search (recent results naming it), each claim tied to a citation: an EDGAR
 * document read, a GLEIF record id, or a search result. Nothing is written that the sources do
 * not hold; a source that is not configured or has nothing is said so in `sources`.
 */
import { ProductInputError, UpstreamError, dataProvider, type ProductContext } from '../../kit/index.ts';
import type { CompanyFilingsProvider, EdgarCompany, EdgarFact } from '../../../providers/filings/edgar.ts';
import { isValidLei, type LeiProvider, type LeiRecord } from '../../../providers/lei/gleif.ts';
import type { SearchResult } from '../../../providers/search/types.ts';
import { ALL_CONCEPTS, changePercent, latestFigures, type Figure } from './financials.ts';
import { comparableName, matchLeiRecord, matchListing, shortName, type EdgarMatch } from './match.ts';
import type { CompanyResearchOutput } from './output.ts';
import { RISK_RULES, assessRisks } from './risks.ts';

const RECENT_FILINGS = 10;
const NEWS_RESULTS = 5;

type Citation = CompanyResearchOutput['citations'][number];
type Source = CompanyResearchOutput['sources'][number];

/** Citations numbered S1, S2… in the order first used; the same source cited twice keeps its id. */
class Citations {
  readonly list: Citation[] = [];
  add(source: Citation['source'], url: string, recordId: string | null): string {
    const known = this.list.find((c) => c.source === source && c.url === url && c.record_id === recordId);
    if (known) return known.id;
    const id = `S${this.list.length + 1}`;
    this.list.push({ id, source, url, record_id: recordId });
    return id;
  }
}

interface Found {
  match: EdgarMatch | { by: 'gleif_name' };
  edgar?: { url: string; company: EdgarCompany; facts: Awaited<ReturnType<CompanyFilingsProvider['facts']>> };
  lei?: { record: LeiRecord; by: 'lei' | 'name' };
  listingsUrl?: string;
}

async function findCompany(query: string, edgar: CompanyFilingsProvider, gleif: LeiProvider | undefined, signal: AbortSignal): Promise<Found> {
  const listings = await edgar.listings(signal);
  const match = matchListing(query, listings.value);
  if (match) {
    // The facts are read alongside: a filer's XBRL facts do not depend on its profile.
    const [company, facts] = await Promise.all([edgar.company(match.cik, signal), edgar.facts(match.cik, ALL_CONCEPTS, signal)]);
    if (company) return { match, edgar: { url: company.url, company: company.value, facts }, listingsUrl: match.by === 'cik' ? undefined : listings.url };
    if (match.by !== 'cik') throw new UpstreamError('SEC EDGAR lists the company but answered no submissions for it');
  }
  const records = gleif && match?.by !== 'cik' ? await gleif.search(query, { limit: 10 }, signal) : [];
  const record = matchLeiRecord(query, records);
  if (record) return { match: { by: 'gleif_name' }, lei: { record, by: 'name' } };
  const where = gleif ? 'SEC EDGAR or the GLEIF LEI registry' : 'SEC EDGAR';
  throw new ProductInputError(`no company ${match?.by === 'cik' ? 'with that CIK' : 'by that name or ticker'} was found in ${where}`, 404, 'company');
}

/** The GLEIF record of an EDGAR filer: by the LEI EDGAR holds, else by the same legal name (and state). */
async function leiOf(company: EdgarCompany, gleif: LeiProvider, signal: AbortSignal): Promise<Found['lei']> {
  if (company.lei && isValidLei(company.lei)) {
    const record = await gleif.byLei(company.lei, signal);
    if (record) return { record, by: 'lei' };
  }
  const record = matchLeiRecord(company.name, await gleif.search(company.name, { limit: 10 }, signal), company);
  return record ? { record, by: 'name' } : undefined;
}

/** Web results whose title or snippet names the company. */
function namesCompany(result: SearchResult, name: string): boolean {
  return ` ${comparableName(`${result.title} ${result.snippet}`)} `.includes(` ${comparableName(name)} `);
}

export async function researchCompany(input: { company: string }, ctx: ProductContext): Promise<CompanyResearchOutput> {
  const edgar = dataProvider(ctx, 'filings');
  const gleif = ctx.data?.lei;
  const search = ctx.data?.webSearch;
  const query = input.company.trim();
  const citations = new Citations();

  const found = await findCompany(query, edgar, gleif, ctx.signal);
  const company = found.edgar?.company;
  const name = company?.name ?? found.lei!.record.legal_name;
  const facts = found.edgar?.facts;
  const [lei, news] = await Promise.all([
    found.lei ?? (company && gleif ? leiOf(company, gleif, ctx.signal) : undefined),
    search ? search.search(`"${shortName(name).replace(/"/g, '')}"`, 10, ctx.signal) : undefined,
  ]);

  const listingCitation = found.listingsUrl && citations.add('SEC EDGAR company tickers', found.listingsUrl, company!.cik);
  const submissionsCitation = found.edgar && citations.add('SEC EDGAR submissions', found.edgar.url, company!.cik);
  const factsCitation = facts && citations.add('SEC EDGAR XBRL company facts', facts.url, company!.cik);
  const gleifCitation = lei && citations.add('GLEIF LEI record', lei.record.source_url, lei.record.lei);
  const matchCitation = (listingCitation ?? submissionsCitation ?? gleifCitation)!;

  const reported = (fact: EdgarFact) => ({
    value: fact.value,
    period_start: fact.start,
    period_end: fact.end,
    form: fact.form,
    filed: fact.filed,
    accession_number: fact.accession_number,
    filing_url: edgar.filingLinks(company!.cik, fact.accession_number, null).index_url,
  });
  const figures: Figure[] | null = facts ? latestFigures(facts.value.concepts) : null;
  const financials = (figures ?? []).map((f) => ({
    metric: f.metric,
    concept: f.concept,
    label: f.label,
    unit: f.unit,
    ...reported(f.fact),
    fiscal_year: f.fact.fiscal_year,
    fiscal_period: f.fact.fiscal_period,
    year_before: f.prior ? reported(f.prior) : null,
    change_pct: changePercent(f),
    citation: factsCitation!,
  }));

  const filings = (company?.recent_filings ?? []).slice(0, RECENT_FILINGS).map((filing) => ({
    form: filing.form,
    filing_date: filing.filing_date,
    report_date: filing.report_date,
    accession_number: filing.accession_number,
    description: filing.description,
    ...edgar.filingLinks(company!.cik, filing.accession_number, filing.primary_document),
    citation: submissionsCitation!,
  }));

  const newsItems = (news?.results ?? [])
    .filter((r) => namesCompany(r, name))
    .slice(0, NEWS_RESULTS)
    .map((r) => ({ title: r.title, url: r.url, snippet: r.snippet, published_at: r.published_at, site: r.source, citation: citations.add('search result', r.url, null) }));

  const assessed = assessRisks({ figures, filings: company?.recent_filings ?? null, lei: lei?.record ?? null, now: ctx.now });
  const evidence = { facts: factsCitation, submissions: submissionsCitation, gleif: gleifCitation };

  const sources: Source[] = [
    { source: 'SEC EDGAR submissions', status: company ? 'used' : 'no_match', provider: null },
    { source: 'SEC EDGAR XBRL company facts', status: facts ? 'used' : company ? 'no_data' : 'no_match', provider: null },
    { source: 'GLEIF', status: !gleif ? 'not_configured' : lei ? 'used' : 'no_match', provider: null },
    { source: 'web search', status: news ? 'used' : 'not_configured', provider: news?.provider ?? null },
  ];

  return {
    query,
    company: {
      name,
      cik: company?.cik ?? null,
      lei: lei?.record.lei ?? null,
      matched_by: found.match.by,
      other_candidates: 'others' in found.match ? found.match.others.map((o) => ({ cik: o.cik, name: o.name, ticker: o.ticker })) : [],
      citation: matchCitation,
    },
    profile: {
      sec: company
        ? {
            legal_name: company.name,
            cik: company.cik,
            tickers: company.tickers,
            exchanges: company.exchanges,
            sic: company.sic,
            industry: company.sic_description,
            entity_type: company.entity_type,
            filer_category: company.filer_category,
            state_of_incorporation: company.state_of_incorporation,
            fiscal_year_end: company.fiscal_year_end,
            business_address: company.business_address,
            mailing_address: company.mailing_address,
            phone: company.phone,
            website: company.website,
            lei: company.lei,
            former_names: company.former_names,
            citation: submissionsCitation!,
          }
        : null,
      gleif: lei
        ? {
            lei: lei.record.lei,
            legal_name: lei.record.legal_name,
            other_names: lei.record.other_names,
            entity_status: lei.record.entity_status,
            registration_status: lei.record.registration_status,
            jurisdiction: lei.record.jurisdiction,
            legal_form: lei.record.legal_form,
            legal_address: lei.record.legal_address,
            headquarters_address: lei.record.headquarters_address,
            next_renewal_at: lei.record.next_renewal_at,
            matched_by: lei.by,
            citation: gleifCitation!,
          }
        : null,
    },
    financials,
    filings,
    news: newsItems,
    risks: assessed.risks.map((r) => ({ rule: r.rule, finding: r.finding, citations: [evidence[r.evidence]!] })),
    risk_rules: RISK_RULES.map((r) => ({ rule: r.rule, checks: r.checks, evaluated: assessed.evaluated.includes(r.rule) })),
    sources,
    citations: citations.list,
    retrieved_at: ctx.now.toISOString(),
  };
}
