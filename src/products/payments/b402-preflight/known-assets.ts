/**
 * Stablecoins b402_preflight can value (a known asset's amount is USD at 1:1), by CAIP-2 network, and
 * x402 v1's network names. BNB Chain (eip155:56) is where b402 (x402-style payments on BNB Chain)
 * settles; its USDC and USDT have 18 decimals there. The instance's own dev assets are added at run time.
 */
import { EVM_CHAIN_DEFAULTS } from '../../../providers/chains.ts';
import type { ProductContext } from '../../kit/index.ts';

export interface KnownAsset {
  symbol: string;
  decimals: number;
}

const USDC6 = { symbol: 'USDC', decimals: 6 };

export const KNOWN_ASSETS: Record<string, Record<string, KnownAsset>> = {
  ...Object.fromEntries(Object.values(EVM_CHAIN_DEFAULTS).map(({ chain, usdc }) => [`eip155:${chain.id}`, { [usdc.toLowerCase()]: USDC6 }])),
  'eip155:84532': { '0x036cbd53842c5426634e7929541ec2318f3dcf7e': USDC6 },
  'eip155:56': { '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d': { symbol: 'USDC', decimals: 18 }, '0x55d398326f99059ff775485246999027b3197955': { symbol: 'USDT', decimals: 18 } },
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': { EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: USDC6 },
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': { '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU': USDC6 },
};

export type AssetTable = Record<string, Record<string, KnownAsset>>;

/** KNOWN_ASSETS plus this instance's own USDC (the dev chain's and the dev Solana VM's mint among them). */
export function knownAssets(ctx: Pick<ProductContext, 'chains'>): AssetTable {
  const table: AssetTable = { ...KNOWN_ASSETS };
  for (const chain of [ctx.chains?.evm('base'), ctx.chains?.solana]) {
    if (!chain) continue;
    const mine = 'usdc' in chain ? chain.usdc.toLowerCase() : chain.usdcMint;
    table[chain.network] = { ...table[chain.network], [mine]: USDC6 };
  }
  return table;
}

/** A known asset of a network: EVM addresses in any case, Solana mints as they are. */
export const assetIn = (table: AssetTable, network: string, asset: string): KnownAsset | undefined => table[network]?.[asset.toLowerCase()] ?? table[network]?.[asset];

/** x402 v1 network names and their CAIP-2 ids. */
export const V1_NETWORKS: Record<string, string> = {
  base: 'eip155:8453',
  'base-sepolia': 'eip155:84532',
  ethereum: 'eip155:1',
  polygon: 'eip155:137',
  arbitrum: 'eip155:42161',
  optimism: 'eip155:10',
  bsc: 'eip155:56',
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana-devnet': 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
};

/**
 * Networks a public facilitator settles, besides this service's own: the CDP facilitator's
 * (docs.cdp.coinbase.com, x402 "Network support") and the b402 facilitator's BNB Chain.
 */
export const PUBLIC_FACILITATOR_NETWORKS: readonly string[] = [
  'eip155:8453',
  'eip155:84532',
  'eip155:137',
  'eip155:56',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
];
