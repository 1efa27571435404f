/**
 * A token's DEX volume and whale transfers from the block index.
 *
 * DEX volume: the Uniswap v2/v3-style Swap events of the pools that hold the token. A Swap event
 * does not name its tokens, so the token's side (token0 or token1) of each pool is read from the
 * swaps' output legs: the pool's own transfer out, in the same transaction and before the Swap log,
 * whose amount equals amount0_out / amount1_out (v2) or −amount0 / −amount1 (v3). A leg of the token
 * gives its side; a leg of another token gives the other side. The side most legs agree on (over both
 * windows) wins; a pool with no leg, or a tie, is left out and counted as `unresolved_pools`. Then per
 * swap: the token out of the pool is a buy, into it a sell.
 *
 * Whales: the token's transfers of at least the threshold in the window, by direction relative to
 * the venues the index can tell: addresses that emitted a Uniswap v2/v3-style Swap event.
 */
import { getAddress } from 'viem';
import { amount, indexRows, sqlAddress, sqlInt, sqlTime, type IndexedChain } from '../../chain/index-read.ts';

export const WINDOW_HOURS = 24 as const;
export const LARGEST = 5;

export interface DexWindow {
  swaps: number;
  buys: number;
  sells: number;
  bought: bigint;
  sold: bigint;
}

export interface DexVolume {
  pools: number;
  unresolvedPools: number;
  current: DexWindow;
  previous: DexWindow;
}

/**
 * The token's side of every pool that swapped and moved the token since `since` (up to `toBlock`), as
 * SQL CTEs ending in `sides(pool, kind, side)`. Every swap moves its tokens in its own transaction,
 * so a pool that swapped the token in the period has its legs there too: nothing older is read.
 */
function sidesSql(token: string, toBlock: number, since: Date): string {
  const t = sqlAddress(token);
  const within = (alias = '') => `${alias}block_number <= ${sqlInt(toBlock)} AND ${alias}block_time >= ${sqlTime(since)}`;
  const upTo = within();
  return `WITH venues AS (SELECT pair_address AS pool, 'v2' AS kind FROM uniswap_v2_swaps WHERE ${upTo} GROUP BY 1
                          UNION ALL SELECT pool_address, 'v3' FROM uniswap_v3_swaps WHERE ${upTo} GROUP BY 1),
               touched AS (SELECT "to" AS pool FROM erc20_transfers WHERE contract_address = ${t} AND ${upTo}
                           UNION SELECT "from" FROM erc20_transfers WHERE contract_address = ${t} AND ${upTo}),
               holding AS (SELECT pool, kind FROM venues WHERE pool IN (SELECT pool FROM touched)),
               legs AS (SELECT s.pair_address AS pool, CASE WHEN x.value = s.amount0_out THEN 0 WHEN x.value = s.amount1_out THEN 1 END AS leg, x.contract_address = ${t} AS ours
                          FROM uniswap_v2_swaps s JOIN erc20_transfers x ON x.tx_hash = s.tx_hash AND x."from" = s.pair_address AND x.log_index < s.log_index AND x.value > 0
                         WHERE ${within('s.')} AND s.pair_address IN (SELECT pool FROM holding WHERE kind = 'v2')
                        UNION ALL
                        SELECT s.pool_address, CASE WHEN x.value = -s.amount0 THEN 0 WHEN x.value = -s.amount1 THEN 1 END, x.contract_address = ${t}
                          FROM uniswap_v3_swaps s JOIN erc20_transfers x ON x.tx_hash = s.tx_hash AND x."from" = s.pool_address AND x.log_index < s.log_index AND x.value > 0
                         WHERE ${within('s.')} AND s.pool_address IN (SELECT pool FROM holding WHERE kind = 'v3')),
               votes AS (SELECT pool, CASE WHEN ours THEN leg ELSE 1 - leg END AS side FROM legs WHERE leg IS NOT NULL),
               sides AS (SELECT h.pool, h.kind,
                                CASE WHEN count(*) FILTER (WHERE v.side = 0) > count(*) FILTER (WHERE v.side = 1) THEN 0
                                     WHEN count(*) FILTER (WHERE v.side = 1) > count(*) FILTER (WHERE v.side = 0) THEN 1 END AS side
                           FROM holding h LEFT JOIN votes v ON v.pool = h.pool GROUP BY h.pool, h.kind)`;
}

/** The token's swaps in `[since, until)` and in the same length of time before, up to `toBlock`. */
export async function dexVolume(on: IndexedChain, token: string, toBlock: number, since: Date, signal: AbortSignal): Promise<DexVolume> {
  const before = new Date(since.getTime() - WINDOW_HOURS * 3_600_000);
  const upTo = `s.block_number <= ${sqlInt(toBlock)} AND s.block_time >= ${sqlTime(before)}`;
  const [row] = await indexRows(
    on,
    `${sidesSql(token, toBlock, before)},
          swaps AS (SELECT s.block_time AS time, CASE p.side WHEN 0 THEN s.amount0_out ELSE s.amount1_out END AS bought, CASE p.side WHEN 0 THEN s.amount0_in ELSE s.amount1_in END AS sold
                      FROM uniswap_v2_swaps s JOIN sides p ON p.pool = s.pair_address AND p.kind = 'v2' AND p.side IS NOT NULL WHERE ${upTo}
                    UNION ALL
                    SELECT s.block_time, greatest(-(CASE p.side WHEN 0 THEN s.amount0 ELSE s.amount1 END), 0), greatest(CASE p.side WHEN 0 THEN s.amount0 ELSE s.amount1 END, 0)
                      FROM uniswap_v3_swaps s JOIN sides p ON p.pool = s.pool_address AND p.kind = 'v3' AND p.side IS NOT NULL WHERE ${upTo}),
          w AS (SELECT *, time >= ${sqlTime(since)} AS current FROM swaps)
     SELECT (SELECT count(*) FROM sides WHERE side IS NOT NULL), (SELECT count(*) FROM sides WHERE side IS NULL),
            count(*) FILTER (WHERE current), count(*) FILTER (WHERE current AND bought > 0), count(*) FILTER (WHERE current AND sold > 0),
            (coalesce(sum(bought) FILTER (WHERE current), 0))::VARCHAR, (coalesce(sum(sold) FILTER (WHERE current), 0))::VARCHAR,
            count(*) FILTER (WHERE NOT current), count(*) FILTER (WHERE NOT current AND bought > 0), count(*) FILTER (WHERE NOT current AND sold > 0),
            (coalesce(sum(bought) FILTER (WHERE NOT current), 0))::VARCHAR, (coalesce(sum(sold) FILTER (WHERE NOT current), 0))::VARCHAR
       FROM w`,
    signal,
  );
  const r = row!;
  const window = (at: number): DexWindow => ({ swaps: Number(r[at]), buys: Number(r[at + 1]), sells: Number(r[at + 2]), bought: BigInt(amount(r[at + 3])), sold: BigInt(amount(r[at + 4])) });
  return { pools: Number(r[0]), unresolvedPools: Number(r[1]), current: window(2), previous: window(7) };
}

export type Direction = 'from_venue' | 'to_venue' | 'other';

export interface WhaleTransfer {
  tx_hash: string;
  block_number: number;
  time: string;
  from: string;
  to: string;
  amount: bigint;
  direction: Direction;
}

export interface Whales {
  totals: Record<Direction, { count: number; amount: bigint }>;
  largest: WhaleTransfer[];
}

/** The token's transfers of at least `threshold` since `since`, up to `toBlock`, by direction. */
export async function whaleTransfers(on: IndexedChain, token: string, toBlock: number, since: Date, threshold: bigint, signal: AbortSignal): Promise<Whales> {
  const upTo = `block_number <= ${sqlInt(toBlock)}`;
  const big = `WITH venues AS (SELECT pair_address AS pool FROM uniswap_v2_swaps WHERE ${upTo} UNION SELECT pool_address FROM uniswap_v3_swaps WHERE ${upTo}),
                    big AS (SELECT tx_hash, log_index, block_number, block_time, "from", "to", value,
                                   CASE WHEN "from" IN (SELECT pool FROM venues) THEN 'from_venue' WHEN "to" IN (SELECT pool FROM venues) THEN 'to_venue' ELSE 'other' END AS direction
                              FROM erc20_transfers WHERE contract_address = ${sqlAddress(token)} AND ${upTo} AND block_time >= ${sqlTime(since)} AND value >= ${sqlInt(threshold)})`;
  const totals = await indexRows(on, `${big} SELECT direction, count(*), sum(value)::VARCHAR FROM big GROUP BY direction`, signal);
  const largest = await indexRows(on, `${big} SELECT tx_hash, block_number, block_time, "from", "to", value::VARCHAR, direction FROM big ORDER BY value DESC, block_number DESC, log_index DESC LIMIT ${LARGEST}`, signal);
  const byDirection = new Map(totals.map(([d, n, sum]) => [String(d), { count: Number(n), amount: BigInt(amount(sum)) }]));
  const zero = { count: 0, amount: 0n };
  return {
    totals: { from_venue: byDirection.get('from_venue') ?? zero, to_venue: byDirection.get('to_venue') ?? zero, other: byDirection.get('other') ?? zero },
    largest: largest.map(([hash, block, time, from, to, value, direction]) => ({
      tx_hash: String(hash),
      block_number: Number(block),
      time: String(time),
      from: getAddress(String(from)),
      to: getAddress(String(to)),
      amount: BigInt(amount(value)),
      direction: direction as Direction,
    })),
  };
}

/** Minted minus burned in the index up to `toBlock`: the supply the index has seen. */
export async function indexedSupply(on: IndexedChain, token: string, toBlock: number, signal: AbortSignal): Promise<{ transfers: number; supply: bigint }> {
  const zero = sqlAddress('0x0000000000000000000000000000000000000000');
  const [row] = await indexRows(
    on,
    `SELECT count(*), (coalesce(sum(value) FILTER (WHERE "from" = ${zero}), 0) - coalesce(sum(value) FILTER (WHERE "to" = ${zero}), 0))::VARCHAR
       FROM erc20_transfers WHERE contract_address = ${sqlAddress(token)} AND block_number <= ${sqlInt(toBlock)}`,
    signal,
  );
  return { transfers: Number(row![0]), supply: BigInt(amount(row![1])) };
}
