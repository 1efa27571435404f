/**
 * The third-party data providers an operator configured (see api/settings.ts), one adapter per
 * provider behind one small interface per kind. Products reach them through their context and
 * declare the kind they need in `requires`: without it configured they are not on sale.
 */
import { ProviderClient, type ProviderStats } from './api/client.ts';
import type { DataProviderSettings, ProviderId } from './api/settings.ts';
import { CoinGeckoPrices, type CryptoPriceProvider } from './crypto/coingecko.ts';
import { GleifLei, type LeiProvider } from './lei/gleif.ts';
import { BraveSearch } from './search/brave.ts';
import { FallbackSearch } from './search/fallback.ts';
import { SearxngSearch } from './search/searxng.ts';
import type { WebSearchProvider } from './search/types.ts';
import { XRecentSearch, type SocialSearchProvider } from './social/x.ts';
import { AlphaVantageEquities, type EquityQuoteProvider } from './equities/alpha-vantage.ts';
import { SeatsAeroAwards, type AwardFlightProvider } from './flights/seats-aero.ts';
import { PeopleDataLabs, type PeopleDataProvider } from './people/pdl.ts';
import { SecEdgar, type CompanyFilingsProvider } from './filings/edgar.ts';

/** The kinds products `require` (see products/kit/types.ts UpstreamProvider). */
export const DATA_KINDS = ['web-search', 'x-search', 'lei', 'crypto-prices', 'equity-quotes', 'award-flights', 'people-data', 'company-filings'] as const;
export type DataKind = (typeof DATA_KINDS)[number];

export interface DataProviders {
  webSearch?: WebSearchProvider;
  xSearch?: SocialSearchProvider;
  lei?: LeiProvider;
  crypto?: CryptoPriceProvider;
  equities?: EquityQuoteProvider;
  flights?: AwardFlightProvider;
  people?: PeopleDataProvider;
  filings?: CompanyFilingsProvider;
  /** The kinds configured. */
  readonly kinds: readonly DataKind[];
  /** Requests, cache hits, budget refusals and failures per provider, for /metrics. */
  stats(): ProviderStats[];
}

const NAMES: Record<ProviderId, string> = {
  gleif: 'GLEIF',
  coingecko: 'CoinGecko',
  searxng: 'SearXNG',
  brave: 'Brave Search',
  x: 'X',
  alphavantage: 'Alpha Vantage',
  seatsaero: 'Seats.aero',
  pdl: 'People Data Labs',
  sec: 'SEC EDGAR',
};

export function createDataProviders(settings: DataProviderSettings, now: () => number = Date.now, fetcher: typeof fetch = fetch): DataProviders {
  const clients = new Map<ProviderId, ProviderClient>();
  for (const [id, s] of Object.entries(settings) as [ProviderId, NonNullable<DataProviderSettings[ProviderId]>][]) clients.set(id, new ProviderClient(id, NAMES[id], s, now, fetcher));
  const client = (id: ProviderId) => clients.get(id);
  // Brave first when both are configured (a paid index with an SLA), the operator's SearXNG as fallback.
  const searchers = [client('brave') && new BraveSearch(client('brave')!), client('searxng') && new SearxngSearch(client('searxng')!)].filter((s): s is BraveSearch | SearxngSearch => Boolean(s));
  const providers = {
    ...(searchers.length ? { webSearch: searchers.length === 1 ? searchers[0]! : new FallbackSearch(searchers) } : {}),
    ...(client('x') ? { xSearch: new XRecentSearch(client('x')!) } : {}),
    ...(client('gleif') ? { lei: new GleifLei(client('gleif')!) } : {}),
    ...(client('coingecko') ? { crypto: new CoinGeckoPrices(client('coingecko')!) } : {}),
    ...(client('alphavantage') ? { equities: new AlphaVantageEquities(client('alphavantage')!) } : {}),
    ...(client('seatsaero') ? { flights: new SeatsAeroAwards(client('seatsaero')!) } : {}),
    ...(client('pdl') ? { people: new PeopleDataLabs(client('pdl')!) } : {}),
    ...(client('sec') ? { filings: new SecEdgar(client('sec')!) } : {}),
  };
  const kinds: DataKind[] = [
    ...(providers.webSearch ? (['web-search'] as const) : []),
    ...(providers.xSearch ? (['x-search'] as const) : []),
    ...(providers.lei ? (['lei'] as const) : []),
    ...(providers.crypto ? (['crypto-prices'] as const) : []),
    ...(providers.equities ? (['equity-quotes'] as const) : []),
    ...(providers.flights ? (['award-flights'] as const) : []),
    ...(providers.people ? (['people-data'] as const) : []),
    ...(providers.filings ? (['company-filings'] as const) : []),
  ];
  return { ...providers, kinds, stats: () => [...clients.values()].map((c) => c.stats()) };
}
