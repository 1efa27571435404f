/**
 * SEC EDGAR's part of the provider double (tests only): `company_tickers.json` under `/sec-www`, the
 * submissions and XBRL company facts documents under `/sec-data`, in EDGAR's own shapes (column
 * arrays under `filings.recent`; facts by taxonomy, concept and unit with `accn`, `fy`, `fp`, `form`,
 * `filed`). EDGAR's refusals too: a request without a declared User-Agent is 403 with an HTML page,
 * an unknown CIK (or a filer without XBRL facts) 404 with S3's XML `NoSuchKey`.
 *
 * The companies are FIXTURE DATA, not real filers: "Example Global, Inc." (CIK 9999999, a number far
 * above any EDGAR has assigned) and "Example Holdings Corp" (CIK 9999998). Names, figures, accession
 * numbers and documents are made up; Example Global matches the GLEIF double's fictional LEI record.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';

export const EDGAR_USER_AGENT = 'percall tests ops@percall.invalid';
export const EXAMPLE_CIK = '0009999999';
export const HOLDINGS_CIK = '0009999998';

const TICKERS = {
  '0': { cik_str: 9999999, ticker: 'EXGL', title: 'Example Global, Inc.' },
  '1': { cik_str: 9999998, ticker: 'EXHC', title: 'Example Holdings Corp' },
  '2': { cik_str: 9999999, ticker: 'EXGLW', title: 'Example Global, Inc.' },
};

interface Filing {
  accessionNumber: string;
  filingDate: string;
  reportDate: string;
  acceptanceDateTime: string;
  act: string;
  form: string;
  fileNumber: string;
  filmNumber: string;
  items: string;
  size: number;
  isXBRL: 0 | 1;
  isInlineXBRL: 0 | 1;
  primaryDocument: string;
  primaryDocDescription: string;
}

/** Rows to EDGAR's column arrays: `{accessionNumber: [...], filingDate: [...], …}`. */
const columns = (rows: Filing[]) => Object.fromEntries((Object.keys(rows[0]!) as (keyof Filing)[]).map((key) => [key, rows.map((r) => r[key])]));

const filing = (accessionNumber: string, form: string, filingDate: string, reportDate: string, primaryDocument: string, extra: Partial<Filing> = {}): Filing => ({
  accessionNumber,
  filingDate,
  reportDate,
  acceptanceDateTime: `${filingDate}T16:05:12.000Z`,
  act: '34',
  form,
  fileNumber: '001-99999',
  filmNumber: '25999999',
  items: '',
  size: 1_250_000,
  isXBRL: form.startsWith('10-') ? 1 : 0,
  isInlineXBRL: form.startsWith('10-') ? 1 : 0,
  primaryDocument,
  primaryDocDescription: form,
  ...extra,
});

const address = (street1: string, street2: string | null, city: string, state: string, zip: string) => ({
  street1,
  street2,
  city,
  stateOrCountry: state,
  zipCode: zip,
  stateOrCountryDescription: state,
  isForeignLocation: 0,
  foreignStateTerritory: null,
  country: null,
  countryCode: null,
});

const submissions = (cik: number, name: string, tickers: string[], extra: Record<string, unknown>, rows: Filing[]) => ({
  cik: String(cik),
  entityType: 'operating',
  sic: '7372',
  sicDescription: 'Services-Prepackaged Software',
  ownerOrg: '06 Technology',
  insiderTransactionForOwnerExists: 0,
  insiderTransactionForIssuerExists: 1,
  name,
  tickers,
  exchanges: tickers.map(() => 'Nasdaq'),
  ein: '999999999',
  lei: null,
  description: '',
  website: '',
  investorWebsite: '',
  category: 'Large Accelerated Filer',
  fiscalYearEnd: '1231',
  stateOfIncorporation: 'DE',
  stateOfIncorporationDescription: 'DE',
  addresses: { mailing: address('ONE MADISON AVENUE', 'SUITE 2400', 'NEW YORK', 'NY', '10010'), business: address('ONE MADISON AVENUE', 'SUITE 2400', 'NEW YORK', 'NY', '10010') },
  phone: '212-555-0100',
  flags: '',
  formerNames: [],
  ...extra,
  filings: { recent: columns(rows), files: [] },
});

const SUBMISSIONS: Record<string, unknown> = {
  [EXAMPLE_CIK]: submissions(
    9999999,
    'Example Global, Inc.',
    ['EXGL', 'EXGLW'],
    { formerNames: [{ name: 'EXAMPLE GLOBAL HOLDINGS LLC', from: '2015-03-02T00:00:00.000Z', to: '2021-03-31T00:00:00.000Z' }] },
    [
      filing('0009999999-25-000015', '10-Q', '2025-05-02', '2025-03-31', 'exgl-20250331.htm'),
      filing('0009999999-25-000012', '8-K', '2025-04-10', '2025-04-08', 'exgl-20250408.htm', { items: '5.02,9.01', size: 210_000 }),
      filing('0009999999-25-000011', 'DEF 14A', '2025-03-28', '', 'exgl-def14a2025.htm', { act: '34', size: 2_400_000 }),
      filing('0009999999-25-000010', '10-K', '2025-02-21', '2024-12-31', 'exgl-20241231.htm', { size: 9_800_000 }),
      filing('0009999999-24-000031', '10-Q', '2024-11-01', '2024-09-30', 'exgl-20240930.htm'),
    ],
  ),
  [HOLDINGS_CIK]: submissions(9999998, 'Example Holdings Corp', ['EXHC'], { sic: '6199', sicDescription: 'Finance Services', category: 'Non-accelerated Filer', stateOfIncorporation: 'NV', stateOfIncorporationDescription: 'NV', fiscalYearEnd: '0630', addresses: { mailing: address('100 EXAMPLE ROAD', null, 'RENO', 'NV', '89501'), business: address('100 EXAMPLE ROAD', null, 'RENO', 'NV', '89501') } }, [
    filing('0009999998-24-000004', 'NT 10-K', '2024-09-30', '2024-06-30', 'exhc-nt10k.htm', { size: 25_000 }),
    filing('0009999998-24-000002', '8-K', '2024-03-15', '2024-03-14', 'exhc-8k.htm', { items: '4.01', size: 30_000 }),
  ]),
};

type Fact = { start?: string; end: string; val: number; accn: string; fy: number; fp: string; form: string; filed: string; frame?: string };
const ANNUAL_24 = { accn: '0009999999-25-000010', fy: 2024, fp: 'FY', form: '10-K', filed: '2025-02-21' };
const ANNUAL_23 = { accn: '0009999999-24-000009', fy: 2023, fp: 'FY', form: '10-K', filed: '2024-02-23' };
const ANNUAL_22 = { accn: '0009999999-23-000008', fy: 2022, fp: 'FY', form: '10-K', filed: '2023-02-24' };
const Q1_25 = { accn: '0009999999-25-000015', fy: 2025, fp: 'Q1', form: '10-Q', filed: '2025-05-02' };
const year = (y: number) => ({ start: `${y}-01-01`, end: `${y}-12-31` });
const concept = (label: string, unit: string, facts: Fact[]) => ({ label, description: `${label} (fixture).`, units: { [unit]: facts } });

const COMPANY_FACTS: Record<string, unknown> = {
  [EXAMPLE_CIK]: {
    cik: 9999999,
    entityName: 'Example Global, Inc.',
    facts: {
      dei: {
        EntityCommonStockSharesOutstanding: concept('Entity Common Stock, Shares Outstanding', 'shares', [
          { end: '2025-02-14', val: 212_500_000, ...ANNUAL_24 },
          { end: '2025-04-25', val: 213_100_000, ...Q1_25 },
        ]),
        EntityPublicFloat: concept('Entity Public Float', 'USD', [{ end: '2024-06-28', val: 9_400_000_000, ...ANNUAL_24, frame: 'CY2024Q2I' }]),
      },
      'us-gaap': {
        // An older concept the filer stopped using: the newer one's later periods win.
        Revenues: concept('Revenues', 'USD', [{ ...year(2019), val: 700_000_000, accn: '0009999999-20-000005', fy: 2019, fp: 'FY', form: '10-K', filed: '2020-02-28', frame: 'CY2019' }]),
        RevenueFromContractWithCustomerExcludingAssessedTax: concept('Revenue from Contract with Customer, Excluding Assessed Tax', 'USD', [
          { ...year(2022), val: 980_000_000, ...ANNUAL_22, frame: 'CY2022' },
          { ...year(2022), val: 980_000_000, ...ANNUAL_23 },
          { ...year(2023), val: 1_100_000_000, ...ANNUAL_23, frame: 'CY2023' },
          { ...year(2023), val: 1_100_000_000, ...ANNUAL_24 },
          { ...year(2024), val: 1_250_000_000, ...ANNUAL_24, frame: 'CY2024' },
          { start: '2024-10-01', end: '2024-12-31', val: 340_000_000, ...ANNUAL_24, frame: 'CY2024Q4' },
          { start: '2025-01-01', end: '2025-03-31', val: 310_000_000, ...Q1_25, frame: 'CY2025Q1' },
        ]),
        NetIncomeLoss: concept('Net Income (Loss) Attributable to Parent', 'USD', [
          { ...year(2023), val: 85_000_000, ...ANNUAL_23, frame: 'CY2023' },
          { ...year(2023), val: 85_000_000, ...ANNUAL_24 },
          { ...year(2024), val: -42_000_000, ...ANNUAL_24, frame: 'CY2024' },
          { start: '2025-01-01', end: '2025-03-31', val: 12_000_000, ...Q1_25, frame: 'CY2025Q1' },
        ]),
        Assets: concept('Assets', 'USD', [
          { end: '2023-12-31', val: 2_400_000_000, ...ANNUAL_23 },
          { end: '2023-12-31', val: 2_400_000_000, ...ANNUAL_24, frame: 'CY2023Q4I' },
          { end: '2024-12-31', val: 2_650_000_000, ...ANNUAL_24, frame: 'CY2024Q4I' },
          { end: '2025-03-31', val: 2_700_000_000, ...Q1_25, frame: 'CY2025Q1I' },
        ]),
        StockholdersEquity: concept("Stockholders' Equity Attributable to Parent", 'USD', [
          { end: '2023-12-31', val: 1_210_000_000, ...ANNUAL_24, frame: 'CY2023Q4I' },
          { end: '2024-12-31', val: 1_180_000_000, ...ANNUAL_24, frame: 'CY2024Q4I' },
        ]),
      },
    },
  },
};

const noSuchKey = (c: Context, key: string) =>
  c.body(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>${key}</Key></Error>`, 404, { 'content-type': 'application/xml' });

/** SEC refuses undeclared automated tools (no contact in the User-Agent) with an HTML page. */
const declaredAgent: MiddlewareHandler = async (c, next) => {
  if (!/\S+@\S+/.test(c.req.header('user-agent') ?? '')) return c.html('<html><body><h1>Your Request Originates from an Undeclared Automated Tool</h1></body></html>', 403);
  await next();
};

/** Mounts EDGAR's two hosts on the double: `/sec-www` (www.sec.gov) and `/sec-data` (data.sec.gov). */
export function mountEdgarDouble(app: Hono, record: MiddlewareHandler): void {
  app.use('/sec-www/*', record, declaredAgent);
  app.use('/sec-data/*', record, declaredAgent);
  app.get('/sec-www/files/company_tickers.json', (c) => c.json(TICKERS));
  app.get('/sec-data/submissions/:file', (c) => {
    const cik = /^CIK(\d{10})\.json$/.exec(c.req.param('file'))?.[1];
    return cik && SUBMISSIONS[cik] ? c.json(SUBMISSIONS[cik] as object) : noSuchKey(c, `submissions/${c.req.param('file')}`);
  });
  app.get('/sec-data/api/xbrl/companyfacts/:file', (c) => {
    const cik = /^CIK(\d{10})\.json$/.exec(c.req.param('file'))?.[1];
    return cik && COMPANY_FACTS[cik] ? c.json(COMPANY_FACTS[cik] as object) : noSuchKey(c, `api/xbrl/companyfacts/${c.req.param('file')}`);
  });
}

/** The env pointing EDGAR at the double at `base`. */
export const edgarDoubleEnv = (base: string): Record<string, string> => ({
  SEC_USER_AGENT: EDGAR_USER_AGENT,
  SEC_WWW_URL: `${base}/sec-www`,
  SEC_DATA_URL: `${base}/sec-data`,
});
