/**
 * CoinGecko's API (https://docs.coingecko.com/reference/introduction): `GET /search?query=` to find
 * the coin a symbol names, `GET /simple/price?ids=&vs_currencies=usd&include_24hr_change=true&include_last_updated_at=true`
 * for its price. Keyless public tier by default; Demo and Pro keys travel as headers (see settings).
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
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});

/** Which coin a symbol is changes rarely: an hour. */
const SEARCH_TTL_MS = 3_600_000;

export class CoinGeckoPrices implements CryptoPriceProvider {
  readonly name = 'CoinGecko';

  constructor(private readonly client: ProviderClient) {}

  async coinForSymbol(symbol: string, signal?: AbortSignal): Promise<CoinRef | undefined> {
    const answer = await this.client.request({ path: '/search', query: { query: symbol }, cacheTtlMs: SEARCH_TTL_MS }, signal);
    const coins = obj(answer.body).coins;
    if (!Array.isArray(coins)) throw this.client.invalid('answered a search without a coin list');
    const matches = coins
      .map(obj)
      .filter((c) => typeof c.id === 'string' && typeof c.symbol === 'string' && c.symbol.toUpperCase() === symbol.toUpperCase())
      .map((c) => ({ id: c.id as string, symbol: (c.symbol as string).toUpperCase(), name: typeof c.name === 'string' ? c.name : (c.id as string), market_cap_rank: typeof c.market_cap_rank === 'number' ? c.market_cap_rank : null }));
    // Many tokens copy a famous symbol; the one with the highest market cap is the one meant.
    matches.sort((a, b) => (a.market_cap_rank ?? Infinity) - (b.market_cap_rank ?? Infinity));
    return matches[0];
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
