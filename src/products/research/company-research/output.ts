import { z } from 'zod';
import { METRICS } from './financials.ts';
import { RISK_RULES } from './risks.ts';

const citationId = () => z.string().describe('The id of the citation (in `citations`) this rests on');

const edgarAddress = z
  .object({
    street: z.array(z.string()).describe('Street lines'),
    city: z.string().nullable().describe('City'),
    state_or_country: z.string().nullable().describe("US state code, or EDGAR's code of a country"),
    state_or_country_description: z.string().nullable().describe("EDGAR's description of that code"),
    postal_code: z.string().nullable().describe('ZIP or postal code'),
  })
  .nullable();

const leiAddress = z
  .object({
    lines: z.array(z.string()).describe('Street lines'),
    city: z.string().nullable().describe('City'),
    region: z.string().nullable().describe('Region (ISO 3166-2)'),
    postal_code: z.string().nullable().describe('Postal code'),
    country: z.string().nullable().describe('Country (ISO 3166-1 alpha-2)'),
  })
  .describe('An address as registered with GLEIF');

const reportedFact = z.object({
  value: z.number().describe('The value as filed'),
  period_start: z.string().nullable().describe('Start of the period (flows); null for a balance at a date'),
  period_end: z.string().describe('End of the period, or the date of a balance'),
  form: z.string().describe('Form of the filing that reported it (10-K, 20-F…)'),
  filed: z.string().describe('When that filing was filed, YYYY-MM-DD'),
  accession_number: z.string().describe('Accession number of that filing'),
  filing_url: z.string().describe("That filing's index page on EDGAR"),
});

export const companyResearchOutput = z.object({
  query: z.string().describe('The company as asked, trimmed'),
  company: z
    .object({
      name: z.string().describe('The company the report is about (its EDGAR name, else its GLEIF legal name)'),
      cik: z.string().nullable().describe('SEC Central Index Key, ten digits; null when EDGAR has no match'),
      lei: z.string().nullable().describe('Legal Entity Identifier, when GLEIF has a record that fits'),
      matched_by: z
        .enum(['cik', 'ticker', 'name', 'name_prefix', 'gleif_name'])
        .describe("How the query was matched: a CIK; a ticker or a name (without legal-form suffixes) in EDGAR's list of listed filers; `name_prefix`: a listed name beginning with the query (the first in EDGAR's order; see other_candidates); `gleif_name`: a legal name in GLEIF only"),
      other_candidates: z
        .array(z.object({ cik: z.string().describe('CIK'), name: z.string().describe('Name as EDGAR lists it'), ticker: z.string().describe('A ticker') }))
        .describe('Other listed filers the query also matched (at most 5); check them when the match is not the one meant'),
      citation: citationId(),
    })
    .describe('Which company this is and how it was found'),
  profile: z
    .object({
      sec: z
        .object({
          legal_name: z.string().describe('Name on EDGAR'),
          cik: z.string().describe('Central Index Key'),
          tickers: z.array(z.string()).describe('Tickers'),
          exchanges: z.array(z.string()).describe('Exchanges, in the order of the tickers'),
          sic: z.string().nullable().describe('Standard Industrial Classification code'),
          industry: z.string().nullable().describe("The SIC code's description"),
          entity_type: z.string().nullable().describe('EDGAR entity type (operating, …)'),
          filer_category: z.string().nullable().describe('Filer category (Large Accelerated Filer, …)'),
          state_of_incorporation: z.string().nullable().describe('State (or EDGAR country code) of incorporation'),
          fiscal_year_end: z.string().nullable().describe('Fiscal year end as MMDD'),
          business_address: edgarAddress.describe('Business address'),
          mailing_address: edgarAddress.describe('Mailing address'),
          phone: z.string().nullable().describe('Phone as filed'),
          website: z.string().nullable().describe('Website, when EDGAR has one'),
          lei: z.string().nullable().describe('LEI as given to EDGAR, when given'),
          former_names: z.array(z.object({ name: z.string().describe('Former name'), from: z.string().nullable().describe('Used from'), to: z.string().nullable().describe('Used until') })).describe('Former names'),
          citation: citationId(),
        })
        .nullable()
        .describe("The filer's profile from EDGAR submissions; null when EDGAR has no match"),
      gleif: z
        .object({
          lei: z.string().describe('Legal Entity Identifier'),
          legal_name: z.string().describe('Registered legal name'),
          other_names: z.array(z.string()).describe('Other registered names'),
          entity_status: z.string().nullable().describe('ACTIVE or INACTIVE'),
          registration_status: z.string().nullable().describe('ISSUED, LAPSED, RETIRED…'),
          jurisdiction: z.string().nullable().describe('Legal jurisdiction'),
          legal_form: z.string().nullable().describe('ISO 20275 legal form code'),
          legal_address: leiAddress,
          headquarters_address: leiAddress,
          next_renewal_at: z.string().nullable().describe('Next renewal of the LEI due'),
          matched_by: z.enum(['lei', 'name']).describe("`lei`: EDGAR's LEI field; `name`: the same legal name (and, for a US company, its state of incorporation)"),
          citation: citationId(),
        })
        .nullable()
        .describe('The legal entity in the GLEIF LEI registry; null when GLEIF is not configured or has no record that fits'),
    })
    .describe('Who the company is, by source'),
  financials: z
    .array(
      reportedFact.extend({
        metric: z.enum(METRICS.map((m) => m.metric) as [string, ...string[]]).describe('What the figure is'),
        concept: z.string().describe('The XBRL concept read (`us-gaap:Revenues`, `dei:EntityCommonStockSharesOutstanding`…)'),
        label: z.string().nullable().describe("The concept's label in EDGAR"),
        unit: z.string().describe('Unit (USD, another currency for some foreign filers, shares)'),
        fiscal_year: z.number().int().nullable().describe("Fiscal year of the filing that reported it (EDGAR's `fy`; a prior-year figure repeated in a later report carries the later year)"),
        fiscal_period: z.string().nullable().describe('Fiscal period of that filing (FY, Q1…)'),
        year_before: reportedFact.nullable().describe('The same concept for the year before, when filed'),
        change_pct: z.number().nullable().describe('Change from the year before, in percent'),
        citation: citationId(),
      }),
    )
    .describe('Latest annual figures from XBRL company facts (shares outstanding: the latest cover-page figure); empty when the filer has none'),
  filings: z
    .array(
      z.object({
        form: z.string().describe('Form type'),
        filing_date: z.string().describe('Filed, YYYY-MM-DD'),
        report_date: z.string().nullable().describe('Period of the report'),
        accession_number: z.string().describe('Accession number'),
        description: z.string().nullable().describe("The primary document's description"),
        document_url: z.string().nullable().describe('The primary document on EDGAR'),
        index_url: z.string().describe("The filing's index page on EDGAR"),
        citation: citationId(),
      }),
    )
    .describe('The 10 most recent filings, newest first'),
  news: z
    .array(
      z.object({
        title: z.string().describe('Title of the result'),
        url: z.string().describe('The page'),
        snippet: z.string().describe("The search provider's snippet"),
        published_at: z.string().nullable().describe('Publication time, when the provider gives one'),
        site: z.string().describe('Host name'),
        citation: citationId(),
      }),
    )
    .describe("Recent web results naming the company (title or snippet contains its name), at most 5; empty when none or when web search is not configured. Snippets are the search provider's, not ours"),
  risks: z
    .array(z.object({ rule: z.enum(RISK_RULES.map((r) => r.rule) as [string, ...string[]]).describe('The rule that fired (see risk_rules)'), finding: z.string().describe('What the data shows'), citations: z.array(citationId()).describe('Citations it rests on') }))
    .describe('Risks that fixed rules derive from the cited data; only these rules are applied, nothing read from filing text'),
  risk_rules: z
    .array(z.object({ rule: z.string().describe('Rule id'), checks: z.string().describe('What it checks'), evaluated: z.boolean().describe('Whether the data it needs was there') }))
    .describe('Every rule and whether it could be evaluated: a rule that was not cannot have fired'),
  sources: z
    .array(
      z.object({
        source: z.enum(['SEC EDGAR submissions', 'SEC EDGAR XBRL company facts', 'GLEIF', 'web search']).describe('Source'),
        status: z.enum(['used', 'no_match', 'no_data', 'not_configured']).describe('`used`; `no_match`: nothing there fits the company; `no_data`: the company has nothing of that kind; `not_configured` on this instance'),
        provider: z.string().nullable().describe('The provider that answered (web search)'),
      }),
    )
    .describe('Which sources were used and which were not'),
  citations: z
    .array(
      z.object({
        id: z.string().describe('Id the claims refer to'),
        source: z.enum(['SEC EDGAR company tickers', 'SEC EDGAR submissions', 'SEC EDGAR XBRL company facts', 'GLEIF LEI record', 'search result']).describe('Kind of source'),
        url: z.string().describe("The URL read (EDGAR's API documents), GLEIF's page of the record, or the search result's page as the provider listed it"),
        record_id: z.string().nullable().describe('Provider record id: CIK, LEI; null for search results'),
      }),
    )
    .describe('Every source a claim rests on'),
  retrieved_at: z.iso.datetime().describe('When the sources were read, ISO 8601'),
});

export type CompanyResearchOutput = z.infer<typeof companyResearchOutput>;
