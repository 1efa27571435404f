/**
 * token_flow_activity: one ERC-20 token's transfers over the last `window_hours`, from the block
 * index: volume, the largest transfers, the net flows of the top senders and receivers, mints and
 * burns, and the flows into and out of exchanges. "Exchanges" are what the index can tell: the
 * Uniswap v2/v3-style pairs and pools that emitted a Swap event (centralised exchanges' wallets are
 * not known to it).
 *
 * A contract with no indexed transfer at all is the caller's input (422 on token_address); a quiet
 * window is an answer (zeros).
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { ProductInputError, READ_EXTERNAL, evmAddress, evmChain, product } from '../../kit/index.ts';
import { addressOut, chainIdentity } from '../evm.ts';
import { amount, atomicString, covers, indexRows, indexedChain, indexedRange, indexedRangeSchema, requireIndexed, signedAtomicString, sqlAddress, sqlInt, sqlTime, isoTime } from '../index-read.ts';
import { ZERO_ADDRESS } from '../wallet-activity.ts';

export const TOP = 5;

const party = z.object({
  address: addressOut().describe('Address'),
  sent_atomic: atomicString().describe('Sent in the window (smallest unit)'),
  received_atomic: atomicString().describe('Received in the window'),
  net_atomic: signedAtomicString().describe('received − sent (negative: a net sender)'),
});

export const tokenFlowActivity = product({
  id: 'token-flow-activity',
  title: 'Token flow activity',
  description:
    "Returns a token's recent transfer flows from percall's block index over a chosen window (1–168 hours): volume, largest transfers, net flows of the top senders and receivers, mints and burns, and inflow/outflow of exchanges (the Uniswap v2/v3-style pools seen in the index); exact amounts as decimal strings.",
  price: '0.02',
  annotations: READ_EXTERNAL,
  requires: ['index'],
  input: z.object({
    token_address: evmAddress().describe('Token contract address, 0x + 40 hex characters'),
    chain: evmChain().default('base').describe('Chain of the token; must be one this instance indexes'),
    window_hours: z.int().min(1).max(168).default(24).describe('Look-back window in hours'),
  }),
  inputExample: { token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base', window_hours: 24 },
  output: z.object({
    ...chainIdentity,
    token_address: addressOut().describe('The token, EIP-55 checksummed'),
    window: z
      .object({
        hours: z.int().min(1).max(168).describe('Length of the window'),
        from: isoTime().describe('Start (UTC): the call’s time minus window_hours'),
        to: isoTime().describe('End: the call’s time'),
        to_block: z.int().min(0).describe('Last block counted (the index’s last block when read)'),
        complete: z.boolean().describe('Whether the index covers the whole window'),
      })
      .describe('The window'),
    volume: z
      .object({
        transfers: z.int().min(0).describe('Transfers of the token in the window (mints and burns included)'),
        amount_atomic: atomicString().describe('Their total amount (smallest unit; amounts of 2^127 or more are counted but not summed)'),
        senders: z.int().min(0).describe('Distinct senders (the zero address excluded)'),
        receivers: z.int().min(0).describe('Distinct receivers (the zero address excluded)'),
      })
      .describe('Volume in the window'),
    mint_burn: z
      .object({
        minted_atomic: atomicString().describe('Transferred from the zero address'),
        burned_atomic: atomicString().describe('Transferred to the zero address'),
      })
      .describe('Mints and burns in the window'),
    largest_transfers: z
      .array(
        z.object({
          tx_hash: z.string().describe('Transaction'),
          log_index: z.int().min(0).describe('Position of its log in the block'),
          block_number: z.int().min(0).describe('Block'),
          time: isoTime().describe('Block time (UTC)'),
          from: addressOut().describe('Sender'),
          to: addressOut().describe('Recipient'),
          amount_atomic: atomicString().describe('Amount (smallest unit)'),
        }),
      )
      .describe(`The ${TOP} largest transfers, largest first`),
    top_senders: z.array(party).describe(`The ${TOP} addresses that sent the most (the zero address excluded)`),
    top_receivers: z.array(party).describe(`The ${TOP} addresses that received the most (the zero address excluded)`),
    exchange_flows: z
      .object({
        pools: z.int().min(0).describe('Exchange pools among the window’s senders and receivers: addresses that emitted a Uniswap v2/v3-style Swap event in the index'),
        inflow_atomic: atomicString().describe('Sent to those pools in the window'),
        outflow_atomic: atomicString().describe('Sent from those pools in the window'),
        net_atomic: signedAtomicString().describe('inflow − outflow (positive: more went into exchanges than came out)'),
      })
      .describe('Flows into and out of DEX pools'),
    indexed: indexedRangeSchema(),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) in test/chain-index-products.test.ts.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "token_address": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    "window": {
      "hours": 24,
      "from": "2026-11-22T22:58:03.462Z",
      "to": "2026-11-23T22:58:03.462Z",
      "to_block": 40,
      "complete": true
    },
    "volume": {
      "transfers": 23,
      "amount_atomic": "1465218506",
      "senders": 6,
      "receivers": 7
    },
    "mint_burn": {
      "minted_atomic": "1400000000",
      "burned_atomic": "0"
    },
    "largest_transfers": [
      {
        "tx_hash": "0xab17f0ef1aedb3094dd4b12aef342b110133de4d935d8154ca3058bb82988b1d",
        "log_index": 0,
        "block_number": 2,
        "time": "2026-11-23T22:57:40.000Z",
        "from": "0x0000000000000000000000000000000000000000",
        "to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "amount_atomic": "1000000000"
      },
      {
        "tx_hash": "0x4da22a95b5d9a915fc3521cade59fe473ad072201e26b8fa17cc0111a102105e",
        "log_index": 0,
        "block_number": 7,
        "time": "2026-11-23T22:57:53.000Z",
        "from": "0x0000000000000000000000000000000000000000",
        "to": "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
        "amount_atomic": "100000000"
      },
      {
        "tx_hash": "0x98e4f2b6ebcd6ef6bd2b72a7c3b4f7468b9c25b6000b23403c85bb8b11ae99ae",
        "log_index": 0,
        "block_number": 6,
        "time": "2026-11-23T22:57:53.000Z",
        "from": "0x0000000000000000000000000000000000000000",
        "to": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "amount_atomic": "100000000"
      },
      {
        "tx_hash": "0x341c46bc0c181066da0e95d4a1225ea20d9164d972d36a7bd3e66425dda16d03",
        "log_index": 0,
        "block_number": 5,
        "time": "2026-11-23T22:57:52.000Z",
        "from": "0x0000000000000000000000000000000000000000",
        "to": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "amount_atomic": "100000000"
      },
      {
        "tx_hash": "0x828923e9b1079bdcee4a7b50e7f96d90e6572b2214dc5510be32c29fc917b6b4",
        "log_index": 0,
        "block_number": 4,
        "time": "2026-11-23T22:57:52.000Z",
        "from": "0x0000000000000000000000000000000000000000",
        "to": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "amount_atomic": "100000000"
      }
    ],
    "top_senders": [
      {
        "address": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "sent_atomic": "52000000",
        "received_atomic": "104000010",
        "net_atomic": "52000010"
      },
      {
        "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "sent_atomic": "7500011",
        "received_atomic": "101250000",
        "net_atomic": "93749989"
      },
      {
        "address": "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
        "sent_atomic": "4000000",
        "received_atomic": "101513495",
        "net_atomic": "97513495"
      },
      {
        "address": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
        "sent_atomic": "1180162",
        "received_atomic": "55000000",
        "net_atomic": "53819838"
      },
      {
        "address": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "sent_atomic": "333333",
        "received_atomic": "103250001",
        "net_atomic": "102916668"
      }
    ],
    "top_receivers": [
      {
        "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "sent_atomic": "205000",
        "received_atomic": "1000000000",
        "net_atomic": "999795000"
      },
      {
        "address": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
        "sent_atomic": "52000000",
        "received_atomic": "104000010",
        "net_atomic": "52000010"
      },
      {
        "address": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "sent_atomic": "333333",
        "received_atomic": "103250001",
        "net_atomic": "102916668"
      },
      {
        "address": "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
        "sent_atomic": "4000000",
        "received_atomic": "101513495",
        "net_atomic": "97513495"
      },
      {
        "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "sent_atomic": "7500011",
        "received_atomic": "101250000",
        "net_atomic": "93749989"
      }
    ],
    "exchange_flows": {
      "pools": 1,
      "inflow_atomic": "55000000",
      "outflow_atomic": "1180162",
      "net_atomic": "53819838"
    },
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-23T22:57:39.000Z",
      "to_block": 40,
      "to_time": "2026-11-23T22:58:03.000Z",
      "from_genesis": true
    }
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, input.chain);
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const t = sqlAddress(input.token_address);
    const zero = sqlAddress(ZERO_ADDRESS);
    const [ever] = await indexRows(on, `SELECT count(*) FROM erc20_transfers WHERE contract_address = ${t} AND block_number <= ${sqlInt(range.to_block)}`, ctx.signal);
    if (Number(ever![0]) === 0) {
      throw new ProductInputError(`no ERC-20 transfer of ${getAddress(input.token_address)} is in the index (blocks ${range.from_block}–${range.to_block} of ${on.chain}): not a token, or not active in that range`, 422, 'token_address');
    }
    const since = new Date(ctx.now.getTime() - input.window_hours * 3_600_000);
    const w = `FROM erc20_transfers WHERE contract_address = ${t} AND block_number <= ${sqlInt(range.to_block)} AND block_time >= ${sqlTime(since)}`;
    const [volume] = await indexRows(
      on,
      `SELECT count(*), (coalesce(sum(value), 0))::VARCHAR, count(DISTINCT "from") FILTER (WHERE "from" <> ${zero}), count(DISTINCT "to") FILTER (WHERE "to" <> ${zero}),
              (coalesce(sum(value) FILTER (WHERE "from" = ${zero}), 0))::VARCHAR, (coalesce(sum(value) FILTER (WHERE "to" = ${zero}), 0))::VARCHAR ${w}`,
      ctx.signal,
    );
    const largest = await indexRows(
      on,
      `SELECT tx_hash, log_index, block_number, block_time, "from", "to", value::VARCHAR ${w} AND value IS NOT NULL ORDER BY value DESC, block_number DESC, log_index DESC LIMIT ${TOP}`,
      ctx.signal,
    );
    const parties = (order: 'sent' | 'received') =>
      indexRows(
        on,
        `WITH moves AS (SELECT "from" AS address, value AS sent, 0 AS received ${w} UNION ALL SELECT "to", 0, value ${w})
         SELECT address, (coalesce(sum(sent), 0))::VARCHAR, (coalesce(sum(received), 0))::VARCHAR FROM moves WHERE address <> ${zero}
         GROUP BY address HAVING sum(${order}) > 0 ORDER BY sum(${order}) DESC, address LIMIT ${TOP}`,
        ctx.signal,
      );
    const senders = await parties('sent');
    const receivers = await parties('received');
    const upTo = `block_number <= ${sqlInt(range.to_block)}`;
    const [exchange] = await indexRows(
      on,
      `WITH pools AS (SELECT DISTINCT pair_address AS pool FROM uniswap_v2_swaps WHERE ${upTo} UNION SELECT DISTINCT pool_address FROM uniswap_v3_swaps WHERE ${upTo}),
            t AS (SELECT "from", "to", value ${w})
       SELECT (SELECT count(*) FROM pools WHERE pool IN (SELECT "from" FROM t UNION SELECT "to" FROM t)),
              (SELECT coalesce(sum(value), 0) FROM t WHERE "to" IN (SELECT pool FROM pools))::VARCHAR,
              (SELECT coalesce(sum(value), 0) FROM t WHERE "from" IN (SELECT pool FROM pools))::VARCHAR`,
      ctx.signal,
    );
    const partyOf = ([address, sent, received]: unknown[]) => ({
      address: getAddress(String(address)),
      sent_atomic: amount(sent),
      received_atomic: amount(received),
      net_atomic: (BigInt(amount(received)) - BigInt(amount(sent))).toString(),
    });
    const inflow = BigInt(amount(exchange![1]));
    const outflow = BigInt(amount(exchange![2]));
    return {
      chain: on.chain,
      network: on.network,
      token_address: getAddress(input.token_address),
      window: { hours: input.window_hours, from: since.toISOString(), to: ctx.now.toISOString(), to_block: range.to_block, complete: covers(range, since) },
      volume: { transfers: Number(volume![0]), amount_atomic: amount(volume![1]), senders: Number(volume![2]), receivers: Number(volume![3]) },
      mint_burn: { minted_atomic: amount(volume![4]), burned_atomic: amount(volume![5]) },
      largest_transfers: largest.map(([hash, logIndex, block, time, from, to, value]) => ({
        tx_hash: String(hash),
        log_index: Number(logIndex),
        block_number: Number(block),
        time: String(time),
        from: getAddress(String(from)),
        to: getAddress(String(to)),
        amount_atomic: amount(value),
      })),
      top_senders: senders.map(partyOf),
      top_receivers: receivers.map(partyOf),
      exchange_flows: { pools: Number(exchange![0]), inflow_atomic: inflow.toString(), outflow_atomic: outflow.toString(), net_atomic: (inflow - outflow).toString() },
      indexed: range,
    };
  },
});
