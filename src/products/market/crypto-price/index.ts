import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, UpstreamError, dataProvider, product } from '../../kit/index.ts';
import { cryptoPriceOutput } from '../planned.ts';

/** USD price of one symbol from CoinGecko (keyless by default; prices cached COINGECKO_CACHE_SECONDS, 60 s, symbol lookups 1 h). */
export const cryptoPrice = product({
  id: 'crypto-price',
  title: 'Crypto price',
  description:
    'Returns the USD price of one token symbol (`price`) and its 24-hour change in percent (`change_24h`), from CoinGecko, with the coin the symbol was read as (the largest by market cap among coins sharing it) and the price time. An unknown symbol is 422, not charged.',
  method: 'GET',
  price: '0.004',
  annotations: READ_EXTERNAL,
  input: z.object({
    symbol: z
      .string()
      .min(1)
      .max(20)
      .regex(/^\$?[A-Za-z0-9][A-Za-z0-9.-]*$/, 'letters, digits, dots and dashes, e.g. "ETH"')
      .describe('Token symbol, e.g. "ETH"'),
  }),
  inputExample: { symbol: 'ETH' },
  output: cryptoPriceOutput.extend({
    coin_id: z.string().describe('CoinGecko id of the coin the symbol was read as'),
    name: z.string().describe('Coin name'),
    last_updated_at: z.string().nullable().describe('When CoinGecko last updated the price, ISO 8601'),
    source: z.string().describe('The price source'),
  }),
  outputExample: { symbol: 'ETH', price: 2534.12, change_24h: -1.84, coin_id: 'ethereum', name: 'Ethereum', last_updated_at: '2025-06-01T11:59:31.000Z', source: 'CoinGecko' },
  requires: ['crypto-prices'],
  run: async (input, ctx) => {
    const coingecko = dataProvider(ctx, 'crypto');
    const symbol = input.symbol.replace(/^\$/, '').toUpperCase();
    const coin = await coingecko.coinForSymbol(symbol, ctx.signal);
    if (!coin) throw new ProductInputError(`no coin with the symbol ${symbol} is listed on CoinGecko`, 422, 'symbol');
    const price = await coingecko.price(coin, ctx.signal);
    if (!price) throw new ProductInputError(`CoinGecko lists ${symbol} (${coin.id}) but has no USD price for it`, 422, 'symbol');
    // CoinGecko documents a null 24h change as the sign of a stale price: not sold.
    if (price.change_24h_pct === null) throw new UpstreamError(`CoinGecko's price of ${symbol} is stale (no 24-hour change)`, 502, 'symbol');
    return {
      symbol,
      price: price.price_usd,
      change_24h: price.change_24h_pct,
      coin_id: coin.id,
      name: coin.name,
      last_updated_at: price.last_updated_at,
      source: coingecko.name,
    };
  },
});
