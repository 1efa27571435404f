/**
 * Alpha Vantage's stock API (https://www.alphavantage.co/documentation/): `GET /query?function=GLOBAL_QUOTE&symbol=…`
 * for the latest quote and `GET /query?function=OVERVIEW&symbol=…` for the company (name, exchange,
 * currency, market capitalization). The key travels as the `apikey` query parameter (see settings).
 *
 * Alpha Vantage answers HTTP 200 to almost everything: a rate limit is `{"Note": …}` or
 * `{"Information": …}`, a malformed call or a bad key `{"Error Message": …}`, and an unknown symbol an
 * empty `"Global Quote": {}` (or an error message). Those are read here; their text is never passed on.
 */
import type { ProviderClient, ProviderRequest } from '../api/client.ts';

export interface EquityQuote {
  symbol: string;
  open: number;
  day_high: number;
  day_low: number;
  price: number;
  volume: number;
  /** The last day the quote covers, YYYY-MM-DD. */
  latest_trading_day: string;
  previous_close: number;
  change: number;
  /** In percent: 1.23 is 1.23 %. */
  change_pct: number;
  /** The request, without the key. */
  source_url: string;
}

export interface CompanyOverview {
  name: string | null;
  exchange: string | null;
  currency: string | null;
  market_cap: number | null;
  /** The request, without the key. */
  source_url: string;
}

export interface EquityQuoteProvider {
  readonly name: string;
  /** The latest quote of a symbol; undefined when the provider knows no such symbol. */
  quote(symbol: string, signal?: AbortSignal): Promise<EquityQuote | undefined>;
  /** The company behind a listed symbol; its fields are null where the provider has no overview (funds, some listings). */
  overview(symbol: string, signal?: AbortSignal): Promise<CompanyOverview>;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
/** Alpha Vantage writes numbers as strings ("189.9800", "0.4857%"); "None" and "-" mean no value. */
const decimal = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().replace(/%$/, '');
  if (!/^[-+]?\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
};
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' && value !== 'None' ? value.trim() : null);

/** A company's name, exchange and market cap move slowly: six hours. */
const OVERVIEW_TTL_MS = 6 * 3_600_000;

export class AlphaVantageEquities implements EquityQuoteProvider {
  readonly name = 'Alpha Vantage';

  constructor(private readonly client: ProviderClient) {}

  /** A rate limit or a refusal in a 200 answer (thrown by the client, so never cached). */
  private readonly refusal = (answer: unknown): Error | undefined => {
    const body = obj(answer);
    if (typeof body.Note === 'string') return this.client.rateLimited();
    if (typeof body.Information === 'string') {
      // The same field carries daily and per-minute limits and premium-only notices.
      return /rate limit|call frequency|requests per/i.test(body.Information) ? this.client.rateLimited() : this.client.invalid('answered with a notice instead of data');
    }
    const error = body['Error Message'];
    return typeof error === 'string' && /apikey/i.test(error) ? this.client.invalid("refused this instance's key") : undefined;
  };

  /** The answer's body; undefined for Alpha Vantage's error message (its answer to a symbol it does not know). */
  private async call(request: ProviderRequest, signal?: AbortSignal): Promise<Json | undefined> {
    const body = obj((await this.client.request({ ...request, refusal: this.refusal }, signal)).body);
    return typeof body['Error Message'] === 'string' ? undefined : body;
  }

  async quote(symbol: string, signal?: AbortSignal): Promise<EquityQuote | undefined> {
    const request: ProviderRequest = { path: '', query: { function: 'GLOBAL_QUOTE', symbol } };
    const body = await this.call(request, signal);
    if (!body) return undefined;
    if (!('Global Quote' in body)) throw this.client.invalid('answered a quote without "Global Quote"');
    const q = obj(body['Global Quote']);
    if (Object.keys(q).length === 0) return undefined;
    const fields = {
      open: decimal(q['02. open']),
      day_high: decimal(q['03. high']),
      day_low: decimal(q['04. low']),
      price: decimal(q['05. price']),
      volume: decimal(q['06. volume']),
      previous_close: decimal(q['08. previous close']),
      change: decimal(q['09. change']),
      change_pct: decimal(q['10. change percent']),
    };
    const day = text(q['07. latest trading day']);
    const missing = Object.entries(fields).find(([, v]) => v === undefined);
    if (missing || !day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) throw this.client.invalid('answered a quote with missing or malformed figures');
    return { symbol: text(q['01. symbol']) ?? symbol, ...(fields as { [K in keyof typeof fields]: number }), latest_trading_day: day, source_url: this.client.citedUrl(request) };
  }

  async overview(symbol: string, signal?: AbortSignal): Promise<CompanyOverview> {
    const request: ProviderRequest = { path: '', query: { function: 'OVERVIEW', symbol }, cacheTtlMs: OVERVIEW_TTL_MS };
    // An empty object is Alpha Vantage's answer for a listing it has no overview of (ETFs, recent listings).
    const body = (await this.call(request, signal)) ?? {};
    return {
      name: text(body.Name),
      exchange: text(body.Exchange),
      currency: text(body.Currency),
      market_cap: decimal(body.MarketCapitalization) ?? null,
      source_url: this.client.citedUrl(request),
    };
  }
}
