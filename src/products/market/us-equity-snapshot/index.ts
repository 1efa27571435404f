import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, dataProvider, product } from '../../kit/index.ts';

export const usEquitySnapshotOutput = z.object({
  symbol: z.string().describe('Ticker symbol as Alpha Vantage quoted it'),
  name: z.string().nullable().describe('Company name; null where Alpha Vantage has no company overview (funds, some listings)'),
  exchange: z.string().nullable().describe('Listing exchange, e.g. "NYSE" or "NASDAQ"; null without an overview'),
  currency: z.string().nullable().describe('Currency of the figures (ISO 4217), from the company overview; null without one'),
  price: z.number().describe('Last price'),
  change: z.number().describe('Change from the previous close, in the currency'),
  change_pct: z.number().describe('Change from the previous close, in percent'),
  open: z.number().describe('Opening price of the latest trading day'),
  day_high: z.number().describe('Highest price of the latest trading day'),
  day_low: z.number().describe('Lowest price of the latest trading day'),
  previous_close: z.number().describe('Closing price of the trading day before'),
  volume: z.number().int().describe('Shares traded on the latest trading day'),
  market_cap: z.number().nullable().describe('Market capitalization in the currency, from the company overview (refreshed by Alpha Vantage about daily); null without one'),
  latest_trading_day: z.iso.date().describe('The trading day the quote covers, YYYY-MM-DD (Alpha Vantage gives the day, not a time)'),
  retrieved_at: z.iso.datetime().describe('When this instance read the quote, ISO 8601'),
  source: z
    .object({
      provider: z.string().describe('The data provider'),
      quote_url: z.string().describe('The quote request (GLOBAL_QUOTE), without the key'),
      overview_url: z.string().describe('The company overview request (OVERVIEW), without the key'),
    })
    .describe('Where the figures come from'),
});

/**
 * One US-listed stock from Alpha Vantage: documented and widely used, a free key tier, and one call
 * for a quote (GLOBAL_QUOTE) plus one, cached for hours, for the company (OVERVIEW). On sale where
 * ALPHAVANTAGE_API_KEY is set.
 */
export const usEquitySnapshot = product({
  id: 'us-equity-snapshot',
  title: 'US equity snapshot',
  description:
    'Returns a snapshot of one US-listed stock from Alpha Vantage: last price, change and change in percent, open, day high and low, previous close, volume, the trading day quoted, and the company name, exchange, currency and market cap, with the provider URLs. An unknown symbol is 404, not charged.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    symbol: z
      .string()
      .regex(/^[A-Za-z][A-Za-z.-]{0,9}$/)
      .describe('Ticker symbol, e.g. "IBM" or "BRK.B"'),
  }),
  inputExample: { symbol: 'IBM' },
  output: usEquitySnapshotOutput,
  outputExample: {
    symbol: 'IBM',
    name: 'International Business Machines',
    exchange: 'NYSE',
    currency: 'USD',
    price: 259.06,
    change: -1.01,
    change_pct: -0.3884,
    open: 258.7,
    day_high: 260.15,
    day_low: 257.01,
    previous_close: 260.07,
    volume: 4104731,
    market_cap: 240763355000,
    latest_trading_day: '2025-05-30',
    retrieved_at: '2025-06-01T12:00:00.000Z',
    source: {
      provider: 'Alpha Vantage',
      quote_url: 'http://providers.invalid/alphavantage/query?function=GLOBAL_QUOTE&symbol=IBM',
      overview_url: 'http://providers.invalid/alphavantage/query?function=OVERVIEW&symbol=IBM',
    },
  },
  requires: ['equity-quotes'],
  run: async (input, ctx) => {
    const alphaVantage = dataProvider(ctx, 'equities');
    const symbol = input.symbol.toUpperCase();
    const quote = await alphaVantage.quote(symbol, ctx.signal);
    if (!quote) throw new ProductInputError(`Alpha Vantage knows no listed symbol ${symbol}`, 404, 'symbol', 'not-found');
    const company = await alphaVantage.overview(symbol, ctx.signal);
    return {
      symbol: quote.symbol,
      name: company.name,
      exchange: company.exchange,
      currency: company.currency,
      price: quote.price,
      change: quote.change,
      change_pct: quote.change_pct,
      open: quote.open,
      day_high: quote.day_high,
      day_low: quote.day_low,
      previous_close: quote.previous_close,
      volume: quote.volume,
      market_cap: company.market_cap,
      latest_trading_day: quote.latest_trading_day,
      retrieved_at: ctx.now.toISOString(),
      source: { provider: alphaVantage.name, quote_url: quote.source_url, overview_url: company.source_url },
    };
  },
});
