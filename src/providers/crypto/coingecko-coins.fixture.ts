/**
 * CoinGecko coins for the provider double (tests only), in the documented shape of `/coins/{id}`
 * (and of `/coins/{platform}/contract/{address}`, which answers the same document) and of the coins
 * of `/search`. Figures are recorded-style, fixed: tests compare against them.
 */

const detail = (id: string, symbol: string, name: string, rank: number, platforms: Record<string, [string, number]>, market: Record<string, number | null>, updated: string) => ({
  id,
  symbol,
  name,
  web_slug: id,
  asset_platform_id: Object.keys(platforms)[0] ?? null,
  platforms: Object.fromEntries(Object.entries(platforms).map(([p, [address]]) => [p, address])),
  detail_platforms: Object.fromEntries(Object.entries(platforms).map(([p, [address, decimals]]) => [p, { decimal_place: decimals, contract_address: address }])),
  block_time_in_minutes: 0,
  hashing_algorithm: null,
  categories: [],
  description: { en: '' },
  links: { homepage: [`https://${id}.example`] },
  market_cap_rank: rank,
  market_data: {
    current_price: { usd: market.price, eur: null },
    market_cap: { usd: market.cap },
    fully_diluted_valuation: { usd: market.fdv },
    total_volume: { usd: market.volume },
    high_24h: { usd: market.high },
    low_24h: { usd: market.low },
    price_change_24h: null,
    price_change_percentage_24h: market.d1,
    price_change_percentage_7d: market.d7,
    price_change_percentage_30d: market.d30,
    market_cap_rank: rank,
    total_supply: market.total,
    max_supply: market.max,
    circulating_supply: market.circulating,
    last_updated: updated,
  },
  last_updated: updated,
});

export const COINGECKO_COINS: Record<string, ReturnType<typeof detail>> = {
  'usd-coin': detail(
    'usd-coin',
    'usdc',
    'USDC',
    7,
    { ethereum: ['0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 6], base: ['0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 6] },
    { price: 0.999812, cap: 61_254_880_112, fdv: 61_260_119_402, volume: 7_912_334_650, high: 1.000214, low: 0.999406, d1: -0.00831, d7: 0.01207, d30: -0.00412, total: 61_266_341_028.4, max: null, circulating: 61_258_770_145.2 },
    '2025-06-01T11:59:12.411Z',
  ),
  'aerodrome-finance': detail(
    'aerodrome-finance',
    'aero',
    'Aerodrome Finance',
    89,
    { base: ['0x940181a94a35a4569e4529a3cdfb74e38fd98631', 18] },
    { price: 0.7132, cap: 601_884_512, fdv: 1_257_331_904, volume: 38_204_117, high: 0.7241, low: 0.6779, d1: 4.83, d7: 12.36, d30: 21.9, total: 1_762_946_113.6, max: null, circulating: 843_921_006.2 },
    '2025-06-01T11:58:47.902Z',
  ),
  uniswap: detail(
    'uniswap',
    'uni',
    'Uniswap',
    31,
    { ethereum: ['0x1f9840a85d5af5bf1d1762f925bdaddc4201f984', 18], base: ['0xc3de830ea07524a0761646a6a4e4be0e114a3c83', 18] },
    { price: 6.412, cap: 3_851_230_448, fdv: 6_412_004_771, volume: 171_442_908, high: 6.598, low: 6.281, d1: -2.41, d7: -6.87, d30: 3.12, total: 1_000_000_000, max: 1_000_000_000, circulating: 600_483_073.7 },
    '2025-06-01T11:59:31.118Z',
  ),
};

const searchCoin = (id: string, rank: number) => {
  const coin = COINGECKO_COINS[id]!;
  return { id, name: coin.name, api_symbol: id, symbol: coin.symbol.toUpperCase(), market_cap_rank: rank, thumb: '', large: '' };
};

/** `/search` coins by upper-cased query. */
export const COINGECKO_COIN_SEARCH: Record<string, unknown[]> = {
  USDC: [searchCoin('usd-coin', 7), { id: 'bridged-usdc-polygon-pos-bridge', name: 'Bridged USDC (Polygon PoS Bridge)', api_symbol: 'bridged-usdc-polygon-pos-bridge', symbol: 'USDC.E', market_cap_rank: 171, thumb: '', large: '' }],
  AERO: [searchCoin('aerodrome-finance', 89)],
  UNI: [searchCoin('uniswap', 31), { id: 'unicorn-token', name: 'Unicorn Token', api_symbol: 'unicorn-token', symbol: 'UNI', market_cap_rank: null, thumb: '', large: '' }],
  UNISWAP: [searchCoin('uniswap', 31), { id: 'uniswap-wormhole', name: 'Uniswap (Wormhole)', api_symbol: 'uniswap-wormhole', symbol: 'UNI', market_cap_rank: null, thumb: '', large: '' }],
};
