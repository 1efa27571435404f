/**
 * wallet_analyze: an EVM wallet's last 90 days from the block index: its ERC-20 transfers in and
 * out, its transactions, its counterparties (top list), its flows per token and its active days.
 * The window ends at the call's time; blocks newer than the index are not counted (the answer says
 * which block it read up to). Definitions: wallet-activity.ts.
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChain, product } from '../../kit/index.ts';
import { addressOut, chainIdentity } from '../evm.ts';
import { covers, indexedChain, indexedRange, indexedRangeSchema, requireIndexed } from '../index-read.ts';
import { activityCounts, counterparties, counterpartySchema, windowSchema, seenSchema, tokenFlowSchema, tokenFlows } from '../wallet-activity.ts';

export const WINDOW_DAYS = 90;

export const TOP_COUNTERPARTIES = 10;
export const TOP_TOKENS = 20;

export const walletAnalyze = product({
  id: 'wallet-analyze',
  title: 'Wallet analysis (90 days)',
  description:
    "Returns an EVM wallet's activity over the last 90 days from percall's block index: ERC-20 transfers in and out, transactions, top counterparties, token flows per token (exact amounts in and out) and active days.",
  price: { http: '0.08', mcp: '0.005' },
  annotations: READ_EXTERNAL,
  requires: ['index'],
  input: z.object({
    wallet_address: evmAddress().describe('Wallet address, 0x + 40 hex characters'),
    chain: evmChain().optional().describe('Chain to analyse (default base); must be one this instance indexes'),
  }),
  inputExample: { wallet_address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', chain: 'base' },
  output: z.object({
    ...chainIdentity,
    wallet_address: addressOut().describe('The wallet, EIP-55 checksummed'),
    window: windowSchema(WINDOW_DAYS),
    transfers: z
      .object({
        in: z.int().min(0).describe('ERC-20 transfers to the wallet'),
        out: z.int().min(0).describe('ERC-20 transfers from the wallet'),
        total: z.int().min(0).describe('in + out (a transfer to itself counts in both)'),
      })
      .describe('ERC-20 Transfer events of the window'),
    transactions: z
      .object({
        sent: z.int().min(0).describe('Transactions the wallet sent'),
        received: z.int().min(0).describe('Transactions sent to the wallet'),
        failed: z.int().min(0).describe('Of those sent, how many reverted'),
      })
      .describe('Transactions of the window'),
    counterparties: z.array(counterpartySchema()).describe(`Top ${TOP_COUNTERPARTIES} counterparties (the other side of token transfers and transactions; the zero address excluded), most interactions first`),
    counterparties_total: z.int().min(0).describe('Distinct counterparties in the window'),
    token_flows: z.array(tokenFlowSchema()).describe(`Flows per ERC-20 token, most transfers first, at most ${TOP_TOKENS}; amounts in the token’s smallest unit (amounts of 2^127 or more are counted as transfers but not summed)`),
    tokens_total: z.int().min(0).describe('Distinct tokens the wallet sent or received in the window'),
    active_days: z.int().min(0).describe('UTC days in the window with at least one transaction, token or NFT transfer of the wallet'),
    first_seen: seenSchema().describe('First activity in the window; null when none'),
    last_seen: seenSchema().describe('Last activity in the window; null when none'),
    indexed: indexedRangeSchema(),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) in test/chain-index-products.test.ts.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "wallet_address": "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
    "window": {
      "days": 90,
      "from": "2026-08-25T22:58:00.863Z",
      "to": "2026-11-23T22:58:00.863Z",
      "to_block": 35,
      "complete": true
    },
    "transfers": {
      "in": 4,
      "out": 6,
      "total": 10
    },
    "transactions": {
      "sent": 10,
      "received": 0,
      "failed": 0
    },
    "counterparties": [
      {
        "address": "0x0165878A594ca255338adfa4d48449f69242Eb8F",
        "transfers_in": 0,
        "transfers_out": 0,
        "transactions": 3,
        "interactions": 3
      },
      {
        "address": "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
        "transfers_in": 0,
        "transfers_out": 0,
        "transactions": 3,
        "interactions": 3
      },
      {
        "address": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "transfers_in": 0,
        "transfers_out": 0,
        "transactions": 3,
        "interactions": 3
      },
      {
        "address": "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318",
        "transfers_in": 0,
        "transfers_out": 2,
        "transactions": 1,
        "interactions": 3
      },
      {
        "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
        "transfers_in": 1,
        "transfers_out": 2,
        "transactions": 0,
        "interactions": 3
      },
      {
        "address": "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
        "transfers_in": 0,
        "transfers_out": 2,
        "transactions": 0,
        "interactions": 2
      },
      {
        "address": "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
        "transfers_in": 1,
        "transfers_out": 0,
        "transactions": 0,
        "interactions": 1
      }
    ],
    "counterparties_total": 7,
    "token_flows": [
      {
        "token": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "transfers_in": 3,
        "transfers_out": 3,
        "amount_in": "104000010",
        "amount_out": "52000000",
        "net": "52000010"
      },
      {
        "token": "0x0165878A594ca255338adfa4d48449f69242Eb8F",
        "transfers_in": 1,
        "transfers_out": 3,
        "amount_in": "1000000000000000000000000",
        "amount_out": "82000000000000000000000",
        "net": "918000000000000000000000"
      }
    ],
    "tokens_total": 2,
    "active_days": 1,
    "first_seen": {
      "block_number": 4,
      "time": "2026-11-23T22:57:52.000Z"
    },
    "last_seen": {
      "block_number": 26,
      "time": "2026-11-23T22:57:53.000Z"
    },
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-23T22:57:39.000Z",
      "to_block": 35,
      "to_time": "2026-11-23T22:58:00.000Z",
      "from_genesis": true
    }
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, input.chain ?? 'base');
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const since = new Date(ctx.now.getTime() - WINDOW_DAYS * 86_400_000);
    const window = { toBlock: range.to_block, since };
    const counts = await activityCounts(on, input.wallet_address, window, ctx.signal);
    const flows = await tokenFlows(on, input.wallet_address, window, TOP_TOKENS, ctx.signal);
    const others = await counterparties(on, input.wallet_address, window, TOP_COUNTERPARTIES, ctx.signal);
    return {
      chain: on.chain,
      network: on.network,
      wallet_address: getAddress(input.wallet_address),
      window: { days: WINDOW_DAYS as typeof WINDOW_DAYS, from: since.toISOString(), to: ctx.now.toISOString(), to_block: range.to_block, complete: covers(range, since) },
      transfers: { in: counts.token_transfers_in, out: counts.token_transfers_out, total: counts.token_transfers_in + counts.token_transfers_out },
      transactions: { sent: counts.transactions_sent, received: counts.transactions_received, failed: counts.transactions_failed },
      counterparties: others.list,
      counterparties_total: others.total,
      token_flows: flows.flows,
      tokens_total: flows.tokens,
      active_days: counts.active_days,
      first_seen: counts.first_seen,
      last_seen: counts.last_seen,
      indexed: range,
    };
  },
});
