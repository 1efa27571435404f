import { describe, expect, it } from 'vitest';
import { dataProviderSettingsFromEnv } from '../api/settings.ts';
import { providerDouble } from '../provider-double.fixture.ts';
import { EDGAR_USER_AGENT, EXAMPLE_CIK, HOLDINGS_CIK } from './edgar-double.fixture.ts';

const double = providerDouble();
const edgar = (env: Record<string, string> = {}, now?: () => number) => double.providers(env, now).filings!;
const base = 'http://providers.invalid';

describe('SEC EDGAR adapter (against the double)', () => {
  it('reads the ticker list from www.sec.gov with the contact User-Agent, one row per ticker, CIKs padded', async () => {
    const { url, value } = await edgar().listings();
    expect(url).toBe(`${base}/sec-www/files/company_tickers.json`);
    expect(value).toContainEqual({ cik: EXAMPLE_CIK, ticker: 'EXGL', name: 'Example Global, Inc.' });
    expect(value.filter((row) => row.cik === EXAMPLE_CIK).map((row) => row.ticker)).toEqual(['EXGL', 'EXGLW']);
    const sent = double.requests.at(-1)!;
    expect(sent).toMatchObject({ provider: 'sec', method: 'GET', path: '/files/company_tickers.json' });
    expect(sent.headers['user-agent']).toBe(EDGAR_USER_AGENT);
  });

  it('reads a submissions document: profile, addresses and the column arrays of recent filings as rows', async () => {
    const answer = (await edgar().company('9999999'))!;
    expect(answer.url).toBe(`${base}/sec-data/submissions/CIK${EXAMPLE_CIK}.json`);
    expect(answer.value).toMatchObject({
      cik: EXAMPLE_CIK,
      name: 'Example Global, Inc.',
      sic: '7372',
      tickers: ['EXGL', 'EXGLW'],
      exchanges: ['Nasdaq', 'Nasdaq'],
      lei: null,
      fiscal_year_end: '1231',
      state_of_incorporation: 'DE',
      business_address: { street: ['ONE MADISON AVENUE', 'SUITE 2400'], city: 'NEW YORK', state_or_country: 'NY', postal_code: '10010' },
      former_names: [{ name: 'EXAMPLE GLOBAL HOLDINGS LLC' }],
    });
    expect(answer.value.recent_filings[3]).toEqual({ accession_number: '0009999999-25-000010', form: '10-K', filing_date: '2025-02-21', report_date: '2024-12-31', primary_document: 'exgl-20241231.htm', description: '10-K' });
    expect(answer.value.recent_filings[2]!.report_date).toBeNull();
  });

  it('reads only the concepts asked for from company facts, by unit, with accession numbers', async () => {
    const answer = (await edgar().facts(EXAMPLE_CIK, ['us-gaap:NetIncomeLoss', 'dei:EntityCommonStockSharesOutstanding', 'us-gaap:NotReported']))!;
    expect(answer.url).toBe(`${base}/sec-data/api/xbrl/companyfacts/CIK${EXAMPLE_CIK}.json`);
    expect(answer.value.concepts.map((c) => c.concept)).toEqual(['us-gaap:NetIncomeLoss', 'dei:EntityCommonStockSharesOutstanding']);
    expect(answer.value.concepts[0]!.units.USD).toContainEqual({ start: '2024-01-01', end: '2024-12-31', value: -42_000_000, accession_number: '0009999999-25-000010', fiscal_year: 2024, fiscal_period: 'FY', form: '10-K', filed: '2025-02-21' });
    expect(Object.keys(answer.value.concepts[1]!.units)).toEqual(['shares']);
  });

  it('an unknown CIK and a filer without XBRL facts are undefined (EDGAR answers 404 with XML)', async () => {
    expect(await edgar().company('1234')).toBeUndefined();
    expect(await edgar().facts(HOLDINGS_CIK, ['us-gaap:Assets'])).toBeUndefined();
  });

  it('builds filing links on www.sec.gov: the folder index and the primary document', () => {
    expect(edgar().filingLinks(EXAMPLE_CIK, '0009999999-25-000010', 'exgl-20241231.htm')).toEqual({
      index_url: `${base}/sec-www/Archives/edgar/data/9999999/000999999925000010/0009999999-25-000010-index.htm`,
      document_url: `${base}/sec-www/Archives/edgar/data/9999999/000999999925000010/exgl-20241231.htm`,
    });
  });

  it('is configured only with a contact User-Agent; its budget keeps any second at 10 requests or fewer', async () => {
    expect(dataProviderSettingsFromEnv({}).sec).toBeUndefined();
    expect(() => dataProviderSettingsFromEnv({ SEC_USER_AGENT: 'just-a-name' })).toThrow(/SEC_USER_AGENT/);
    expect(() => dataProviderSettingsFromEnv({ SEC_USER_AGENT: EDGAR_USER_AGENT, SEC_BUDGET_PER_MINUTE: '600' })).toThrow(/SEC_BUDGET_PER_MINUTE/);
    const sec = dataProviderSettingsFromEnv({ SEC_USER_AGENT: EDGAR_USER_AGENT }).sec!;
    expect(sec).toMatchObject({ baseUrl: 'https://data.sec.gov', origins: { www: 'https://www.sec.gov' }, headers: { 'user-agent': EDGAR_USER_AGENT }, budgetPerMinute: 120, burst: 8 });
    expect(sec.burst! + sec.budgetPerMinute / 60).toBeLessThanOrEqual(10);

    let now = 0;
    const client = edgar({}, () => now);
    for (let i = 0; i < 8; i++) await client.company(`${1000 + i}`);
    await expect(client.company('2000')).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    now += 1_000; // one second refills two
    await client.company('2000');
  });

  it('an EDGAR outage or refusal is a 502 whose text is not passed on', async () => {
    double.failWith.sec = 500;
    try {
      const error = await edgar().company(EXAMPLE_CIK).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'UpstreamError', status: 502 });
      expect(String((error as Error).message)).not.toContain('secret-provider-text');
    } finally {
      delete double.failWith.sec;
    }
    // Without the declared User-Agent SEC answers 403 (an HTML page): refused credentials, 502.
    const bare = double.providers({ SEC_USER_AGENT: 'someone@example.invalid' }).filings!;
    await expect(bare.company(EXAMPLE_CIK)).resolves.toBeDefined();
    const noAgent = await double.fetch(`${base}/sec-data/submissions/CIK${EXAMPLE_CIK}.json`);
    expect(noAgent.status).toBe(403);
  });
});
