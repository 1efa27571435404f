/**
 * CoinGecko's API (https://docs.coingecko.com/reference/introduction): `GET /search?query=` to find
 * the coin a symbol names, `GET /simple/price?ids=&vs_currencies=usd&include_24hr_change=true&include_last_updated_at=true`
 * for its price, `GET /coins/{id}` for a coin's market data and contracts, and
 * `GET /coins/{platform}/contract/{address}` for the coin a token contract is. Keyless public tier by
 * default; Demo and Pro keys travel as headers (see settings).
 */
import type { ProviderClient } from '../api/client.ts';

export interface CoinRef {
  id: string;
  symbol: string;
  name: string;
  market_cap_rank: number | null;
}

export interface CoinPrice {
  coin: CoinRef;
  price_usd: number;
  change_24h_pct: number | null;
  /** When CoinGecko last updated the price, ISO 8601. */
  last_updated_at: string | null;
}

export interface CryptoPriceProvider {
  readonly name: string;
  /** The coin a ticker symbol names (the one of highest market cap among those sharing it); undefined when none. */
  coinForSymbol(symbol: string, signal?: AbortSignal): Promise<CoinRef | undefined>;
  price(coin: CoinRef, signal?: AbortSignal): Promise<CoinPrice | undefined>;
  /** The coin a search text names: an exact id, name or symbol match (the largest by market cap); undefined when none. */
  coinForText(text: string, signal?: AbortSignal): Promise<CoinRef | undefined>;
  /** A coin's market data and contracts; undefined when CoinGecko does not know the id. */
  coin(id: string, signal?: AbortSignal): Promise<CoinDetail | undefined>;
  /** The coin a token contract on an asset platform is; undefined when CoinGecko does not list it. */
  coinByContract(platform: string, address: string, signal?: AbortSignal): Promise<CoinDetail | undefined>;
}

/** A coin's market data (USD), as `/coins/{id}` answers it; null where CoinGecko has no figure. */
export interface CoinMarket {
  price_usd: number | null;
  market_cap_usd: number | null;
  fully_diluted_valuation_usd: number | null;
  volume_24h_usd: number | null;
  high_24h_usd: number | null;
  low_24h_usd: number | null;
  change_24h_pct: number | null;
  change_7d_pct: number | null;
  change_30d_pct: number | null;
  circulating_supply: number | null;
  total_supply: number | null;
  max_supply: number | null;
  /** When CoinGecko last updated these figures, ISO 8601. */
  last_updated: string | null;
}

export interface CoinDetail {
  coin: CoinRef;
  /** Token contracts by CoinGecko asset platform id (`ethereum`, `base`, `arbitrum-one`…), lowercase, with their decimals when known. */
  contracts: Record<string, { address: string; decimals: number | null }>;
  market: CoinMarket;
  /** The API URL the figures were read from (no key in it). */
  source_url: string;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});

/** Which coin a symbol is changes rarely: an hour. */
const SEARCH_TTL_MS = 3_600_000;
/** `/coins/{id}` without the parts we do not read (tickers, community and developer data). */
const DETAIL_QUERY = { localization: 'false', tickers: 'false', market_data: 'true', community_data: 'false', developer_data: 'false', sparkline: 'false' };
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const usd = (value: unknown): number | null => num(obj(value).usd);

export class CoinGeckoPrices implements CryptoPriceProvider {
  readonly name = 'CoinGecko';

  constructor(private readonly client: ProviderClient) {}

  coinForSymbol(symbol: string, signal?: AbortSignal): Promise<CoinRef | undefined> {
    const wanted = symbol.toUpperCase();
    return this.search(symbol, (c) => c.symbol.toUpperCase() === wanted, signal);
  }

  coinForText(text: string, signal?: AbortSignal): Promise<CoinRef | undefined> {
    const wanted = text.trim().toLowerCase();
    return this.search(text, (c) => c.id === wanted || c.name.toLowerCase() === wanted || c.symbol.toLowerCase() === wanted, signal);
  }

  /**
   * The coin `/search` lists for `query` that `matches` (given its id, symbol and name as listed).
   * Many tokens copy a famous symbol or name; the one with the highest market cap is the one meant.
   */
  private async search(query: string, matches: (coin: { id: string; symbol: string; name: string }) => boolean, signal?: AbortSignal): Promise<CoinRef | undefined> {
    const answer = await this.client.request({ path: '/search', query: { query }, cacheTtlMs: SEARCH_TTL_MS }, signal);
    const coins = obj(answer.body).coins;
    if (!Array.isArray(coins)) throw this.client.invalid('answered a search without a coin list');
    const found = coins
      .map(obj)
      .filter((c) => typeof c.id === 'string' && typeof c.symbol === 'string')
      .filter((c) => matches({ id: c.id as string, symbol: c.symbol as string, name: String(c.name ?? '') }))
      .map((c) => ({ id: c.id as string, symbol: (c.symbol as string).toUpperCase(), name: typeof c.name === 'string' ? c.name : (c.id as string), market_cap_rank: typeof c.market_cap_rank === 'number' ? c.market_cap_rank : null }));
    found.sort((a, b) => (a.market_cap_rank ?? Infinity) - (b.market_cap_rank ?? Infinity));
    return found[0];
  }

  coin(id: string, signal?: AbortSignal): Promise<CoinDetail | undefined> {
    return this.detail(`/coins/${encodeURIComponent(id)}`, signal);
  }

  coinByContract(platform: string, address: string, signal?: AbortSignal): Promise<CoinDetail | undefined> {
    return this.detail(`/coins/${encodeURIComponent(platform)}/contract/${encodeURIComponent(address.toLowerCase())}`, signal);
  }

  private async detail(path: string, signal?: AbortSignal): Promise<CoinDetail | undefined> {
    const request = { path, query: DETAIL_QUERY, accept: [404] };
    const answer = await this.client.request(request, signal);
    if (answer.status === 404) return undefined;
    const body = obj(answer.body);
    if (typeof body.id !== 'string' || typeof body.symbol !== 'string') throw this.client.invalid('answered a coin without its id');
    const details = obj(body.detail_platforms);
    const contracts: CoinDetail['contracts'] = {};
    for (const [platform, address] of Object.entries(obj(body.platforms))) {
      if (platform === '' || typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) continue;
      contracts[platform] = { address: address.toLowerCase(), decimals: num(obj(details[platform]).decimal_place) };
    }
    const m = obj(body.market_data);
    return {
      coin: { id: body.id, symbol: body.symbol.toUpperCase(), name: typeof body.name === 'string' ? body.name : body.id, market_cap_rank: num(body.market_cap_rank) },
      contracts,
      market: {
        price_usd: usd(m.current_price),
        market_cap_usd: usd(m.market_cap),
        fully_diluted_valuation_usd: usd(m.fully_diluted_valuation),
        volume_24h_usd: usd(m.total_volume),
        high_24h_usd: usd(m.high_24h),
        low_24h_usd: usd(m.low_24h),
        change_24h_pct: num(m.price_change_percentage_24h),
        change_7d_pct: num(m.price_change_percentage_7d),
        change_30d_pct: num(m.price_change_percentage_30d),
        circulating_supply: num(m.circulating_supply),
        total_supply: num(m.total_supply),
        max_supply: num(m.max_supply),
        last_updated: typeof m.last_updated === 'string' ? m.last_updated : null,
      },
      source_url: this.client.citedUrl(request),
    };
  }

  async price(coin: CoinRef, signal?: AbortSignal): Promise<CoinPrice | undefined> {
    const answer = await this.client.request(
      { path: '/simple/price', query: { ids: coin.id, vs_currencies: 'usd', include_24hr_change: 'true', include_last_updated_at: 'true' } },
      signal,
    );
    const entry = obj(obj(answer.body)[coin.id]);
    if (typeof entry.usd !== 'number') return undefined;
    return {
      coin,
      price_usd: entry.usd,
      change_24h_pct: typeof entry.usd_24h_change === 'number' ? entry.usd_24h_change : null,
      last_updated_at: typeof entry.last_updated_at === 'number' ? new Date(entry.last_updated_at * 1000).toISOString() : null,
    };
  }
}
