/**
 * What the market products share: the CoinGecko asset platform of a chain, the coin a caller's text
 * or contract names (unknown: 404 naming the field, never charged), and token amounts in USD.
 */
import { z } from 'zod';
import { EVM_ADDRESS, ProductInputError } from '../kit/index.ts';
import type { CoinDetail, CryptoPriceProvider } from '../../providers/crypto/coingecko.ts';

/** CoinGecko's asset platform id of each chain this service names (https://api.coingecko.com/api/v3/asset_platforms). */
export const COINGECKO_PLATFORMS: Readonly<Record<string, string>> = {
  ethereum: 'ethereum',
  base: 'base',
  arbitrum: 'arbitrum-one',
  optimism: 'optimistic-ethereum',
  polygon: 'polygon-pos',
};

/**
 * The coin `text` names: a contract address on `chain` (CoinGecko's contract lookup) or a symbol, name
 * or CoinGecko id (`/search`, exact matches only, the largest by market cap). Undefined for an
 * address CoinGecko does not list; 404 naming `field` for a text that names no coin.
 */
export async function resolveCoin(coingecko: CryptoPriceProvider, text: string, chain: string, field: string, signal: AbortSignal): Promise<CoinDetail | undefined> {
  const wanted = text.trim().replace(/^\$/, '');
  if (EVM_ADDRESS.test(wanted)) {
    const platform = COINGECKO_PLATFORMS[chain];
    return platform ? coingecko.coinByContract(platform, wanted, signal) : undefined;
  }
  const ref = await coingecko.coinForText(wanted, signal);
  const coin = ref && (await coingecko.coin(ref.id, signal));
  if (!coin) throw new ProductInputError(`no coin named "${wanted}" (symbol, name or CoinGecko id) is listed on CoinGecko`, 404, field);
  return coin;
}

/** The coin's contract on `chain` per CoinGecko, when it has one there. */
export function contractOn(coin: CoinDetail, chain: string): { address: string; decimals: number | null } | undefined {
  const platform = COINGECKO_PLATFORMS[chain];
  return platform ? coin.contracts[platform] : undefined;
}

/** An amount in a token's smallest unit, in USD (floating point: a report figure, not an amount to pay). */
export function atomicToUsd(atomic: bigint, decimals: number | null, priceUsd: number | null): number | null {
  if (decimals === null || priceUsd === null) return null;
  return Math.round((Number(atomic) / 10 ** decimals) * priceUsd * 100) / 100;
}

/** The smallest-unit amount worth at least `usd` (rounded up), or null without a price. */
export function usdToAtomic(usd: number, decimals: number | null, priceUsd: number | null): bigint | null {
  if (decimals === null || priceUsd === null || priceUsd <= 0) return null;
  const tokens = usd / priceUsd;
  // Six significant decimals of the token amount, then scaled exactly.
  const micro = BigInt(Math.ceil(tokens * 1e6));
  return decimals >= 6 ? micro * 10n ** BigInt(decimals - 6) : (micro + 10n ** BigInt(6 - decimals) - 1n) / 10n ** BigInt(6 - decimals);
}

/** What an answer says about the coin it read. */
export const coinSchema = () =>
  z
    .object({
      coingecko_id: z.string().describe('CoinGecko id of the coin'),
      symbol: z.string().describe('Ticker symbol'),
      name: z.string().describe('Name'),
      market_cap_rank: z.int().nullable().describe('CoinGecko market-cap rank'),
    })
    .describe('The coin, as CoinGecko lists it');

export const coinOf = (detail: CoinDetail) => ({ coingecko_id: detail.coin.id, symbol: detail.coin.symbol, name: detail.coin.name, market_cap_rank: detail.coin.market_cap_rank });
