/**
 * wallet_spy: a wallet's last 30 days from the block index: its transactions (the newest listed),
 * token flows, Uniswap v2/v3-style swaps, NFT activity and counterparties, with a heuristic risk
 * score (risk.ts). Definitions of transfers and counterparties: wallet-activity.ts.
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChain, product } from '../../kit/index.ts';
import { addressOut, chainIdentity, weiString } from '../evm.ts';
import { amount, atomicString, covers, indexRows, indexedChain, indexedRange, requireIndexed, sqlAddress, sqlInt, sqlTime, type IndexedChain, isoTime } from '../index-read.ts';
import { ZERO_ADDRESS, activityCounts, counterparties, counterpartySchema, windowSchema, tokenFlowSchema, tokenFlows, type Window } from '../wallet-activity.ts';
import { NEW_WALLET_DAYS, RISK_RULES_TEXT, riskFactorSchema, riskScore } from './risk.ts';

export const WINDOW_DAYS = 30;
export const RECENT = 10;

const within = (w: Window) => `block_number <= ${sqlInt(w.toBlock)} AND block_time >= ${sqlTime(w.since!)}`;

const seenAt = {
  tx_hash: z.string().describe('Transaction'),
  block_number: z.int().min(0).describe('Block'),
};

const swap = z.object({
  ...seenAt,
  protocol: z.enum(['uniswap_v2', 'uniswap_v3']).describe('v2-style pair or v3-style pool'),
  pool: addressOut().describe('Pair or pool'),
  amount0_in: atomicString().describe('token0 into the pool'),
  amount1_in: atomicString().describe('token1 into the pool'),
  amount0_out: atomicString().describe('token0 out of the pool'),
  amount1_out: atomicString().describe('token1 out of the pool'),
});

const nftTransfer = z.object({
  ...seenAt,
  standard: z.enum(['erc721', 'erc1155']).describe('Standard'),
  contract: addressOut().describe('Collection'),
  token_id: atomicString().describe('Token id'),
  amount: atomicString().describe('Units (1 for ERC-721)'),
  direction: z.enum(['in', 'out', 'self']).describe('Relative to the wallet'),
  mint: z.boolean().describe('From the zero address'),
});

const tx = z.object({
  hash: z.string().describe('Transaction'),
  block_number: z.int().min(0).describe('Block'),
  time: isoTime().describe('Block time'),
  direction: z.enum(['in', 'out', 'self']).describe('out: sent by the wallet'),
  counterparty: addressOut().nullable().describe('Other side (null: contract creation)'),
  value_wei: weiString().describe('Native value (wei)'),
  success: z.boolean().describe('false: reverted'),
  method_id: z.string().nullable().describe('4-byte selector (null: plain transfer)'),
});

export const walletSpy = product({
  id: 'wallet-spy',
  title: 'Wallet activity report',
  description: `Returns a wallet's last ${WINDOW_DAYS} days from percall's block index: recent transactions, token flows, Uniswap v2/v3-style swaps, NFT activity and counterparties, with a heuristic risk score 0–100 (the sum of the rules that fire, capped at 100; low under 25, high from 60): ${RISK_RULES_TEXT}.`,
  method: 'GET',
  price: '0.03',
  annotations: READ_EXTERNAL,
  requires: ['index'],
  input: z.object({
    address: evmAddress().describe('Wallet address, 0x + 40 hex characters'),
    chain: evmChain().default('base').describe('Chain to inspect; must be one this instance indexes'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', chain: 'base' },
  output: z.object({
    ...chainIdentity,
    address: addressOut().describe('The wallet, EIP-55 checksummed'),
    window: windowSchema(WINDOW_DAYS),
    transactions: z
      .object({
        sent: z.int().min(0).describe('Sent by the wallet'),
        received: z.int().min(0).describe('Sent to it'),
        failed: z.int().min(0).describe('Sent and reverted'),
        recent: z.array(tx).describe(`The ${RECENT} newest`),
      })
      .describe('Transactions'),
    token_flows: z.array(tokenFlowSchema()).describe(`ERC-20 flows per token, most transfers first, at most ${RECENT}`),
    tokens_total: z.int().min(0).describe('Distinct tokens'),
    swaps: z
      .object({
        count: z.int().min(0).describe('Swaps'),
        recent: z.array(swap).describe(`The ${RECENT} newest`),
      })
      .describe('Uniswap v2/v3-style swaps in its transactions, called by it or paying out to it'),
    nft_activity: z
      .object({
        received: z.int().min(0).describe('Transfers to the wallet'),
        sent: z.int().min(0).describe('Transfers from it'),
        minted: z.int().min(0).describe('Received mints'),
        recent: z.array(nftTransfer).describe(`The ${RECENT} newest`),
      })
      .describe('ERC-721/1155 transfers (one per token id)'),
    counterparties: z.array(counterpartySchema()).describe(`Top ${RECENT} counterparties`),
    counterparties_total: z.int().min(0).describe('Distinct counterparties'),
    risk_score: z.int().min(0).max(100).describe('Sum of the fired rules’ points, capped at 100 (rules: see description)'),
    risk_level: z.enum(['low', 'medium', 'high']).describe('low <25, medium <60, high'),
    risk_factors: z.array(riskFactorSchema()).describe('Rules that fired'),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) in test/chain-index-products.test.ts.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
    "window": {
      "days": 30,
      "from": "2026-10-24T22:58:01.349Z",
      "to": "2026-11-23T22:58:01.349Z",
      "to_block": 37,
      "complete": true
    },
    "transactions": {
      "sent": 5,
      "received": 0,
      "failed": 0,
      "recent": [
        {
          "hash": "0x412f80d50501a5d16e2af09b34cd9c59f30b6920f3f447070cc30e06aed4f90e",
          "block_number": 28,
          "time": "2026-11-23T22:57:53.000Z",
          "direction": "out",
          "counterparty": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
          "value_wei": "0",
          "success": true,
          "method_id": "0x6d9a640a"
        },
        {
          "hash": "0x7651de976b6b0aa03f255dd71ab59483636c55cbee5ab161b0f819c769ef9f43",
          "block_number": 27,
          "time": "2026-11-23T22:57:53.000Z",
          "direction": "out",
          "counterparty": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          "value_wei": "0",
          "success": true,
          "method_id": "0xa9059cbb"
        },
        {
          "hash": "0x6270aa74c251d292f6019b17f3f6cb411b69170e483e839ac2dedd86fb6e0adc",
          "block_number": 20,
          "time": "2026-11-23T22:57:53.000Z",
          "direction": "out",
          "counterparty": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
          "value_wei": "0",
          "success": true,
          "method_id": "0x6a627842"
        },
        {
          "hash": "0xd333bf8c9ec6bb9fbb9fdfb6bf78fd7152873ea10ac9c862527168e7d9273cb6",
          "block_number": 13,
          "time": "2026-11-23T22:57:53.000Z",
          "direction": "out",
          "counterparty": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          "value_wei": "0",
          "success": true,
          "method_id": "0xa9059cbb"
        },
        {
          "hash": "0xa20b95158411e8c92256b28fafc153acaea74c5ad579963cdb2d9d2cd4346f9b",
          "block_number": 9,
          "time": "2026-11-23T22:57:53.000Z",
          "direction": "out",
          "counterparty": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          "value_wei": "0",
          "success": true,
          "method_id": "0xa9059cbb"
        }
      ]
    },
    "token_flows": [
      {
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "transfers_in": 2,
        "transfers_out": 3,
        "amount_in": "101250000",
        "amount_out": "7500011",
        "net": "93749989"
      },
      {
        "token": "0x0165878A594ca255338adfa4d48449f69242Eb8F",
        "transfers_in": 2,
        "transfers_out": 0,
        "amount_in": "29533054469400745657906",
        "amount_out": "0",
        "net": "29533054469400745657906"
      }
    ],
    "tokens_total": 2,
    "swaps": {
      "count": 1,
      "recent": [
        {
          "tx_hash": "0x412f80d50501a5d16e2af09b34cd9c59f30b6920f3f447070cc30e06aed4f90e",
          "block_number": 28,
          "protocol": "uniswap_v2",
          "pool": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
          "amount0_in": "0",
          "amount1_in": "5000000",
          "amount0_out": "4533054469400745657906",
          "amount1_out": "0"
        }
      ]
    },
    "nft_activity": {
      "received": 2,
      "sent": 0,
      "minted": 1,
      "recent": [
        {
          "tx_hash": "0x1c3a0852243726caf74b964b0fe3679b314f39e35b68f3de0dd8d0193466f4b7",
          "block_number": 22,
          "standard": "erc721",
          "contract": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
          "token_id": "1",
          "amount": "1",
          "direction": "in",
          "mint": false
        },
        {
          "tx_hash": "0x6270aa74c251d292f6019b17f3f6cb411b69170e483e839ac2dedd86fb6e0adc",
          "block_number": 20,
          "standard": "erc721",
          "contract": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
          "token_id": "2",
          "amount": "1",
          "direction": "in",
          "mint": true
        }
      ]
    },
    "counterparties": [
      {
        "address": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "transfers_in": 0,
        "transfers_out": 0,
        "transactions": 3,
        "interactions": 3
      },
      {
        "address": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
        "transfers_in": 1,
        "transfers_out": 1,
        "transactions": 1,
        "interactions": 3
      },
      {
        "address": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "transfers_in": 2,
        "transfers_out": 1,
        "transactions": 0,
        "interactions": 3
      },
      {
        "address": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "transfers_in": 0,
        "transfers_out": 1,
        "transactions": 0,
        "interactions": 1
      },
      {
        "address": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
        "transfers_in": 0,
        "transfers_out": 0,
        "transactions": 1,
        "interactions": 1
      }
    ],
    "counterparties_total": 5,
    "risk_score": 25,
    "risk_level": "medium",
    "risk_factors": [
      {
        "rule": "new_wallet",
        "points": 25,
        "detail": "first seen 0.0 days ago"
      }
    ]
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, input.chain);
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const since = new Date(ctx.now.getTime() - WINDOW_DAYS * 86_400_000);
    const window: Window = { toBlock: range.to_block, since };
    const wallet = input.address;
    const counts = await activityCounts(on, wallet, window, ctx.signal);
    const flows = await tokenFlows(on, wallet, window, RECENT, ctx.signal);
    const others = await counterparties(on, wallet, window, RECENT, ctx.signal);
    const transactions = await recentTransactions(on, wallet, window, ctx.signal);
    const swaps = await recentSwaps(on, wallet, window, ctx.signal);
    const nfts = await recentNfts(on, wallet, window, ctx.signal);
    const facts = await riskStats(on, wallet, window, ctx.signal);
    const firstEver = facts.firstSeen === null ? null : Date.parse(facts.firstSeen);
    const risk = riskScore({
      ageDays: firstEver === null ? null : (ctx.now.getTime() - firstEver) / 86_400_000,
      // A young index cannot tell a new wallet from an old one it has not seen before.
      ageKnown: covers(range, new Date(ctx.now.getTime() - NEW_WALLET_DAYS * 86_400_000)),
      sent: counts.transactions_sent,
      failed: counts.transactions_failed,
      recipients: facts.recipients,
      unsolicitedTokens: facts.unsolicitedTokens,
      busiestDay: facts.busiestDay,
      flows: flows.flows.map((f) => ({ token: f.token, amountIn: BigInt(f.amount_in), amountOut: BigInt(f.amount_out), transfersIn: f.transfers_in, transfersOut: f.transfers_out })),
    });
    return {
      chain: on.chain,
      network: on.network,
      address: getAddress(wallet),
      window: { days: WINDOW_DAYS as typeof WINDOW_DAYS, from: since.toISOString(), to: ctx.now.toISOString(), to_block: range.to_block, complete: covers(range, since) },
      transactions: { sent: counts.transactions_sent, received: counts.transactions_received, failed: counts.transactions_failed, recent: transactions },
      token_flows: flows.flows,
      tokens_total: flows.tokens,
      swaps,
      nft_activity: { received: counts.nft_transfers_in, sent: counts.nft_transfers_out, minted: nfts.minted, recent: nfts.recent },
      counterparties: others.list,
      counterparties_total: others.total,
      risk_score: risk.score,
      risk_level: risk.level,
      risk_factors: risk.factors,
    };
  },
});

const direction = (from: unknown, to: unknown, me: string) => (from === me && to === me ? ('self' as const) : from === me ? ('out' as const) : ('in' as const));

async function recentTransactions(on: IndexedChain, wallet: string, w: Window, signal: AbortSignal) {
  const a = sqlAddress(wallet);
  const rows = await indexRows(
    on,
    `SELECT hash, block_number, block_time, "from", "to", coalesce(value::VARCHAR, value_raw), success, method_id FROM transactions
     WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a}) ORDER BY block_number DESC, tx_index DESC LIMIT ${RECENT}`,
    signal,
  );
  const me = wallet.toLowerCase();
  return rows.map(([hash, block, time, from, to, value, success, method]) => {
    const way = direction(from, to, me);
    const other = way === 'in' ? from : to;
    return {
      hash: String(hash),
      block_number: Number(block),
      time: String(time),
      direction: way,
      counterparty: other === null || other === undefined ? null : getAddress(String(other)),
      value_wei: amount(value),
      success: Boolean(success),
      method_id: (method as string | null) ?? null,
    };
  });
}

async function recentSwaps(on: IndexedChain, wallet: string, w: Window, signal: AbortSignal) {
  const a = sqlAddress(wallet);
  // The wallet's swaps: it sent the transaction (through a router), called the pool, or got the output.
  const mine = `tx_hash IN (SELECT hash FROM transactions WHERE ${within(w)} AND "from" = ${a})`;
  const rows = await indexRows(
    on,
    `WITH s AS (
       SELECT 'uniswap_v2' AS protocol, pair_address AS pool, tx_hash, block_number, block_time, log_index,
              amount0_in, amount1_in, amount0_out, amount1_out
       FROM uniswap_v2_swaps WHERE ${within(w)} AND (sender = ${a} OR "to" = ${a} OR ${mine})
       UNION ALL
       SELECT 'uniswap_v3', pool_address, tx_hash, block_number, block_time, log_index,
              greatest(amount0, 0), greatest(amount1, 0), greatest(-amount0, 0), greatest(-amount1, 0)
       FROM uniswap_v3_swaps WHERE ${within(w)} AND (sender = ${a} OR recipient = ${a} OR ${mine}))
     SELECT protocol, pool, tx_hash, block_number, block_time, amount0_in::VARCHAR, amount1_in::VARCHAR, amount0_out::VARCHAR, amount1_out::VARCHAR, count(*) OVER ()
     FROM s ORDER BY block_number DESC, log_index DESC LIMIT ${RECENT}`,
    signal,
  );
  return {
    count: rows.length > 0 ? Number(rows[0]![9]) : 0,
    recent: rows.map(([protocol, pool, hash, block, , in0, in1, out0, out1]) => ({
      tx_hash: String(hash),
      block_number: Number(block),
      protocol: protocol as 'uniswap_v2' | 'uniswap_v3',
      pool: getAddress(String(pool)),
      amount0_in: amount(in0),
      amount1_in: amount(in1),
      amount0_out: amount(out0),
      amount1_out: amount(out1),
    })),
  };
}

async function recentNfts(on: IndexedChain, wallet: string, w: Window, signal: AbortSignal) {
  const a = sqlAddress(wallet);
  const zero = sqlAddress(ZERO_ADDRESS);
  const rows = await indexRows(
    on,
    `WITH n AS (
       SELECT 'erc721' AS standard, contract_address, coalesce(token_id::VARCHAR, token_id_raw) AS token_id, '1' AS amount, "from", "to", tx_hash, block_number, block_time, log_index, 0 AS batch_index
       FROM erc721_transfers WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a})
       UNION ALL
       SELECT 'erc1155', contract_address, coalesce(token_id::VARCHAR, token_id_raw), coalesce(value::VARCHAR, value_raw), "from", "to", tx_hash, block_number, block_time, log_index, batch_index
       FROM erc1155_transfers WHERE ${within(w)} AND ("from" = ${a} OR "to" = ${a}))
     SELECT standard, contract_address, token_id, amount, "from", "to", tx_hash, block_number, block_time, count(*) FILTER (WHERE "from" = ${zero} AND "to" = ${a}) OVER ()
     FROM n ORDER BY block_number DESC, log_index DESC, batch_index DESC LIMIT ${RECENT}`,
    signal,
  );
  const me = wallet.toLowerCase();
  return {
    minted: rows.length > 0 ? Number(rows[0]![9]) : 0,
    recent: rows.map(([standard, contract, id, units, from, to, hash, block]) => ({
      tx_hash: String(hash),
      block_number: Number(block),
      standard: standard as 'erc721' | 'erc1155',
      contract: getAddress(String(contract)),
      token_id: String(id),
      amount: String(units),
      direction: direction(from, to, me),
      mint: from === ZERO_ADDRESS,
    })),
  };
}

/** What the risk rules read beyond the report itself. */
async function riskStats(on: IndexedChain, wallet: string, w: Window, signal: AbortSignal) {
  const a = sqlAddress(wallet);
  const upTo = `block_number <= ${sqlInt(w.toBlock)}`;
  const [row] = await indexRows(
    on,
    `SELECT
       (SELECT count(DISTINCT "to") FROM erc20_transfers WHERE ${within(w)} AND "from" = ${a} AND "to" <> ${a}),
       (SELECT count(*) FROM (SELECT contract_address FROM erc20_transfers WHERE ${within(w)} AND "to" = ${a} EXCEPT SELECT contract_address FROM erc20_transfers WHERE ${within(w)} AND "from" = ${a})),
       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM transactions WHERE ${within(w)} AND "from" = ${a} GROUP BY block_time::DATE)),
       (SELECT min(t) FROM (SELECT min(block_time) AS t FROM transactions WHERE ${upTo} AND ("from" = ${a} OR "to" = ${a} OR contract_address = ${a})
                            UNION ALL SELECT min(block_time) FROM erc20_transfers WHERE ${upTo} AND ("from" = ${a} OR "to" = ${a})
                            UNION ALL SELECT min(block_time) FROM erc721_transfers WHERE ${upTo} AND ("from" = ${a} OR "to" = ${a})
                            UNION ALL SELECT min(block_time) FROM erc1155_transfers WHERE ${upTo} AND ("from" = ${a} OR "to" = ${a})))`,
    signal,
  );
  return { recipients: Number(row![0]), unsolicitedTokens: Number(row![1]), busiestDay: Number(row![2]), firstSeen: (row![3] as string | null) ?? null };
}
