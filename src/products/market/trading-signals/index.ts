/**
 * trading_signals: a deterministic signal for one token from three kinds of evidence, each stated
 * with the answer: price momentum (CoinGecko's 24-hour and 7-day change), DEX volume (the token's
 * Uniswap v2/v3-style swaps in the block index, onchain.ts) and whale flows (its transfers worth
 * $100,000 or more, in or out of DEX pools). The rule is rule.ts; the answer carries every input.
 *
 * Needs the index for the chain (the DEX and whale figures) and CoinGecko (symbols, prices, the
 * USD whale threshold); CoinGecko is keyless and on by default. An unknown symbol, a coin without a
 * contract on the chain, or an address neither CoinGecko nor the index knows: 404 on `token`. A chain
 * the index does not read: 422 on `chain` (the catalogue refuses it before payment). Neither is charged.
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { EVM_ADDRESS, ProductInputError, READ_EXTERNAL, dataProvider, product } from '../../kit/index.ts';
import { addressOut, chainIdentity } from '../../chain/evm.ts';
import { atomicString, covers, indexedChain, indexedRange, indexedRangeSchema, isoTime, ratio, ratioString, requireIndexed, signedAtomicString } from '../../chain/index-read.ts';
import type { CoinDetail } from '../../../providers/crypto/coingecko.ts';
import { atomicToUsd, coinOf, coinSchema, contractOn, resolveCoin, usdToAtomic } from '../coins.ts';
import { LARGEST, WINDOW_HOURS, dexVolume, indexedSupply, whaleTransfers, type DexWindow } from './onchain.ts';
import { RULE_TEXT, applyRule } from './rule.ts';

/** A whale transfer is worth at least this much (USD at CoinGecko's price). */
export const WHALE_USD = 100_000;
/** Without a USD price: at least this fraction of the supply the index has seen minted (1 / 1000 = 0.1%). */
export const WHALE_SUPPLY_DIVISOR = 1_000n;

const DISCLAIMER = 'A mechanical reading of the figures below by the published rule; not investment advice.';

const dexWindow = () =>
  z.object({
    swaps: z.int().min(0).describe('Swaps of the token'),
    buys: z.int().min(0).describe('Swaps that took the token out of a pool'),
    sells: z.int().min(0).describe('Swaps that put the token into a pool'),
    bought_atomic: atomicString().describe('Token taken out of pools (smallest unit)'),
    sold_atomic: atomicString().describe('Token put into pools (smallest unit)'),
    volume_atomic: atomicString().describe('bought + sold'),
  });

const flow = () =>
  z.object({
    count: z.int().min(0).describe('Transfers'),
    amount_atomic: atomicString().describe('Their total (smallest unit)'),
  });

export const tradingSignals = product({
  id: 'trading-signals',
  title: 'Trading signals',
  description:
    "Returns a trading `signal` (bullish, neutral or bearish) for a token (contract address or symbol) on an indexed chain, by a published rule over CoinGecko's 24-hour and 7-day price change, the token's DEX buy share (Uniswap v2/v3-style swaps in percall's block index, `dex_volume`) and whales' net flow out of DEX pools (transfers of $100,000 or more, `whale_activity`); every input and its source is in the answer.",
  price: { http: '0.05', mcp: '0.005' },
  annotations: READ_EXTERNAL,
  requires: ['index', 'crypto-prices'],
  input: z.object({
    token: z
      .string()
      .min(1)
      .max(64)
      .regex(/^(0x[0-9a-fA-F]{40}|\$?[A-Za-z0-9][A-Za-z0-9.-]{0,19})$/, 'a contract address (0x + 40 hex) or a ticker symbol')
      .describe('Token contract address (0x + 40 hex characters) or ticker symbol, e.g. "AERO"'),
    chain: z.string().regex(/^[a-z]{1,20}$/, 'a chain name in lowercase, e.g. "base"').default('base').describe('Chain of the token; must be one this instance indexes'),
  }),
  inputExample: { token: 'AERO', chain: 'base' },
  output: z.object({
    signal: z.enum(['bullish', 'neutral', 'bearish']).describe('The rule’s verdict from `score`'),
    score: z.int().min(-4).max(4).describe('Sum of the four votes in `components`'),
    rule: z.string().describe('The rule, as applied'),
    components: z
      .array(
        z.object({
          rule: z.enum(['price_change_24h', 'price_change_7d', 'dex_buy_share', 'whale_net_flow']).describe('Which input'),
          input: z.union([z.number(), z.string()]).nullable().describe('The input as read (percent, a share, or a signed amount in the smallest unit); null when missing'),
          vote: z.union([z.literal(-1), z.literal(0), z.literal(1)]).describe('Its vote'),
          evidence: z.string().describe('Where the input comes from'),
        }),
      )
      .describe('The votes behind the score'),
    ...chainIdentity,
    token: z
      .object({
        address: addressOut().describe('The token contract read from the index, EIP-55 checksummed'),
        decimals: z.int().min(0).nullable().describe('Its decimals per CoinGecko; null when not listed'),
        coin: coinSchema().nullable().describe('The coin, as CoinGecko lists it; null when CoinGecko does not list the contract'),
      })
      .describe('The token'),
    momentum: z
      .object({
        price_usd: z.number().nullable().describe('Price in USD'),
        change_24h_pct: z.number().nullable().describe('Price change over 24 hours, percent'),
        change_7d_pct: z.number().nullable().describe('Price change over 7 days, percent'),
        last_updated: z.string().nullable().describe('When CoinGecko last updated these figures'),
        source_url: z.string().nullable().describe('The CoinGecko API URL they were read from; null when not listed'),
      })
      .describe('Price momentum from CoinGecko'),
    dex_volume: dexWindow()
      .extend({
        window_hours: z.literal(WINDOW_HOURS).describe('Length of the window, ending at the call'),
        volume_usd: z.number().nullable().describe('volume_atomic in USD at the current price; null without price or decimals'),
        buy_share: ratioString().nullable().describe('bought / volume, 6 decimals; null without volume'),
        pools: z.int().min(0).describe('Pools that moved the token and emitted a Swap event in the last 48 hours, with the token’s side known'),
        unresolved_pools: z.int().min(0).describe('Such pools whose side no swap told (no output leg matched): left out of the figures'),
        previous: dexWindow().describe(`The ${WINDOW_HOURS} hours before the window`),
        change_pct: z.number().nullable().describe('Volume change against the previous window, percent; null when it had none'),
        evidence: z.string().describe('How the figures are read'),
      })
      .describe(`The token’s DEX swaps in the last ${WINDOW_HOURS} hours`),
    whale_activity: z
      .object({
        threshold: z
          .object({
            basis: z.enum(['usd', 'indexed_supply', 'none']).describe(`usd: worth $${WHALE_USD.toLocaleString('en-US')} or more; indexed_supply: 0.1% or more of the supply minted in the index (no USD price); none: neither known, no whale counted`),
            usd: z.number().nullable().describe('The USD threshold, when basis is usd'),
            amount_atomic: atomicString().nullable().describe('The threshold in the smallest unit'),
          })
          .describe('What counts as a whale transfer'),
        transfers: z.int().min(0).describe('Whale transfers in the window'),
        from_venues: flow().describe('Out of DEX pools (buys and liquidity withdrawals)'),
        to_venues: flow().describe('Into DEX pools (sells and liquidity deposits)'),
        other: flow().describe('Between other addresses (wallets, centralised exchanges the index cannot tell, mints, burns)'),
        net_from_venues_atomic: signedAtomicString().describe('from_venues − to_venues (positive: whales took more out of pools than they put in)'),
        largest: z
          .array(
            z.object({
              tx_hash: z.string().describe('Transaction'),
              block_number: z.int().min(0).describe('Block'),
              time: isoTime().describe('Block time (UTC)'),
              from: addressOut().describe('Sender'),
              to: addressOut().describe('Recipient'),
              amount_atomic: atomicString().describe('Amount (smallest unit)'),
              amount_usd: z.number().nullable().describe('In USD at the current price'),
              direction: z.enum(['from_venue', 'to_venue', 'other']).describe('Relative to DEX pools'),
            }),
          )
          .describe(`The ${LARGEST} largest, largest first`),
        evidence: z.string().describe('How the figures are read'),
      })
      .describe(`Large transfers of the token in the last ${WINDOW_HOURS} hours`),
    window: z
      .object({
        from: isoTime().describe('Start (UTC)'),
        to: isoTime().describe('End: the call’s time'),
        to_block: z.int().min(0).describe('Last block counted'),
        complete: z.boolean().describe('Whether the index covers both windows (48 hours)'),
      })
      .describe('The on-chain window'),
    indexed: indexedRangeSchema(),
    disclaimer: z.string().describe('What the signal is and is not'),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337, its USDC listed as usd-coin by the CoinGecko double) in test/market-products.test.ts.
  outputExample: {
    "signal": "neutral",
    "score": 0,
    "rule": "score = sum of four votes (+1, 0, −1): 24-hour price change ≥ +2% (+1) or ≤ −2% (−1); 7-day price change ≥ +5% (+1) or ≤ −5% (−1); DEX buy share of the 24-hour swap volume ≥ 0.55 (+1) or ≤ 0.45 (−1); whales' net flow out of DEX pools in 24 hours > 0 (+1) or < 0 (−1); a missing input votes 0. signal: bullish when score ≥ 2, bearish when ≤ −2, else neutral",
    "components": [
      {
        "rule": "price_change_24h",
        "input": -0.00831,
        "vote": 0,
        "evidence": "CoinGecko http://127.0.0.1:34373/coingecko/api/v3/coins/base/contract/0x5fbdb2315678afecb367f032d93f642f64180aa3?localization=false&tickers=false&market_data=true&community_data=false&developer_data=false&sparkline=false"
      },
      {
        "rule": "price_change_7d",
        "input": 0.01207,
        "vote": 0,
        "evidence": "CoinGecko http://127.0.0.1:34373/coingecko/api/v3/coins/base/contract/0x5fbdb2315678afecb367f032d93f642f64180aa3?localization=false&tickers=false&market_data=true&community_data=false&developer_data=false&sparkline=false"
      },
      {
        "rule": "dex_buy_share",
        "input": 0.957596,
        "vote": 1,
        "evidence": "block index: swaps of the token in the last 24 h (dex_volume: 2 swaps, 1 pools)"
      },
      {
        "rule": "whale_net_flow",
        "input": "-87084329104",
        "vote": -1,
        "evidence": "block index: whale transfers in the last 24 h, out of DEX pools minus into them (whale_activity)"
      }
    ],
    "chain": "base",
    "network": "eip155:31337",
    "token": {
      "address": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "decimals": 6,
      "coin": {
        "coingecko_id": "usd-coin",
        "symbol": "USDC",
        "name": "USDC",
        "market_cap_rank": 7
      }
    },
    "momentum": {
      "price_usd": 0.999812,
      "change_24h_pct": -0.00831,
      "change_7d_pct": 0.01207,
      "last_updated": "2025-06-01T11:59:12.411Z",
      "source_url": "http://127.0.0.1:34373/coingecko/api/v3/coins/base/contract/0x5fbdb2315678afecb367f032d93f642f64180aa3?localization=false&tickers=false&market_data=true&community_data=false&developer_data=false&sparkline=false"
    },
    "dex_volume": {
      "window_hours": 24,
      "swaps": 2,
      "buys": 1,
      "sells": 1,
      "bought_atomic": "112915670896",
      "sold_atomic": "5000000000",
      "volume_atomic": "117915670896",
      "volume_usd": 117893.5,
      "buy_share": "0.957596",
      "pools": 1,
      "unresolved_pools": 0,
      "previous": {
        "swaps": 0,
        "buys": 0,
        "sells": 0,
        "bought_atomic": "0",
        "sold_atomic": "0",
        "volume_atomic": "0"
      },
      "change_pct": null,
      "evidence": "uniswap_v2_swaps and uniswap_v3_swaps of the pools that hold the token, its side of each pool read from the swaps’ output legs in erc20_transfers (same transaction, amount equal to the Swap’s output)"
    },
    "whale_activity": {
      "threshold": {
        "basis": "usd",
        "usd": 100000,
        "amount_atomic": "100018803536"
      },
      "transfers": 3,
      "from_venues": {
        "count": 1,
        "amount_atomic": "112915670896"
      },
      "to_venues": {
        "count": 1,
        "amount_atomic": "200000000000"
      },
      "other": {
        "count": 1,
        "amount_atomic": "250000000000"
      },
      "net_from_venues_atomic": "-87084329104",
      "largest": [
        {
          "tx_hash": "0x391ccb304afc4506a35492cc53fa976455ff88ef1acdf51899790b837ccbda82",
          "block_number": 5,
          "time": "2026-11-27T02:05:06.000Z",
          "from": "0x0000000000000000000000000000000000000000",
          "to": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
          "amount_atomic": "250000000000",
          "amount_usd": 249953,
          "direction": "other"
        },
        {
          "tx_hash": "0x9a4a32c9e60638e9343601593842126bfcdcabf0bfa27c2841a3b46ee1996369",
          "block_number": 11,
          "time": "2026-11-27T02:05:06.000Z",
          "from": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
          "to": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
          "amount_atomic": "200000000000",
          "amount_usd": 199962.4,
          "direction": "to_venue"
        },
        {
          "tx_hash": "0x7d89016c64ba9d6f8b83e390911da8c44d9f57494c14a9e46029bf4b4cab8da4",
          "block_number": 17,
          "time": "2026-11-27T02:05:06.000Z",
          "from": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
          "to": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
          "amount_atomic": "112915670896",
          "amount_usd": 112894.44,
          "direction": "from_venue"
        }
      ],
      "evidence": "erc20_transfers of the token at or above the threshold; venues are the addresses that emitted a Uniswap v2/v3-style Swap event in the index"
    },
    "window": {
      "from": "2026-11-26T02:05:08.606Z",
      "to": "2026-11-27T02:05:08.606Z",
      "to_block": 17,
      "complete": true
    },
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-27T02:04:57.000Z",
      "to_block": 17,
      "to_time": "2026-11-27T02:05:06.000Z",
      "from_genesis": true
    },
    "disclaimer": "A mechanical reading of the figures below by the published rule; not investment advice."
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, input.chain);
    const coingecko = dataProvider(ctx, 'crypto');
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const detail = await resolveCoin(coingecko, input.token, on.chain, 'token', ctx.signal);
    const contract = tokenContract(input.token, on.chain, detail);
    const seen = await indexedSupply(on, contract.address, range.to_block, ctx.signal);
    if (!detail && seen.transfers === 0) {
      throw new ProductInputError(`${getAddress(input.token)} is neither listed on CoinGecko for ${on.chain} nor has a transfer in the index (blocks ${range.from_block}–${range.to_block})`, 404, 'token');
    }
    const market = detail?.market;
    const price = market?.price_usd ?? null;
    const decimals = contract.decimals;
    const since = new Date(ctx.now.getTime() - WINDOW_HOURS * 3_600_000);

    const dex = await dexVolume(on, contract.address, range.to_block, since, ctx.signal);
    const volume = dex.current.bought + dex.current.sold;
    const previousVolume = dex.previous.bought + dex.previous.sold;

    const usdThreshold = usdToAtomic(WHALE_USD, decimals, price);
    const threshold = usdThreshold ?? (seen.supply > 0n ? (seen.supply + WHALE_SUPPLY_DIVISOR - 1n) / WHALE_SUPPLY_DIVISOR : null);
    const basis: 'usd' | 'indexed_supply' | 'none' = usdThreshold !== null ? 'usd' : threshold !== null ? 'indexed_supply' : 'none';
    const whales = threshold === null ? undefined : await whaleTransfers(on, contract.address, range.to_block, since, threshold, ctx.signal);
    const t = whales?.totals;
    const net = t ? t.from_venue.amount - t.to_venue.amount : null;

    const buyShare = volume > 0n ? ratio(dex.current.bought, volume) : null;
    const { signal, score, components } = applyRule(
      { change24hPct: market?.change_24h_pct ?? null, change7dPct: market?.change_7d_pct ?? null, buyShare: buyShare === null ? null : Number(buyShare), whaleNetFromVenues: net },
      {
        price_change_24h: detail ? `CoinGecko ${detail.source_url}` : 'CoinGecko does not list this contract: no price',
        price_change_7d: detail ? `CoinGecko ${detail.source_url}` : 'CoinGecko does not list this contract: no price',
        dex_buy_share: `block index: swaps of the token in the last ${WINDOW_HOURS} h (dex_volume: ${dex.current.swaps} swaps, ${dex.pools} pools)`,
        whale_net_flow: whales ? `block index: whale transfers in the last ${WINDOW_HOURS} h, out of DEX pools minus into them (whale_activity)` : 'no whale threshold: no USD price and no supply in the index',
      },
    );
    const window = (w: DexWindow) => ({ swaps: w.swaps, buys: w.buys, sells: w.sells, bought_atomic: w.bought.toString(), sold_atomic: w.sold.toString(), volume_atomic: (w.bought + w.sold).toString() });
    const flowOf = (f: { count: number; amount: bigint } | undefined) => ({ count: f?.count ?? 0, amount_atomic: (f?.amount ?? 0n).toString() });
    return {
      signal,
      score,
      rule: RULE_TEXT,
      components,
      chain: on.chain,
      network: on.network,
      token: { address: getAddress(contract.address), decimals, coin: detail ? coinOf(detail) : null },
      momentum: {
        price_usd: price,
        change_24h_pct: market?.change_24h_pct ?? null,
        change_7d_pct: market?.change_7d_pct ?? null,
        last_updated: market?.last_updated ?? null,
        source_url: detail?.source_url ?? null,
      },
      dex_volume: {
        window_hours: WINDOW_HOURS as typeof WINDOW_HOURS,
        ...window(dex.current),
        volume_usd: atomicToUsd(volume, decimals, price),
        buy_share: buyShare,
        pools: dex.pools,
        unresolved_pools: dex.unresolvedPools,
        previous: window(dex.previous),
        change_pct: previousVolume > 0n ? Math.round(((Number(volume) - Number(previousVolume)) / Number(previousVolume)) * 10_000) / 100 : null,
        evidence:
          'uniswap_v2_swaps and uniswap_v3_swaps of the pools that hold the token, its side of each pool read from the swaps’ output legs in erc20_transfers (same transaction, amount equal to the Swap’s output)',
      },
      whale_activity: {
        threshold: { basis, usd: basis === 'usd' ? WHALE_USD : null, amount_atomic: threshold?.toString() ?? null },
        transfers: t ? t.from_venue.count + t.to_venue.count + t.other.count : 0,
        from_venues: flowOf(t?.from_venue),
        to_venues: flowOf(t?.to_venue),
        other: flowOf(t?.other),
        net_from_venues_atomic: (net ?? 0n).toString(),
        largest: (whales?.largest ?? []).map((w) => ({
          tx_hash: w.tx_hash,
          block_number: w.block_number,
          time: w.time,
          from: w.from,
          to: w.to,
          amount_atomic: w.amount.toString(),
          amount_usd: atomicToUsd(w.amount, decimals, price),
          direction: w.direction,
        })),
        evidence: 'erc20_transfers of the token at or above the threshold; venues are the addresses that emitted a Uniswap v2/v3-style Swap event in the index',
      },
      window: { from: since.toISOString(), to: ctx.now.toISOString(), to_block: range.to_block, complete: covers(range, new Date(since.getTime() - WINDOW_HOURS * 3_600_000)) },
      indexed: range,
      disclaimer: DISCLAIMER,
    };
  },
});

/** The contract the index is read for: the address given, or the coin's contract on the chain (none there: 404 on token). */
function tokenContract(token: string, chain: string, detail: CoinDetail | undefined): { address: string; decimals: number | null } {
  if (EVM_ADDRESS.test(token)) return { address: token.toLowerCase(), decimals: detail ? (contractOn(detail, chain)?.decimals ?? null) : null };
  const contract = detail && contractOn(detail, chain);
  if (!contract) throw new ProductInputError(`${detail?.coin.name ?? token} has no token contract on ${chain} that CoinGecko lists`, 404, 'token');
  return contract;
}
