import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../kit/fake-context.ts';
import type { DataProviders } from '../../../providers/data.ts';
import { EXAMPLE_LEI, providerDouble } from '../../../providers/provider-double.fixture.ts';
import { EXAMPLE_CIK, HOLDINGS_CIK } from '../../../providers/filings/edgar-double.fixture.ts';
import type { WebSearchProvider } from '../../../providers/search/types.ts';
import type { Figure } from './financials.ts';
import { comparableName, shortName } from './match.ts';
import { assessRisks } from './risks.ts';
import { companyResearch } from './index.ts';

const double = providerDouble();
const run = (company: string, data: DataProviders = double.providers()) => companyResearch.run(companyResearch.input.parse({ company }), fakeContext({ data }));
const noSearch = () => double.providers({ SEARXNG_URL: 'off', BRAVE_SEARCH_API_KEY: '' });

describe('company-research', () => {
  it('answers its published example: EDGAR profile, figures and filings, the GLEIF entity, each cited', async () => {
    const before = double.requests.length;
    const out = await run(companyResearch.inputExample!.company as string);
    expect(out).toEqual(companyResearch.outputExample);
    const sent = double.requests.slice(before).map((r) => `${r.provider} ${r.path}`);
    expect(sent).toEqual(
      expect.arrayContaining([
        'sec /files/company_tickers.json',
        `sec /submissions/CIK${EXAMPLE_CIK}.json`,
        `sec /api/xbrl/companyfacts/CIK${EXAMPLE_CIK}.json`,
        'gleif /api/v1/lei-records',
        'brave /res/v1/web/search',
      ]),
    );
    expect(double.requests.find((r) => r.provider === 'brave' && r.query.q === '"Example Global"')).toBeDefined();
    // Every claim points at a citation that is listed.
    const ids = new Set(out.citations.map((c) => c.id));
    const cited = [out.company.citation, out.profile.sec!.citation, out.profile.gleif!.citation, ...out.financials.map((f) => f.citation), ...out.filings.map((f) => f.citation), ...out.risks.flatMap((r) => r.citations)];
    for (const id of cited) expect(ids).toContain(id);
  });

  it('reads the latest annual figures only: a tagged fourth quarter, a 10-Q and an abandoned concept are passed over', async () => {
    const out = await run('EXGL');
    const revenue = out.financials.find((f) => f.metric === 'revenue')!;
    expect(revenue).toMatchObject({ concept: 'us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax', value: 1_250_000_000, period_start: '2024-01-01', period_end: '2024-12-31', form: '10-K', year_before: { value: 1_100_000_000, period_end: '2023-12-31' }, change_pct: 13.6 });
    expect(out.financials.find((f) => f.metric === 'total_assets')).toMatchObject({ value: 2_650_000_000, period_end: '2024-12-31' });
    expect(out.financials.find((f) => f.metric === 'shares_outstanding')).toMatchObject({ value: 213_100_000, form: '10-Q', year_before: null });
    expect(out.risks).toEqual([{ rule: 'net_loss', finding: 'Net loss of 42,000,000 USD for the fiscal year ended 2024-12-31 (10-K filed 2025-02-21).', citations: [revenue.citation] }]);
    expect(out.company).toMatchObject({ matched_by: 'ticker', cik: EXAMPLE_CIK, lei: EXAMPLE_LEI });
  });

  it('a filer without XBRL facts: profile and filings, the late-filing notice, facts rules not evaluated', async () => {
    const out = await run(`CIK ${Number(HOLDINGS_CIK)}`);
    expect(out.company).toMatchObject({ name: 'Example Holdings Corp', matched_by: 'cik', lei: null });
    expect(out.financials).toEqual([]);
    expect(out.risks).toEqual([{ rule: 'late_filing_notice', finding: expect.stringContaining('NT 10-K) on 2024-09-30'), citations: [out.profile.sec!.citation] }]);
    expect(out.risk_rules.filter((r) => r.evaluated).map((r) => r.rule)).toEqual(['late_filing_notice']);
    expect(out.sources).toEqual(expect.arrayContaining([{ source: 'SEC EDGAR XBRL company facts', status: 'no_data', provider: null }, { source: 'GLEIF', status: 'no_match', provider: null }]));
    expect(out.citations.map((c) => c.source)).toEqual(['SEC EDGAR submissions']);
  });

  it('a name beginning several listed names takes the first in EDGAR\'s order and names the others', async () => {
    const out = await run('example');
    expect(out.company).toMatchObject({ matched_by: 'name_prefix', cik: EXAMPLE_CIK, other_candidates: [{ cik: HOLDINGS_CIK, name: 'Example Holdings Corp', ticker: 'EXHC' }] });
  });

  it('a company only GLEIF knows: the legal entity alone, EDGAR said to have no match', async () => {
    const out = await run('Example Markets', noSearch());
    expect(out.company).toMatchObject({ name: 'Example Markets, Inc.', cik: null, matched_by: 'gleif_name' });
    expect(out.profile.sec).toBeNull();
    expect(out.filings).toEqual([]);
    expect(out.sources.map((s) => s.status)).toEqual(['no_match', 'no_match', 'used', 'not_configured']);
    expect(out.citations).toEqual([{ id: 'S1', source: 'GLEIF LEI record', url: expect.stringContaining('search.gleif.org'), record_id: out.company.lei }]);
  });

  it('a company neither EDGAR nor GLEIF knows is 404 naming `company`; without GLEIF only EDGAR is named', async () => {
    await expect(run('No Such Company Anywhere')).rejects.toMatchObject({ name: 'ProductInputError', status: 404, field: 'company', message: expect.stringContaining('GLEIF') });
    await expect(run('CIK 1234')).rejects.toMatchObject({ status: 404, field: 'company' });
    const error = (await run('No Such Company Anywhere', double.providers({ GLEIF_API_URL: 'off' })).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ status: 404, field: 'company' });
    expect(error.message).not.toContain('GLEIF');
    expect(companyResearch.input.safeParse({ company: '  ' }).success).toBe(false);
  });

  it('news: web results naming the company, each cited as a search result; others left out', async () => {
    const search: WebSearchProvider = {
      name: 'Stub Search',
      search: async () => ({
        provider: 'Stub Search',
        results: [
          { title: 'Example Global names a new CFO', url: 'https://news.invalid/exgl-cfo', snippet: 'The software maker said…', published_at: '2025-04-09T00:00:00.000Z', source: 'news.invalid' },
          { title: 'Global examples of markets', url: 'https://news.invalid/other', snippet: 'Nothing about the company.', published_at: null, source: 'news.invalid' },
        ],
      }),
    };
    const out = await run('Example Global', { ...double.providers(), webSearch: search });
    expect(out.news).toEqual([{ title: 'Example Global names a new CFO', url: 'https://news.invalid/exgl-cfo', snippet: 'The software maker said…', published_at: '2025-04-09T00:00:00.000Z', site: 'news.invalid', citation: expect.any(String) }]);
    expect(out.citations.find((c) => c.id === out.news[0]!.citation)).toMatchObject({ source: 'search result', url: 'https://news.invalid/exgl-cfo', record_id: null });
    expect(out.sources.at(-1)).toEqual({ source: 'web search', status: 'used', provider: 'Stub Search' });
  });

  it('an outage of EDGAR or GLEIF is a 502 and its text is not passed on', async () => {
    for (const provider of ['sec', 'gleif'] as const) {
      double.failWith[provider] = 500;
      try {
        const error = await run('Example Global').catch((e: unknown) => e);
        expect(error, provider).toMatchObject({ name: 'UpstreamError', status: 502 });
        expect(String((error as Error).message)).not.toContain('secret-provider-text');
      } finally {
        delete double.failWith[provider];
      }
    }
  });

  it('risk rules: revenue decline and a stockholders\' deficit from the figures alone', () => {
    const fact = (value: number, end: string) => ({ start: null, end, value, accession_number: 'a', fiscal_year: 2024, fiscal_period: 'FY', form: '10-K', filed: '2025-02-21' });
    const figures: Figure[] = [
      { metric: 'revenue', concept: 'us-gaap:Revenues', label: null, unit: 'USD', fact: fact(80, '2024-12-31'), prior: fact(100, '2023-12-31') },
      { metric: 'stockholders_equity', concept: 'us-gaap:StockholdersEquity', label: null, unit: 'USD', fact: fact(-5, '2024-12-31'), prior: null },
    ];
    const { risks, evaluated } = assessRisks({ figures, filings: null, lei: null, now: new Date('2025-06-01') });
    expect(risks.map((r) => r.rule)).toEqual(['revenue_decline', 'stockholders_deficit']);
    expect(risks[0]!.finding).toContain('fell 20%');
    expect(evaluated).toEqual(['revenue_decline', 'stockholders_deficit']);
  });

  it('names compare without case, punctuation and legal-form suffixes', () => {
    expect(comparableName('The Example Global, Inc.')).toBe('example global');
    expect(comparableName('AMAZON COM INC /DE/')).toBe('amazon com');
    expect(shortName('Example Global, Inc.')).toBe('Example Global');
  });
});
