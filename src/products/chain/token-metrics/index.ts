/**
 * token_metrics: who holds an ERC-20 token, from the block index: every holder's balance is the sum
 * of the token's indexed transfers to it minus those from it, so the figures are complete when the
 * index reaches back to the token's first transfer (`complete`: it starts at genesis). From the
 * balances: the holder count, the top holders, the distribution by share of the supply held,
 * concentration (top-10 share, Gini) and the whales (1% or more each).
 *
 * A contract with no indexed transfer is the caller's input (422 on token_address), never charged.
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { ProductInputError, READ_EXTERNAL, evmAddress, evmChain, product } from '../../kit/index.ts';
import { addressOut, chainIdentity } from '../evm.ts';
import { amount, atomicString, indexRows, indexedChain, indexedRange, indexedRangeSchema, ratio, ratioString, requireIndexed, sqlAddress, sqlInt } from '../index-read.ts';
import { ZERO_ADDRESS } from '../wallet-activity.ts';

export const TOP_HOLDERS = 10;
/** Distribution buckets by share of the held supply: at least `min` (a fraction), below the previous bucket's. */
export const BUCKETS = [
  { bucket: '>=1%', min: '0.01', divisor: 100n },
  { bucket: '0.1%-1%', min: '0.001', divisor: 1_000n },
  { bucket: '0.01%-0.1%', min: '0.0001', divisor: 10_000n },
  { bucket: '<0.01%', min: '0', divisor: 0n },
] as const;

/** Every holder's balance of the token up to `toBlock` (the zero address left out), as SQL CTEs `b` (all) and `pos` (positive). */
function balancesSql(token: string, toBlock: number): string {
  const t = sqlAddress(token);
  const upTo = `contract_address = ${t} AND block_number <= ${sqlInt(toBlock)} AND value IS NOT NULL`;
  return `WITH moves AS (SELECT "to" AS holder, value AS delta FROM erc20_transfers WHERE ${upTo}
                         UNION ALL SELECT "from", -value FROM erc20_transfers WHERE ${upTo}),
               b AS (SELECT holder, sum(delta) AS balance FROM moves WHERE holder <> ${sqlAddress(ZERO_ADDRESS)} GROUP BY holder),
               pos AS (SELECT holder, balance FROM b WHERE balance > 0),
               total AS (SELECT coalesce(sum(balance), 0) AS t, count(*) AS n FROM pos)`;
}

const holder = z.object({
  address: addressOut().describe('Holder'),
  balance_atomic: atomicString().describe('Balance in the token’s smallest unit, an exact decimal string'),
  share: ratioString().describe('Share of the held supply, a fraction with 6 decimals rounded down (0.25 = 25%)'),
});

export const tokenMetrics = product({
  id: 'token-metrics',
  title: 'Token holder metrics',
  description:
    "Returns holder metrics for one ERC-20 token from percall's block index: holder count, balances of the top holders, distribution buckets by share held, concentration (top-10 share, Gini) and whale ownership (holders of 1% or more); exact amounts as decimal strings.",
  price: { http: '0.03', mcp: '0.003' },
  annotations: READ_EXTERNAL,
  requires: ['index'],
  input: z.object({
    token_address: evmAddress().describe('Token contract address, 0x + 40 hex characters'),
    chain: evmChain().optional().describe('Chain of the token, e.g. "base" or "ethereum" (default base); must be one this instance indexes'),
  }),
  inputExample: { token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base' },
  output: z.object({
    ...chainIdentity,
    token_address: addressOut().describe('The token, EIP-55 checksummed'),
    as_of_block: z.int().min(0).describe('Balances are as of this block (the index’s last block when read)'),
    complete: z.boolean().describe('Whether the index reaches back to genesis, so every transfer of the token is counted; if not, balances miss what happened before the index starts'),
    holders: z.int().min(0).describe('Addresses with a positive balance (the zero address excluded)'),
    supply: z
      .object({
        held_atomic: atomicString().describe('Sum of all positive balances: the supply the shares are relative to'),
        minted_atomic: atomicString().describe('Transferred from the zero address (mints)'),
        burned_atomic: atomicString().describe('Transferred to the zero address (burns)'),
      })
      .describe('Supply as the indexed transfers show it, in the token’s smallest unit'),
    top_holders: z.array(holder).describe(`The ${TOP_HOLDERS} largest holders, largest first`),
    distribution: z
      .array(
        z.object({
          bucket: z.enum(BUCKETS.map((b) => b.bucket) as [string, ...string[]]).describe('Share of the held supply per holder'),
          holders: z.int().min(0).describe('Holders in the bucket'),
          balance_atomic: atomicString().describe('What they hold together'),
          share: ratioString().describe('Their share of the held supply'),
        }),
      )
      .describe('Holders by the share each holds: 1% or more, 0.1–1%, 0.01–0.1%, under 0.01%'),
    concentration: z
      .object({
        top10_share: ratioString().describe('Share held by the ten largest holders'),
        gini: ratioString().describe('Gini coefficient of the positive balances (0: equal, towards 1: one holder has all), 6 decimals'),
      })
      .describe('How concentrated the holdings are'),
    whales: z
      .object({
        threshold_share: z.literal('0.01').describe('A whale holds at least this share of the held supply'),
        count: z.int().min(0).describe('Whales'),
        balance_atomic: atomicString().describe('What they hold together'),
        share: ratioString().describe('Their share of the held supply'),
      })
      .describe('Holders of 1% or more'),
    transfers: z
      .object({
        count: z.int().min(0).describe('Indexed transfers of the token'),
        first_block: z.int().min(0).describe('Block of the first indexed transfer'),
        last_block: z.int().min(0).describe('Block of the last indexed transfer'),
      })
      .describe('The token’s transfers the figures are computed from (amounts of 2^127 or more are counted but not summed)'),
    indexed: indexedRangeSchema(),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) in test/chain-index-products.test.ts.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "token_address": "0x0165878A594ca255338adfa4d48449f69242Eb8F",
    "as_of_block": 38,
    "complete": true,
    "holders": 4,
    "supply": {
      "held_atomic": "1000000000000000000000000",
      "minted_atomic": "1000000000000000000000000",
      "burned_atomic": "0"
    },
    "top_holders": [
      {
        "address": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "balance_atomic": "918000000000000000000000",
        "share": "0.918"
      },
      {
        "address": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
        "balance_atomic": "46466945530599254342094",
        "share": "0.046466"
      },
      {
        "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "balance_atomic": "29533054469400745657906",
        "share": "0.029533"
      },
      {
        "address": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "balance_atomic": "6000000000000000000000",
        "share": "0.006"
      }
    ],
    "distribution": [
      {
        "bucket": ">=1%",
        "holders": 3,
        "balance_atomic": "994000000000000000000000",
        "share": "0.994"
      },
      {
        "bucket": "0.1%-1%",
        "holders": 1,
        "balance_atomic": "6000000000000000000000",
        "share": "0.006"
      },
      {
        "bucket": "0.01%-0.1%",
        "holders": 0,
        "balance_atomic": "0",
        "share": "0"
      },
      {
        "bucket": "<0.01%",
        "holders": 0,
        "balance_atomic": "0",
        "share": "0"
      }
    ],
    "concentration": {
      "top10_share": "1",
      "gini": "0.688233"
    },
    "whales": {
      "threshold_share": "0.01",
      "count": 3,
      "balance_atomic": "994000000000000000000000",
      "share": "0.994"
    },
    "transfers": {
      "count": 6,
      "first_block": 15,
      "last_block": 29
    },
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-23T22:57:39.000Z",
      "to_block": 38,
      "to_time": "2026-11-23T22:58:01.000Z",
      "from_genesis": true
    }
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, input.chain ?? 'base');
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const token = input.token_address;
    const [activity] = await indexRows(
      on,
      `SELECT count(*), min(block_number)::BIGINT, max(block_number)::BIGINT,
              (coalesce(sum(value) FILTER (WHERE "from" = ${sqlAddress(ZERO_ADDRESS)}), 0))::VARCHAR, (coalesce(sum(value) FILTER (WHERE "to" = ${sqlAddress(ZERO_ADDRESS)}), 0))::VARCHAR
       FROM erc20_transfers WHERE contract_address = ${sqlAddress(token)} AND block_number <= ${sqlInt(range.to_block)}`,
      ctx.signal,
    );
    const transfers = Number(activity![0]);
    if (transfers === 0) {
      throw new ProductInputError(`no ERC-20 transfer of ${getAddress(token)} is in the index (blocks ${range.from_block}–${range.to_block} of ${on.chain}): not a token, or not active in that range`, 422, 'token_address');
    }
    const balances = balancesSql(token, range.to_block);
    const [stats] = await indexRows(
      on,
      `${balances}, ranked AS (SELECT balance::DOUBLE AS x, row_number() OVER (ORDER BY balance, holder) AS i FROM pos)
       SELECT (SELECT n FROM total), (SELECT t FROM total)::VARCHAR,
              (SELECT CASE WHEN count(*) = 0 THEN 0 ELSE 2 * sum(i * x) / (count(*) * sum(x)) - (count(*) + 1) / count(*) END FROM ranked)`,
      ctx.signal,
    );
    const held = BigInt(amount(stats![1]));
    const buckets = await indexRows(
      on,
      `${balances}
       SELECT CASE ${BUCKETS.slice(0, -1).map((b, i) => `WHEN balance >= (t + ${b.divisor - 1n}) // ${b.divisor} THEN ${i}`).join(' ')} ELSE ${BUCKETS.length - 1} END AS bucket,
              count(*), sum(balance)::VARCHAR
       FROM pos, total GROUP BY 1`,
      ctx.signal,
    );
    const top = await indexRows(on, `${balances} SELECT holder, balance::VARCHAR FROM pos ORDER BY balance DESC, holder LIMIT ${TOP_HOLDERS}`, ctx.signal);
    const inBucket = new Map(buckets.map(([i, n, sum]) => [Number(i), { holders: Number(n), balance: BigInt(amount(sum)) }]));
    const distribution = BUCKETS.map((b, i) => {
      const found = inBucket.get(i) ?? { holders: 0, balance: 0n };
      return { bucket: b.bucket, holders: found.holders, balance_atomic: found.balance.toString(), share: ratio(found.balance, held) };
    });
    const topSum = top.reduce((sum, [, balance]) => sum + BigInt(amount(balance)), 0n);
    const whales = distribution[0]!;
    return {
      chain: on.chain,
      network: on.network,
      token_address: getAddress(token),
      as_of_block: range.to_block,
      complete: range.from_genesis,
      holders: Number(stats![0]),
      supply: { held_atomic: held.toString(), minted_atomic: amount(activity![3]), burned_atomic: amount(activity![4]) },
      top_holders: top.map(([address, balance]) => ({ address: getAddress(String(address)), balance_atomic: amount(balance), share: ratio(BigInt(amount(balance)), held) })),
      distribution,
      concentration: { top10_share: ratio(topSum, held), gini: gini(Number(stats![2])) },
      whales: { threshold_share: '0.01' as const, count: whales.holders, balance_atomic: whales.balance_atomic, share: whales.share },
      transfers: { count: transfers, first_block: Number(activity![1]), last_block: Number(activity![2]) },
      indexed: range,
    };
  },
});

/** The Gini coefficient (a ratio computed in floating point) as a 6-decimal string, clamped to [0, 1]. */
function gini(value: number): string {
  const clamped = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  return ratio(BigInt(Math.round(clamped * 1_000_000)), 1_000_000n);
}
