/**
 * A wallet's activity as the block index holds it, shared by base-wallet-profile, wallet-analyze and
 * wallet-spy: counts of its transactions and token transfers, the days it was active, its flows per
 * token and its counterparties, over a window (blocks up to the answer's last indexed block, and
 * optionally since a time).
 *
 * Definitions (the products' documentation repeats them):
 * - a transaction is the wallet's when it sent it (`from`), received it (`to`) or created it as a
 *   contract; a token transfer when it is the sender or the recipient. A transfer to itself counts
 *   once in and once out.
 * - activity = any of those; an active day is a UTC day with at least one.
 * - a counterparty is the other side of a token transfer (in or out) or of a transaction; the
 *   zero address (mints and burns) is not a counterparty.
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { addressOut } from './evm.ts';
import { amount, atomicString, indexRows, isoTime, signedAtomicString, sqlAddress, sqlInt, sqlTime, type IndexedChain } from './index-read.ts';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The blocks an answer reads: up to `toBlock` (its last indexed block), and from `since` when given. */
export interface Window {
  toBlock: number;
  since?: Date;
}

const within = (w: Window) => `block_number <= ${sqlInt(w.toBlock)}${w.since ? ` AND block_time >= ${sqlTime(w.since)}` : ''}`;

export interface ActivityCounts {
  transactions_sent: number;
  transactions_received: number;
  transactions_failed: number;
  token_transfers_in: number;
  token_transfers_out: number;
  nft_transfers_in: number;
  nft_transfers_out: number;
  first_seen: { block_number: number; time: string } | null;
  last_seen: { block_number: number; time: string } | null;
  active_days: number;
}

/** The window of days a wallet report reads (wallet-analyze 90, wallet-spy 30), as its answer states it. */
export const windowSchema = <D extends number>(days: D) =>
  z
    .object({
      days: z.literal(days).describe('Length of the window'),
      from: isoTime().describe(`Start of the window (UTC): the call’s time minus ${days} days`),
      to: isoTime().describe('End of the window: the call’s time'),
      to_block: z.int().min(0).describe('Last block counted (the index’s last block when the answer was read)'),
      complete: z.boolean().describe('Whether the index covers the whole window (it starts at genesis or before `from`)'),
    })
    .describe('The window analysed');

export const seenSchema = () => z.object({ block_number: z.int().min(0).describe('Block'), time: isoTime().describe('Its time') }).nullable();

/** The wallet's counts over the window. */
export async function activityCounts(on: IndexedChain, wallet: string, w: Window, signal?: AbortSignal): Promise<ActivityCounts> {
  const a = sqlAddress(wallet);
  const nft = (table: string) => `SELECT block_number, block_time, "to" = ${a} AS incoming, "from" = ${a} AS outgoing FROM ${table} WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a})`;
  const [row] = await indexRows(
    on,
    `WITH tx AS (SELECT block_number, block_time, "from" = ${a} AS sent, "to" = ${a} AS received, success FROM transactions WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a} OR contract_address = ${a})),
          tr AS (SELECT block_number, block_time, "to" = ${a} AS incoming, "from" = ${a} AS outgoing FROM erc20_transfers WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a})),
          nft AS (${nft('erc721_transfers')} UNION ALL ${nft('erc1155_transfers')}),
          seen AS (SELECT block_number, block_time FROM tx UNION ALL SELECT block_number, block_time FROM tr UNION ALL SELECT block_number, block_time FROM nft)
     SELECT (SELECT count(*) FILTER (WHERE sent) FROM tx), (SELECT count(*) FILTER (WHERE received) FROM tx), (SELECT count(*) FILTER (WHERE sent AND NOT success) FROM tx),
            (SELECT count(*) FILTER (WHERE incoming) FROM tr), (SELECT count(*) FILTER (WHERE outgoing) FROM tr),
            (SELECT count(*) FILTER (WHERE incoming) FROM nft), (SELECT count(*) FILTER (WHERE outgoing) FROM nft),
            (SELECT min(block_number)::BIGINT FROM seen), (SELECT min(block_time) FROM seen), (SELECT max(block_number)::BIGINT FROM seen), (SELECT max(block_time) FROM seen),
            (SELECT count(DISTINCT block_time::DATE) FROM seen)`,
    signal,
  );
  const n = (i: number) => Number(row![i] ?? 0);
  const seen = (block: unknown, time: unknown) => (block === null || block === undefined ? null : { block_number: Number(block), time: String(time) });
  return {
    transactions_sent: n(0),
    transactions_received: n(1),
    transactions_failed: n(2),
    token_transfers_in: n(3),
    token_transfers_out: n(4),
    nft_transfers_in: n(5),
    nft_transfers_out: n(6),
    first_seen: seen(row![7], row![8]),
    last_seen: seen(row![9], row![10]),
    active_days: n(11),
  };
}

export const tokenFlowSchema = () =>
  z.object({
    token: addressOut().describe('ERC-20 contract'),
    transfers_in: z.int().min(0).describe('Transfers to the wallet'),
    transfers_out: z.int().min(0).describe('Transfers from the wallet'),
    amount_in: atomicString().describe('Received (smallest unit)'),
    amount_out: atomicString().describe('Sent (smallest unit)'),
    net: signedAtomicString().describe('amount_in − amount_out'),
  });
export type TokenFlow = z.infer<ReturnType<typeof tokenFlowSchema>>;

/** The wallet's flows per token over the window, most transfers first (then by token), at most `limit`; and how many tokens in all. */
export async function tokenFlows(on: IndexedChain, wallet: string, w: Window, limit: number, signal?: AbortSignal): Promise<{ flows: TokenFlow[]; tokens: number }> {
  const a = sqlAddress(wallet);
  const rows = await indexRows(
    on,
    `SELECT contract_address, count(*) FILTER (WHERE "to" = ${a}), count(*) FILTER (WHERE "from" = ${a}),
            (coalesce(sum(value) FILTER (WHERE "to" = ${a}), 0))::VARCHAR, (coalesce(sum(value) FILTER (WHERE "from" = ${a}), 0))::VARCHAR,
            count(*) OVER ()
     FROM erc20_transfers WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a})
     GROUP BY contract_address ORDER BY count(*) DESC, contract_address LIMIT ${sqlInt(limit)}`,
    signal,
  );
  const flows = rows.map(([token, transfersIn, transfersOut, amountIn, amountOut]) => ({
    token: getAddress(String(token)),
    transfers_in: Number(transfersIn),
    transfers_out: Number(transfersOut),
    amount_in: amount(amountIn),
    amount_out: amount(amountOut),
    net: (BigInt(amount(amountIn)) - BigInt(amount(amountOut))).toString(),
  }));
  return { flows, tokens: rows.length > 0 ? Number(rows[0]![5]) : 0 };
}

export const counterpartySchema = () =>
  z.object({
    address: addressOut().describe('The other side'),
    transfers_in: z.int().min(0).describe('Token transfers from it'),
    transfers_out: z.int().min(0).describe('Token transfers to it'),
    transactions: z.int().min(0).describe('Transactions either way'),
    interactions: z.int().min(0).describe('Sum of the three: the ranking key'),
  });
export type Counterparty = z.infer<ReturnType<typeof counterpartySchema>>;

/** The wallet's counterparties over the window, most interactions first (then by address), at most `limit`; and how many in all. */
export async function counterparties(on: IndexedChain, wallet: string, w: Window, limit: number, signal?: AbortSignal): Promise<{ list: Counterparty[]; total: number }> {
  const a = sqlAddress(wallet);
  const zero = sqlAddress(ZERO_ADDRESS);
  const rows = await indexRows(
    on,
    `WITH sides AS (
       SELECT "from" AS other, 1 AS incoming, 0 AS outgoing, 0 AS tx FROM erc20_transfers WHERE ${within(w)} AND "to" = ${a} AND "from" <> ${a}
       UNION ALL SELECT "to", 0, 1, 0 FROM erc20_transfers WHERE ${within(w)} AND "from" = ${a} AND "to" <> ${a}
       UNION ALL SELECT CASE WHEN "from" = ${a} THEN "to" ELSE "from" END, 0, 0, 1 FROM transactions WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a}) AND "to" IS NOT NULL AND "from" <> "to")
     SELECT other, sum(incoming)::BIGINT, sum(outgoing)::BIGINT, sum(tx)::BIGINT, count(*), count(*) OVER ()
     FROM sides WHERE other <> ${zero} GROUP BY other ORDER BY count(*) DESC, other LIMIT ${sqlInt(limit)}`,
    signal,
  );
  return {
    list: rows.map(([address, incoming, outgoing, tx, total]) => ({
      address: getAddress(String(address)),
      transfers_in: Number(incoming),
      transfers_out: Number(outgoing),
      transactions: Number(tx),
      interactions: Number(total),
    })),
    total: rows.length > 0 ? Number(rows[0]![5]) : 0,
  };
}
