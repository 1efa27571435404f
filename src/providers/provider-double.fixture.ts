/**
 * A stand-in for the third-party data providers, for tests only: one Hono app that speaks each
 * provider's documented wire format (paths, parameters, auth headers, JSON bodies, error and 429
 * answers) under a prefix per provider, answering from recorded-style fixtures. It records every
 * request so tests check what an adapter sent against the documented form. Used in process (its
 * `fetch`) by unit tests and over HTTP by the service tests.
 */
import { Hono, type Context } from 'hono';
import { createDataProviders, type DataProviders } from './data.ts';
import { dataProviderSettingsFromEnv } from './api/settings.ts';
import { edgarDoubleEnv, mountEdgarDouble } from './filings/edgar-double.fixture.ts';
import { COINGECKO_COIN_SEARCH, COINGECKO_COINS } from './crypto/coingecko-coins.fixture.ts';

export const DOUBLE_KEYS = {
  brave: 'brave-test-subscription-token',
  x: 'x-test-bearer-token-AAAAAAAAAAAAAAAAAAAA',
  coingeckoPro: 'CG-test-pro-key',
} as const;

export type DoubleProvider = 'gleif' | 'coingecko' | 'searxng' | 'brave' | 'x' | 'sec';

export interface SeenRequest {
  provider: DoubleProvider;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
}

// ---- Fixtures, in each provider's documented response shape ----

const EXAMPLE_LEI = '549300V5ZCHZ7G2YYX88';
const gleifRecord = (lei: string, name: string, extra: Record<string, unknown> = {}) => ({
  type: 'lei-records',
  id: lei,
  attributes: {
    lei,
    entity: {
      legalName: { name, language: 'en' },
      otherNames: [],
      legalAddress: { language: 'en', addressLines: ['251 Little Falls Drive'], addressNumber: null, city: 'Wilmington', region: 'US-DE', country: 'US', postalCode: '19808' },
      headquartersAddress: { language: 'en', addressLines: ['One Madison Avenue', 'Suite 2400'], city: 'New York', region: 'US-NY', country: 'US', postalCode: '10010' },
      registeredAt: { id: 'RA000602', other: null },
      jurisdiction: 'US-DE',
      category: 'GENERAL',
      legalForm: { id: 'XTIQ', other: null },
      status: 'ACTIVE',
      ...extra,
    },
    registration: {
      initialRegistrationDate: '2021-02-04T17:47:21Z',
      lastUpdateDate: '2025-02-07T21:25:59Z',
      status: 'ISSUED',
      nextRenewalDate: '2026-02-04T17:47:21Z',
      managingLou: 'EVK05KS7XY1DEII3R011',
      corroborationLevel: 'FULLY_CORROBORATED',
    },
    bic: null,
  },
  relationships: {
    'managing-lou': { links: { related: 'https://api.gleif.org/api/v1/lei-records/549300V5ZCHZ7G2YYX88/managing-lou' } },
    'direct-parent': { links: { 'reporting-exception': `https://api.gleif.org/api/v1/lei-records/${lei}/direct-parent-reporting-exception` } },
  },
  links: { self: `https://api.gleif.org/api/v1/lei-records/${lei}` },
});

/** Fictional entities with made-up LEIs (valid check digits): a parent and its subsidiary. */
export const SUBSIDIARY_LEI = '5493001KJTIIGC8Y1R12';
const GLEIF_RECORDS: Record<string, ReturnType<typeof gleifRecord>> = {
  [EXAMPLE_LEI]: gleifRecord(EXAMPLE_LEI, 'Example Global, Inc.'),
  [SUBSIDIARY_LEI]: gleifRecord(SUBSIDIARY_LEI, 'Example Markets, Inc.'),
};
const GLEIF_PARENTS: Record<string, string> = { [SUBSIDIARY_LEI]: EXAMPLE_LEI };
export { EXAMPLE_LEI };

const COINGECKO_SEARCH: Record<string, unknown[]> = {
  ETH: [
    { id: 'ethereum', name: 'Ethereum', api_symbol: 'ethereum', symbol: 'ETH', market_cap_rank: 2, thumb: 'https://coin-images.coingecko.com/coins/images/279/thumb/ethereum.png', large: 'https://coin-images.coingecko.com/coins/images/279/large/ethereum.png' },
    { id: 'ethereum-wormhole', name: 'Ethereum (Wormhole)', api_symbol: 'ethereum-wormhole', symbol: 'ETH', market_cap_rank: 1403, thumb: '', large: '' },
    { id: 'ethena-staked-usde', name: 'Ethena Staked USDe', api_symbol: 'ethena-staked-usde', symbol: 'SUSDE', market_cap_rank: 45, thumb: '', large: '' },
  ],
  STALE: [{ id: 'stale-coin', name: 'Stale Coin', api_symbol: 'stale-coin', symbol: 'STALE', market_cap_rank: null, thumb: '', large: '' }],
};
const COINGECKO_PRICES: Record<string, Record<string, number | null>> = {
  ethereum: { usd: 2534.12, usd_24h_change: -1.84, last_updated_at: 1748779171 },
  'stale-coin': { usd: 0.0042, usd_24h_change: null, last_updated_at: 1700000000 },
};

export const SEARCH_PAGES = [
  {
    title: 'x402 - Payment Required',
    url: 'https://www.x402.org/',
    snippet: 'x402 is an open payment standard that enables AI agents and web services to pay for APIs and content with stablecoins over HTTP.',
  },
  { title: 'x402 specification (GitHub)', url: 'https://github.com/coinbase/x402', snippet: 'A payments protocol for the internet. Built on HTTP.' },
  { title: 'HTTP 402 Payment Required - MDN', url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/402', snippet: 'The HTTP 402 Payment Required is a nonstandard response status code reserved for future use.' },
];

const braveBody = (query: string, count: number) => ({
  type: 'search',
  query: { original: query, show_strict_warning: false, is_navigational: false, spellcheck_off: true, country: 'us', bad_results: false, should_fallback: false, postal_code: '', city: '', header_country: '', more_results_available: true, state: '' },
  mixed: { type: 'mixed', main: SEARCH_PAGES.map((_, index) => ({ type: 'web', index, all: false })), top: [], side: [] },
  web: {
    type: 'search',
    results: SEARCH_PAGES.slice(0, count).map((page, i) => ({
      title: page.title.replace('x402', '<strong>x402</strong>'),
      url: page.url,
      is_source_local: false,
      is_source_both: false,
      description: page.snippet.replace('x402', '<strong>x402</strong>'),
      ...(i === 2 ? { page_age: '2025-03-14T09:30:00', age: 'March 14, 2025' } : {}),
      profile: { name: new URL(page.url).hostname, url: page.url, long_name: new URL(page.url).hostname, img: '' },
      language: 'en',
      family_friendly: true,
      type: 'search_result',
      subtype: 'generic',
      meta_url: { scheme: 'https', netloc: new URL(page.url).hostname, hostname: new URL(page.url).hostname, favicon: '', path: new URL(page.url).pathname },
    })),
    family_friendly: true,
  },
});

const searxngBody = (query: string) => ({
  query,
  number_of_results: 0,
  results: SEARCH_PAGES.map((page, i) => ({
    url: page.url,
    title: page.title,
    content: page.snippet,
    engine: 'duckduckgo',
    parsed_url: ['https', new URL(page.url).hostname, new URL(page.url).pathname, '', '', ''],
    template: 'default.html',
    engines: ['duckduckgo', 'brave'],
    positions: [i + 1],
    score: 3 - i * 0.5,
    category: 'general',
    ...(i === 1 ? { publishedDate: '2025-05-20T00:00:00' } : {}),
  })),
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: ['x402 coinbase'],
  unresponsive_engines: [],
});

const X_POSTS = {
  data: [
    {
      id: '1929871234567890123',
      text: 'Shipped our first x402 endpoint today: agents pay per call in USDC.',
      created_at: '2025-06-01T10:21:07.000Z',
      author_id: '2244994945',
      lang: 'en',
      edit_history_tweet_ids: ['1929871234567890123'],
      public_metrics: { retweet_count: 7, reply_count: 3, like_count: 42, quote_count: 1, bookmark_count: 2, impression_count: 5120 },
    },
    {
      id: '1929860000000000001',
      text: 'Reading the x402 spec: HTTP 402 finally has a use.',
      created_at: '2025-06-01T09:02:44.000Z',
      author_id: '783214',
      lang: 'en',
      edit_history_tweet_ids: ['1929860000000000001'],
      public_metrics: { retweet_count: 0, reply_count: 1, like_count: 5, quote_count: 0, bookmark_count: 0, impression_count: 310 },
    },
  ],
  includes: {
    users: [
      { id: '2244994945', name: 'Example Dev', username: 'example_dev' },
      { id: '783214', name: 'Another Reader', username: 'another_reader' },
    ],
  },
  meta: { newest_id: '1929871234567890123', oldest_id: '1929860000000000001', result_count: 2 },
};

// ---- The double ----

export interface ProviderDouble {
  app: Hono;
  /** In process: the double's answer to a request, as `fetch` would give it. */
  fetch: typeof fetch;
  requests: SeenRequest[];
  /** Make a provider answer this status (500, 429…) until cleared. */
  failWith: Partial<Record<DoubleProvider, number>>;
  /** Env pointing every provider at `base` (the double's origin, over HTTP or in process). */
  env(base: string): Record<string, string>;
  /** Makes CoinGecko's contract lookup answer coin `id` for a contract (a dev chain's token). */
  listContract(platform: string, address: string, id: string): void;
  /** Adapters over the double in process, with the env the test gives on top. */
  providers(env?: Record<string, string>, now?: () => number): DataProviders;
}

const problemJson = (c: Context, status: number, body: unknown) => c.json(body as object, status as 400);

export function providerDouble(): ProviderDouble {
  const app = new Hono();
  const requests: SeenRequest[] = [];
  const failWith: ProviderDouble['failWith'] = {};
  const listedContracts = new Map<string, string>();
  const record = (provider: DoubleProvider) => async (c: Context, next: () => Promise<void>) => {
    const url = new URL(c.req.url);
    requests.push({ provider, method: c.req.method, path: url.pathname.replace(/^\/[^/]+/, ''), query: Object.fromEntries(url.searchParams), headers: Object.fromEntries(c.req.raw.headers) });
    const status = failWith[provider];
    if (status === 429) return c.json({ status: 429, error: 'Too Many Requests', detail: 'secret-provider-text' }, 429, { 'retry-after': '60', 'x-rate-limit-reset': '1748780000' });
    if (status) return c.text(`upstream exploded: secret-provider-text ${c.req.header('authorization') ?? ''}`, status as 500);
    await next();
  };

  // GLEIF (JSON:API, application/vnd.api+json).
  app.use('/gleif/*', record('gleif'));
  const gleifJson = (c: Context, body: unknown, status = 200) => c.body(JSON.stringify(body), status as 200, { 'content-type': 'application/vnd.api+json' });
  const gleifNotFound = (c: Context) => gleifJson(c, { errors: [{ status: '404', title: 'Not Found' }] }, 404);
  app.get('/gleif/api/v1/lei-records', (c) => {
    const text = (c.req.query('filter[fulltext]') ?? '').toLowerCase();
    const country = c.req.query('filter[entity.legalAddress.country]');
    const size = Number(c.req.query('page[size]') ?? 10);
    const data = Object.values(GLEIF_RECORDS).filter((r) => r.attributes.entity.legalName.name.toLowerCase().includes(text) && (!country || r.attributes.entity.legalAddress.country === country));
    return gleifJson(c, { meta: { goldenCopy: { publishDate: '2025-06-01T08:00:00Z' }, pagination: { currentPage: 1, perPage: size, from: 1, to: data.length, total: data.length, lastPage: 1 } }, data: data.slice(0, size) });
  });
  app.get('/gleif/api/v1/lei-records/:lei/:which{(direct|ultimate)-parent}', (c) => {
    const parent = GLEIF_PARENTS[c.req.param('lei')];
    return parent ? gleifJson(c, { data: GLEIF_RECORDS[parent] }) : gleifNotFound(c);
  });
  app.get('/gleif/api/v1/lei-records/:lei', (c) => {
    const found = GLEIF_RECORDS[c.req.param('lei')];
    return found ? gleifJson(c, { meta: { goldenCopy: { publishDate: '2025-06-01T08:00:00Z' } }, data: found }) : gleifNotFound(c);
  });

  // CoinGecko: keyless, or x-cg-demo-api-key / x-cg-pro-api-key.
  app.use('/coingecko/*', record('coingecko'));
  app.use('/coingecko/*', async (c, next) => {
    const pro = c.req.header('x-cg-pro-api-key');
    if (pro !== undefined && pro !== DOUBLE_KEYS.coingeckoPro) return problemJson(c, 401, { status: { error_code: 10002, error_message: 'API Key Missing or invalid' } });
    await next();
  });
  app.get('/coingecko/api/v3/search', (c) => {
    const query = (c.req.query('query') ?? '').toUpperCase();
    return c.json({ coins: COINGECKO_SEARCH[query] ?? COINGECKO_COIN_SEARCH[query] ?? [], exchanges: [], icos: [], categories: [], nfts: [] });
  });
  const coinNotFound = (c: Context) => problemJson(c, 404, { error: 'coin not found' });
  app.get('/coingecko/api/v3/coins/:platform/contract/:address', (c) => {
    const address = c.req.param('address').toLowerCase();
    const listed = Object.values(COINGECKO_COINS).find((coin) => (coin.platforms as Record<string, string>)[c.req.param('platform')] === address);
    const id = listedContracts.get(`${c.req.param('platform')}/${address}`) ?? listed?.id;
    return id ? c.json(COINGECKO_COINS[id]) : coinNotFound(c);
  });
  app.get('/coingecko/api/v3/coins/:id', (c) => (COINGECKO_COINS[c.req.param('id')] ? c.json(COINGECKO_COINS[c.req.param('id')]) : coinNotFound(c)));
  app.get('/coingecko/api/v3/simple/price', (c) => {
    if (c.req.query('vs_currencies') !== 'usd') return problemJson(c, 400, { error: 'Missing parameter vs_currencies' });
    const out: Record<string, unknown> = {};
    for (const id of (c.req.query('ids') ?? '').split(',')) {
      const p = COINGECKO_PRICES[id];
      if (!p) continue;
      out[id] = { usd: p.usd, ...(c.req.query('include_24hr_change') === 'true' ? { usd_24h_change: p.usd_24h_change } : {}), ...(c.req.query('include_last_updated_at') === 'true' ? { last_updated_at: p.last_updated_at } : {}) };
    }
    return c.json(out);
  });

  // SearXNG: format=json must be asked for (and enabled), else 403.
  app.use('/searxng/*', record('searxng'));
  app.get('/searxng/search', (c) => (c.req.query('format') === 'json' ? c.json(searxngBody(c.req.query('q') ?? '')) : c.text('Forbidden', 403)));

  // Brave Search: X-Subscription-Token; count at most 20.
  app.use('/brave/*', record('brave'));
  app.get('/brave/res/v1/web/search', (c) => {
    if (c.req.header('x-subscription-token') !== DOUBLE_KEYS.brave) return problemJson(c, 401, { type: 'ErrorResponse', error: { id: 'x', status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' } });
    const count = Number(c.req.query('count') ?? 20);
    if (!c.req.query('q') || count > 20) return problemJson(c, 422, { type: 'ErrorResponse', error: { status: 422, code: 'VALIDATION', detail: 'Unable to validate request parameter(s)' } });
    if (c.req.query('q') === 'nothing matches this') return c.json({ type: 'search', query: { original: c.req.query('q') } });
    return c.json(braveBody(c.req.query('q')!, count));
  });

  // X API v2: Bearer token; max_results 10..100; malformed queries are 400 problems.
  app.use('/x/*', record('x'));
  app.get('/x/2/tweets/search/recent', (c) => {
    if (c.req.header('authorization') !== `Bearer ${DOUBLE_KEYS.x}`) return problemJson(c, 401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    const max = Number(c.req.query('max_results') ?? 10);
    const query = c.req.query('query') ?? '';
    if (max < 10 || max > 100 || query === '' || query.includes('(((')) {
      return problemJson(c, 400, { errors: [{ parameters: { query: [query] }, message: 'There were errors processing your request: secret-provider-text' }], title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.', type: 'https://api.twitter.com/2/problems/invalid-request' });
    }
    if (query === 'nothing matches this') return c.json({ meta: { result_count: 0 } });
    return c.json(X_POSTS);
  });

  // SEC EDGAR: www.sec.gov and data.sec.gov (filings/edgar-double.fixture.ts).
  mountEdgarDouble(app, record('sec'));

  const fetchInProcess: typeof fetch = async (input, init) => app.fetch(new Request(input, init));
  const env = (base: string): Record<string, string> => ({
    GLEIF_API_URL: `${base}/gleif/api/v1`,
    COINGECKO_API_URL: `${base}/coingecko/api/v3`,
    SEARXNG_URL: `${base}/searxng`,
    BRAVE_SEARCH_API_URL: `${base}/brave/res/v1`,
    BRAVE_SEARCH_API_KEY: DOUBLE_KEYS.brave,
    X_API_URL: `${base}/x/2`,
    X_BEARER_TOKEN: DOUBLE_KEYS.x,
    ...edgarDoubleEnv(base),
  });
  return {
    app,
    fetch: fetchInProcess,
    listContract: (platform, address, id) => void listedContracts.set(`${platform}/${address.toLowerCase()}`, id),
    requests,
    failWith,
    env,
    providers: (extra = {}, now = Date.now) => createDataProviders(dataProviderSettingsFromEnv({ ...env('http://providers.invalid'), ...extra }), now, fetchInProcess),
  };
}
