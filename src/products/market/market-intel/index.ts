/**
 * market_intel: a report on one crypto project in three sections, each with its source: market data
 * from CoinGecko (`/coins/{id}`, the URL cited), the token's on-chain activity from the block index
 * when the chain is indexed and the coin has a contract there, and recent news from web search when
 * it is configured (each result with its URL). A section whose source this instance lacks says so
 * and holds nothing.
 *
 * Needs CoinGecko (keyless and on by default): without market data there is no report. The index
 * and web search only add sections. An unknown project is 404 on `project`, never charged.
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { EVM_ADDRESS, ProductInputError, READ_EXTERNAL, dataProvider, evmChain, product, type ProductContext } from '../../kit/index.ts';
import { addressOut } from '../../chain/evm.ts';
import { amount, atomicString, covers, indexRows, indexedRange, indexedRangeSchema, requireIndexed, sqlAddress, sqlInt, sqlTime, type IndexedChain } from '../../chain/index-read.ts';
import type { CoinDetail } from '../../../providers/crypto/coingecko.ts';
import { atomicToUsd, coinOf, coinSchema, contractOn, resolveCoin } from '../coins.ts';

export const WINDOWS_HOURS = [24, 168] as const;
export const NEWS_ITEMS = 5;
const ZERO = '0x0000000000000000000000000000000000000000';

const usd = (what: string) => z.number().nullable().describe(`${what} in USD; null when CoinGecko has none`);
const supply = (what: string) => z.number().nullable().describe(`${what}, in tokens; null when CoinGecko has none`);

const activity = z.object({
  hours: z.int().describe('Length of the window, ending at the call'),
  transfers: z.int().min(0).describe('Transfers of the token'),
  amount_atomic: atomicString().describe('Their total, smallest unit (mints and burns included)'),
  amount_usd: z.number().nullable().describe('That total in USD at the current price; null without decimals'),
  senders: z.int().min(0).describe('Distinct senders (the zero address excluded)'),
  receivers: z.int().min(0).describe('Distinct receivers (the zero address excluded)'),
  active_addresses: z.int().min(0).describe('Distinct addresses that sent or received (the zero address excluded)'),
  complete: z.boolean().describe('Whether the index covers the whole window'),
});

export const marketIntel = product({
  id: 'market-intel',
  title: 'Market intelligence',
  description:
    "Returns a report on a crypto project (name, symbol, CoinGecko id or contract address): market data from CoinGecko (price, market cap, volume, 24h/7d/30d change, circulating, total and max supply), the token's on-chain activity over 24 hours and 7 days from percall's block index (transfers, volume, active addresses) when its chain is indexed, and recent news from web search when configured; every section cites its source, and one this instance cannot fill says why instead.",
  price: '0.10',
  annotations: READ_EXTERNAL,
  requires: ['crypto-prices'],
  input: z.object({
    project: z
      .string()
      .min(1)
      .max(100)
      .refine((text) => text.trim().length > 0, 'a project name, symbol or contract address')
      .describe('Project name, token symbol, CoinGecko id or token contract address, e.g. "Uniswap"'),
    chain: evmChain().default('ethereum').describe('Chain of the token (for a contract address, and for the on-chain section)'),
  }),
  inputExample: { project: 'Uniswap', chain: 'ethereum' },
  output: z.object({
    project: coinSchema().extend({ query: z.string().describe('The project as asked') }).describe('The project, as CoinGecko lists it'),
    chain: z.string().describe('The chain asked for'),
    as_of: z.string().describe('When the report was made (UTC)'),
    market: z
      .object({
        price_usd: usd('Price'),
        market_cap_usd: usd('Market capitalisation'),
        fully_diluted_valuation_usd: usd('Fully diluted valuation'),
        volume_24h_usd: usd('Trading volume over 24 hours, all markets'),
        high_24h_usd: usd('24-hour high'),
        low_24h_usd: usd('24-hour low'),
        change_24h_pct: z.number().nullable().describe('Price change over 24 hours, percent'),
        change_7d_pct: z.number().nullable().describe('Price change over 7 days, percent'),
        change_30d_pct: z.number().nullable().describe('Price change over 30 days, percent'),
        circulating_supply: supply('Circulating supply'),
        total_supply: supply('Total supply'),
        max_supply: supply('Maximum supply (null also when uncapped)'),
        last_updated: z.string().nullable().describe('When CoinGecko last updated these figures'),
        source: z.literal('CoinGecko').describe('Where the figures come from'),
        citation: z.string().describe('The API URL they were read from'),
      })
      .describe('Market data'),
    onchain: z
      .object({
        status: z
          .enum(['ok', 'chain_not_indexed', 'no_contract_on_chain', 'index_not_running'])
          .describe('ok: figures below; chain_not_indexed: this instance does not index the chain; no_contract_on_chain: CoinGecko lists no contract of the coin there; index_not_running: no block index on this instance'),
        note: z.string().describe('What the section rests on, or why it is empty'),
        contract: addressOut().nullable().describe('The token contract read'),
        network: z.string().nullable().describe('CAIP-2 id of the chain the index reads'),
        windows: z.array(activity).nullable().describe('Activity over the last 24 hours and 7 days'),
        indexed: indexedRangeSchema().nullable(),
        citation: z.string().nullable().describe('The evidence: the index tables and blocks read'),
      })
      .describe("The token's on-chain activity from the block index"),
    news: z
      .object({
        status: z.enum(['ok', 'not_configured']).describe('not_configured: no web search provider on this instance'),
        provider: z.string().nullable().describe('The search provider that answered'),
        query: z.string().nullable().describe('The query sent'),
        items: z
          .array(
            z.object({
              title: z.string().describe('Title'),
              citation: z.string().describe('The result’s URL'),
              snippet: z.string().describe('The provider’s snippet'),
              published_at: z.string().nullable().describe('Publication time when the provider gives one'),
              source: z.string().describe('The site'),
            }),
          )
          .describe(`Up to ${NEWS_ITEMS} results, as ranked by the provider`),
      })
      .describe('Recent news from web search'),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) with the CoinGecko and Brave Search doubles in test/market-products.test.ts.
  outputExample: {
    "project": {
      "query": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "coingecko_id": "usd-coin",
      "symbol": "USDC",
      "name": "USDC",
      "market_cap_rank": 7
    },
    "chain": "base",
    "as_of": "2026-11-27T02:05:15.065Z",
    "market": {
      "price_usd": 0.999812,
      "market_cap_usd": 61254880112,
      "fully_diluted_valuation_usd": 61260119402,
      "volume_24h_usd": 7912334650,
      "high_24h_usd": 1.000214,
      "low_24h_usd": 0.999406,
      "change_24h_pct": -0.00831,
      "change_7d_pct": 0.01207,
      "change_30d_pct": -0.00412,
      "circulating_supply": 61258770145.2,
      "total_supply": 61266341028.4,
      "max_supply": null,
      "last_updated": "2025-06-01T11:59:12.411Z",
      "source": "CoinGecko",
      "citation": "http://127.0.0.1:34373/coingecko/api/v3/coins/base/contract/0x5fbdb2315678afecb367f032d93f642f64180aa3?localization=false&tickers=false&market_data=true&community_data=false&developer_data=false&sparkline=false"
    },
    "onchain": {
      "status": "ok",
      "note": "ERC-20 transfers of 0x5FbDB2315678afecb367f032d93F642f64180aa3 in the block index of base",
      "contract": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "network": "eip155:31337",
      "windows": [
        {
          "hours": 24,
          "transfers": 9,
          "amount_atomic": "579015725896",
          "amount_usd": 578906.87,
          "senders": 4,
          "receivers": 6,
          "active_addresses": 6,
          "complete": true
        },
        {
          "hours": 168,
          "transfers": 9,
          "amount_atomic": "579015725896",
          "amount_usd": 578906.87,
          "senders": 4,
          "receivers": 6,
          "active_addresses": 6,
          "complete": true
        }
      ],
      "indexed": {
        "from_block": 0,
        "from_time": "2026-11-27T02:04:57.000Z",
        "to_block": 19,
        "to_time": "2026-11-27T02:05:14.000Z",
        "from_genesis": true
      },
      "citation": "percall block index: base.erc20_transfers, blocks 0–19"
    },
    "news": {
      "status": "ok",
      "provider": "Brave Search",
      "query": "USDC crypto news",
      "items": [
        {
          "title": "x402 - Payment Required",
          "citation": "https://www.x402.org/",
          "snippet": "x402 is an open payment standard that enables AI agents and web services to pay for APIs and content with stablecoins over HTTP.",
          "published_at": null,
          "source": "www.x402.org"
        },
        {
          "title": "x402 specification (GitHub)",
          "citation": "https://github.com/coinbase/x402",
          "snippet": "A payments protocol for the internet. Built on HTTP.",
          "published_at": null,
          "source": "github.com"
        },
        {
          "title": "HTTP 402 Payment Required - MDN",
          "citation": "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/402",
          "snippet": "The HTTP 402 Payment Required is a nonstandard response status code reserved for future use.",
          "published_at": "2025-03-14T09:30:00.000Z",
          "source": "developer.mozilla.org"
        }
      ]
    }
  },
  run: async (input, ctx) => {
    const coingecko = dataProvider(ctx, 'crypto');
    const detail = await resolveCoin(coingecko, input.project, input.chain, 'project', ctx.signal);
    if (!detail) throw new ProductInputError(`CoinGecko lists no coin with the contract ${getAddress(input.project.trim())} on ${input.chain}`, 404, 'project');
    const m = detail.market;
    return {
      project: { query: input.project, ...coinOf(detail) },
      chain: input.chain,
      as_of: ctx.now.toISOString(),
      market: {
        price_usd: m.price_usd,
        market_cap_usd: m.market_cap_usd,
        fully_diluted_valuation_usd: m.fully_diluted_valuation_usd,
        volume_24h_usd: m.volume_24h_usd,
        high_24h_usd: m.high_24h_usd,
        low_24h_usd: m.low_24h_usd,
        change_24h_pct: m.change_24h_pct,
        change_7d_pct: m.change_7d_pct,
        change_30d_pct: m.change_30d_pct,
        circulating_supply: m.circulating_supply,
        total_supply: m.total_supply,
        max_supply: m.max_supply,
        last_updated: m.last_updated,
        source: 'CoinGecko' as const,
        citation: detail.source_url,
      },
      onchain: await onchain(input.project.trim(), input.chain, detail, ctx),
      news: await news(detail, ctx),
    };
  },
});

const emptyOnchain = (status: 'chain_not_indexed' | 'no_contract_on_chain' | 'index_not_running', note: string) => ({ status, note, contract: null, network: null, windows: null, indexed: null, citation: null });

async function onchain(project: string, chain: string, detail: CoinDetail, ctx: ProductContext) {
  const index = ctx.index;
  if (!index) return emptyOnchain('index_not_running', 'this instance runs no block index');
  const network = index.chains().get(chain);
  if (!network) return emptyOnchain('chain_not_indexed', `this instance does not index ${chain} (indexed: ${[...index.chains().keys()].join(', ') || 'none'})`);
  const listed = contractOn(detail, chain);
  const contract = EVM_ADDRESS.test(project) ? { address: project.toLowerCase(), decimals: listed?.decimals ?? null } : listed;
  if (!contract) return emptyOnchain('no_contract_on_chain', `CoinGecko lists no ${detail.coin.symbol} contract on ${chain}`);
  const on: IndexedChain = { index, chain, network };
  const range = await indexedRange(on, ctx.signal);
  requireIndexed(range);
  const windows = [];
  for (const hours of WINDOWS_HOURS) {
    const since = new Date(ctx.now.getTime() - hours * 3_600_000);
    const zero = sqlAddress(ZERO);
    const [row] = await indexRows(
      on,
      `WITH t AS (SELECT "from", "to", value FROM erc20_transfers
                   WHERE contract_address = ${sqlAddress(contract.address)} AND block_number <= ${sqlInt(range.to_block)} AND block_time >= ${sqlTime(since)})
       SELECT (SELECT count(*) FROM t), (SELECT coalesce(sum(value), 0) FROM t)::VARCHAR,
              (SELECT count(DISTINCT "from") FROM t WHERE "from" <> ${zero}), (SELECT count(DISTINCT "to") FROM t WHERE "to" <> ${zero}),
              (SELECT count(*) FROM (SELECT "from" AS a FROM t UNION SELECT "to" FROM t) WHERE a <> ${zero})`,
      ctx.signal,
    );
    const total = BigInt(amount(row![1]));
    windows.push({
      hours,
      transfers: Number(row![0]),
      amount_atomic: total.toString(),
      amount_usd: atomicToUsd(total, contract.decimals, detail.market.price_usd),
      senders: Number(row![2]),
      receivers: Number(row![3]),
      active_addresses: Number(row![4]),
      complete: covers(range, since),
    });
  }
  return {
    status: 'ok' as const,
    note: `ERC-20 transfers of ${getAddress(contract.address)} in the block index of ${chain}`,
    contract: getAddress(contract.address),
    network,
    windows,
    indexed: range,
    citation: `percall block index: ${chain}.erc20_transfers, blocks ${range.from_block}–${range.to_block}`,
  };
}

async function news(detail: CoinDetail, ctx: ProductContext) {
  const search = ctx.data?.webSearch;
  if (!search) return { status: 'not_configured' as const, provider: null, query: null, items: [] };
  const name = detail.coin.name.toUpperCase() === detail.coin.symbol ? detail.coin.name : `${detail.coin.name} ${detail.coin.symbol}`;
  const query = `${name} crypto news`;
  const answer = await search.search(query, NEWS_ITEMS, ctx.signal);
  return {
    status: 'ok' as const,
    provider: answer.provider,
    query,
    items: answer.results.map((r) => ({ title: r.title, citation: r.url, snippet: r.snippet, published_at: r.published_at, source: r.source })),
  };
}
