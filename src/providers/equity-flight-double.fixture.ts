/**
 * Stand-ins for Alpha Vantage and Seats.aero, for tests only, beside provider-double.fixture.ts and
 * built the same way: one Hono app speaking each provider's documented wire format (paths, query
 * parameters, key placement, JSON bodies, in-band errors) under a prefix per provider, answering from
 * fixtures in the provider's shape. The figures are fixture data, not market or airline data.
 * It records every request so tests check what an adapter sent.
 */
import { Hono, type Context } from 'hono';
import { createDataProviders, type DataProviders } from './data.ts';
import { dataProviderSettingsFromEnv } from './api/settings.ts';

export const EQUITY_FLIGHT_KEYS = {
  alphavantage: 'AV-TEST-KEY-0000',
  seatsaero: 'pro_seats_test_key_0000',
} as const;

export type EquityFlightProvider = 'alphavantage' | 'seatsaero';

export interface SeenEquityFlightRequest {
  provider: EquityFlightProvider;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
}

// ---- Alpha Vantage (GLOBAL_QUOTE, OVERVIEW), fields as the documentation shows them ----

const AV_QUOTES: Record<string, Record<string, string>> = {
  IBM: {
    '01. symbol': 'IBM',
    '02. open': '258.7000',
    '03. high': '260.1500',
    '04. low': '257.0100',
    '05. price': '259.0600',
    '06. volume': '4104731',
    '07. latest trading day': '2025-05-30',
    '08. previous close': '260.0700',
    '09. change': '-1.0100',
    '10. change percent': '-0.3884%',
  },
  SPY: {
    '01. symbol': 'SPY',
    '02. open': '588.9200',
    '03. high': '591.2000',
    '04. low': '585.0600',
    '05. price': '589.3900',
    '06. volume': '61820934',
    '07. latest trading day': '2025-05-30',
    '08. previous close': '589.8600',
    '09. change': '-0.4700',
    '10. change percent': '-0.0797%',
  },
};

const AV_OVERVIEWS: Record<string, Record<string, string>> = {
  IBM: {
    Symbol: 'IBM',
    AssetType: 'Common Stock',
    Name: 'International Business Machines',
    Description: 'Fixture overview of International Business Machines Corporation.',
    CIK: '51143',
    Exchange: 'NYSE',
    Currency: 'USD',
    Country: 'USA',
    Sector: 'TECHNOLOGY',
    Industry: 'COMPUTER & OFFICE EQUIPMENT',
    Address: '1 NEW ORCHARD ROAD, ARMONK, NY, US',
    OfficialSite: 'https://www.ibm.com',
    FiscalYearEnd: 'December',
    LatestQuarter: '2025-03-31',
    MarketCapitalization: '240763355000',
    EBITDA: '14613000000',
    PERatio: '44.51',
    DividendYield: '0.0259',
    EPS: '5.82',
    SharesOutstanding: '929379000',
    DividendDate: '2025-06-10',
    ExDividendDate: '2025-05-09',
  },
};

// ---- Seats.aero Cached Search: Availability objects as the Partner API returns them ----

const ROUTE = (id: string, source: string) => ({ ID: id, OriginAirport: 'JFK', OriginRegion: 'North America', DestinationAirport: 'LHR', DestinationRegion: 'Europe', NumDaysOut: 60, Distance: 3451, Source: source });

export type SeatsRecord = Record<string, unknown> & { ID: string; Date: string; Route: ReturnType<typeof ROUTE> };

/** Each cabin's figures under its letter; absent cabins are false/"0"/0/"" as Seats.aero sends them. */
function availability(id: string, routeId: string, source: string, date: string, currency: string, cabins: Partial<Record<'Y' | 'W' | 'J' | 'F', { miles: number; taxes: number; seats: number; airlines: string; direct: boolean }>>): SeatsRecord {
  const out: Record<string, unknown> = { ID: id, RouteID: routeId, Route: ROUTE(routeId, source), Date: date, ParsedDate: `${date}T00:00:00Z` };
  for (const L of ['Y', 'W', 'J', 'F'] as const) {
    const c = cabins[L];
    Object.assign(out, {
      [`${L}Available`]: Boolean(c),
      [`${L}MileageCost`]: String(c?.miles ?? 0),
      [`${L}MileageCostRaw`]: c?.miles ?? 0,
      [`${L}Direct`]: c?.direct ?? false,
      [`${L}TotalTaxes`]: c?.taxes ?? 0,
      [`${L}RemainingSeats`]: c?.seats ?? 0,
      [`${L}Airlines`]: c?.airlines ?? '',
    });
  }
  return { ...out, ID: id, Date: date, Route: ROUTE(routeId, source), TaxesCurrency: currency, Source: source, CreatedAt: '2025-05-28T09:12:44.381Z', UpdatedAt: '2025-05-31T22:40:03.117Z', AvailabilityTrips: null };
}

const SEATS_AERO_RECORDS = [
  availability('2xYfA1fixture0aeroplan', '1TmQfixtureRouteAC', 'aeroplan', '2027-09-15', 'CAD', {
    Y: { miles: 35000, taxes: 10950, seats: 0, airlines: 'AC', direct: false },
    J: { miles: 60000, taxes: 25644, seats: 0, airlines: 'AC, LH', direct: false },
  }),
  availability('2xYfA1fixture0virgin', '1TmQfixtureRouteVS', 'virginatlantic', '2027-09-15', 'USD', {
    Y: { miles: 20000, taxes: 24580, seats: 7, airlines: 'VS', direct: true },
    W: { miles: 27500, taxes: 63210, seats: 3, airlines: 'VS', direct: true },
    J: { miles: 47500, taxes: 101240, seats: 2, airlines: 'VS', direct: true },
  }),
  availability('2xYfA1fixture0united', '1TmQfixtureRouteUA', 'united', '2027-09-15', 'USD', {
    Y: { miles: 30000, taxes: 560, seats: 4, airlines: 'EI', direct: false },
  }),
  availability('2xYfA1fixture1virgin', '1TmQfixtureRouteVS', 'virginatlantic', '2027-09-16', 'USD', {
    J: { miles: 47500, taxes: 101240, seats: 4, airlines: 'VS', direct: true },
  }),
];

const SEATS_CABIN_LETTER: Record<string, string> = { economy: 'Y', premium: 'W', business: 'J', first: 'F' };

// ---- The double ----

/** A failure to answer until cleared: an HTTP status, or Alpha Vantage's in-band notes (HTTP 200). */
export type EquityFlightFailure = number | 'note' | 'information' | 'bad-key';

export interface EquityFlightDouble {
  app: Hono;
  fetch: typeof fetch;
  requests: SeenEquityFlightRequest[];
  failWith: Partial<Record<EquityFlightProvider, EquityFlightFailure>>;
  /** The Availability records Cached Search answers from; a test may add its own (e.g. on a date after today). */
  seatsAeroRecords: SeatsRecord[];
  /** Env pointing both providers at `base`, with their keys. */
  env(base: string): Record<string, string>;
  /** Adapters over the double in process (the keyless defaults turned off), with `extra` env on top. */
  providers(extra?: Record<string, string>, now?: () => number): DataProviders;
}

export function equityFlightDouble(): EquityFlightDouble {
  const app = new Hono();
  const requests: SeenEquityFlightRequest[] = [];
  const failWith: EquityFlightDouble['failWith'] = {};
  const seatsAeroRecords = [...SEATS_AERO_RECORDS];
  const record = (provider: EquityFlightProvider) => async (c: Context, next: () => Promise<void>) => {
    const url = new URL(c.req.url);
    requests.push({ provider, method: c.req.method, path: url.pathname.replace(/^\/[^/]+/, ''), query: Object.fromEntries(url.searchParams), headers: Object.fromEntries(c.req.raw.headers) });
    const failure = failWith[provider];
    if (typeof failure === 'number') return c.text(`upstream exploded: secret-provider-text ${url.searchParams.get('apikey') ?? ''}`, failure as 500);
    await next();
  };

  app.use('/alphavantage/*', record('alphavantage'));
  app.get('/alphavantage/query', (c) => {
    const failure = failWith.alphavantage;
    if (failure === 'note') return c.json({ Note: 'Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day. secret-provider-text' });
    if (failure === 'information') return c.json({ Information: 'Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day. secret-provider-text' });
    if (failure === 'bad-key' || c.req.query('apikey') !== EQUITY_FLIGHT_KEYS.alphavantage) {
      return c.json({ 'Error Message': 'the parameter apikey is invalid or missing. Please claim your free API key on (https://www.alphavantage.co/support/#api-key). secret-provider-text' });
    }
    const symbol = c.req.query('symbol') ?? '';
    if (symbol === 'ZZZZ') return c.json({ 'Error Message': 'Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for GLOBAL_QUOTE.' });
    if (c.req.query('function') === 'GLOBAL_QUOTE') return c.json({ 'Global Quote': AV_QUOTES[symbol] ?? {} });
    if (c.req.query('function') === 'OVERVIEW') return c.json(AV_OVERVIEWS[symbol] ?? {});
    return c.json({ 'Error Message': 'This API function does not exist.' });
  });

  // Seats.aero: Partner-Authorization carries the key; origin, destination and dates are required.
  app.use('/seatsaero/*', record('seatsaero'));
  app.get('/seatsaero/partnerapi/search', (c) => {
    if (c.req.header('partner-authorization') !== EQUITY_FLIGHT_KEYS.seatsaero) return c.json({ error: true, message: 'Unauthorized. secret-provider-text' }, 401);
    const { origin_airport: origin, destination_airport: destination, start_date: start, end_date: end, cabin } = c.req.query();
    if (!origin || !destination || (cabin && !SEATS_CABIN_LETTER[cabin])) return c.json({ error: true, message: 'Invalid request. secret-provider-text' }, 400);
    const letter = cabin ? SEATS_CABIN_LETTER[cabin] : undefined;
    const data = seatsAeroRecords.filter(
      (r) => r.Route.OriginAirport === origin && r.Route.DestinationAirport === destination && (!start || r.Date >= start) && (!end || r.Date <= end) && (!letter || r[`${letter}Available`] === true),
    );
    return c.json({ data, count: data.length, hasMore: false, cursor: 1748731203 });
  });

  const fetchInProcess: typeof fetch = async (input, init) => app.fetch(new Request(input, init));
  const env = (base: string): Record<string, string> => ({
    ALPHAVANTAGE_API_URL: `${base}/alphavantage/query`,
    ALPHAVANTAGE_API_KEY: EQUITY_FLIGHT_KEYS.alphavantage,
    SEATS_AERO_API_URL: `${base}/seatsaero/partnerapi`,
    SEATS_AERO_API_KEY: EQUITY_FLIGHT_KEYS.seatsaero,
  });
  return {
    app,
    fetch: fetchInProcess,
    requests,
    failWith,
    seatsAeroRecords,
    env,
    providers: (extra = {}, now = Date.now) =>
      createDataProviders(dataProviderSettingsFromEnv({ GLEIF_API_URL: 'off', COINGECKO_API_URL: 'off', ...env('http://providers.invalid'), ...extra }), now, fetchInProcess),
  };
}
