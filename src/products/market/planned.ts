import { z } from 'zod';
import { READ_EXTERNAL, planned } from '../kit/index.ts';

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

export const tradingSignals = planned({
  id: 'trading-signals',
  title: 'Trading signals',
  description:
    'Returns a trading `signal` for a token (address or symbol) with the whale activity (`whale_activity`) and DEX volume (`dex_volume`) behind it.',
  price: { http: '0.05', mcp: '0.005' },
  annotations: READ_EXTERNAL,
  input: z.object({
    token: z.string().min(1).describe('Token contract address or symbol'),
    chain: z.string().default('base').describe('Chain of the token'),
  }),
  inputExample: { token: 'AERO', chain: 'base' },
  output: tradingSignalsOutput,
  outputExample: {
    signal: 'bullish',
    whale_activity: { buys: 14, sells: 5, net_flow_usd: 412_000 },
    dex_volume: { volume_24h_usd: 38_200_000, change_24h_pct: 12.4 },
  },
});

export const marketIntel = planned({
  id: 'market-intel',
  title: 'Market intelligence',
  description: 'Returns an intelligence report on a crypto project: market data, on-chain activity, liquidity, holders, news and risks.',
  price: '0.10',
  annotations: READ_EXTERNAL,
  input: z.object({
    project: z.string().min(1).describe('Project name, token symbol or contract address'),
    chain: z.string().default('ethereum').describe('Chain of the project'),
  }),
  inputExample: { project: 'Uniswap', chain: 'ethereum' },
});

export const usEquitySnapshot = planned({
  id: 'us-equity-snapshot',
  title: 'US equity snapshot',
  description: 'Returns a snapshot of one US-listed stock: last price, change, volume, day range, market cap and the quote time.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    symbol: z
      .string()
      .regex(/^[A-Za-z][A-Za-z.-]{0,9}$/)
      .describe('Ticker symbol, e.g. "AAPL" or "BRK.B"'),
  }),
  inputExample: { symbol: 'AAPL' },
});
