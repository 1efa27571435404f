import { z } from 'zod';
import { FIXED, X402_BOTH, unavailable, type Product } from './types.ts';

const READ_EXTERNAL = { readOnlyHint: true, openWorldHint: true } as const;

export const cryptoPriceOutput = z.object({
  symbol: z.string().describe('Token symbol'),
  price: z.number().describe('Price in USD'),
  change_24h: z.number().describe('Price change over 24 hours, in percent'),
});

export const tradingSignalsOutput = z.looseObject({
  signal: z.string().describe('The signal, e.g. "bullish", "neutral" or "bearish"'),
  whale_activity: z.looseObject({}).describe('Large-holder buys, sells and net flow'),
  dex_volume: z.looseObject({}).describe('DEX volume and its change'),
});

export const marketProducts: Product[] = [
  unavailable({
    id: 'crypto-price',
    title: 'Crypto price',
    description: 'Returns the USD price of one token symbol (`price`) and its 24-hour change in percent (`change_24h`).',
    category: 'market',
    http: { method: 'GET', path: '/api/v1/paid/crypto-price', price: '0.004' },
    mcp: { tool: 'crypto_price', price: '0.004', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      symbol: z.string().min(1).max(20).describe('Token symbol, e.g. "ETH"'),
    }),
    inputExample: { symbol: 'ETH' },
    outputSchema: z.toJSONSchema(cryptoPriceOutput),
    outputExample: { symbol: 'ETH', price: 2534.12, change_24h: -1.84 },
  }),
  unavailable({
    id: 'trading-signals',
    title: 'Trading signals',
    description:
      'Returns a trading `signal` for a token (address or symbol) with the whale activity (`whale_activity`) and DEX volume (`dex_volume`) behind it.',
    category: 'market',
    http: { method: 'POST', path: '/api/v1/paid/trading-signals', price: '0.05' },
    mcp: { tool: 'trading_signals', price: '0.005', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      token: z.string().min(1).describe('Token contract address or symbol'),
      chain: z.string().default('base').describe('Chain of the token'),
    }),
    inputExample: { token: 'AERO', chain: 'base' },
    outputSchema: z.toJSONSchema(tradingSignalsOutput),
    outputExample: {
      signal: 'bullish',
      whale_activity: { buys: 14, sells: 5, net_flow_usd: 412_000 },
      dex_volume: { volume_24h_usd: 38_200_000, change_24h_pct: 12.4 },
    },
  }),
  unavailable({
    id: 'market-intel',
    title: 'Market intelligence',
    description: 'Returns an intelligence report on a crypto project: market data, on-chain activity, liquidity, holders, news and risks.',
    category: 'market',
    http: { method: 'POST', path: '/api/v1/paid/market-intel', price: '0.10' },
    mcp: { tool: 'market_intel', price: '0.10', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      project: z.string().min(1).describe('Project name, token symbol or contract address'),
      chain: z.string().default('ethereum').describe('Chain of the project'),
    }),
    inputExample: { project: 'Uniswap', chain: 'ethereum' },
  }),
  unavailable({
    id: 'us-equity-snapshot',
    title: 'US equity snapshot',
    description: 'Returns a snapshot of one US-listed stock: last price, change, volume, day range, market cap and the quote time.',
    category: 'market',
    http: { method: 'POST', path: '/api/v1/paid/us-equity-snapshot', price: '0.01' },
    mcp: { tool: 'us_equity_snapshot', price: '0.01', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      symbol: z
        .string()
        .regex(/^[A-Za-z][A-Za-z.-]{0,9}$/)
        .describe('Ticker symbol, e.g. "AAPL" or "BRK.B"'),
    }),
    inputExample: { symbol: 'AAPL' },
  }),
];
