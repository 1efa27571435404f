/**
 * base_transfer_search_rpc: ERC-20 transfers to and/or from a Base address, found by scanning
 * `Transfer` logs over JSON-RPC (eth_getLogs) in a bounded window: at most MAX_LOG_BLOCKS blocks,
 * the last DEFAULT_WINDOW blocks by default. A future block, a reversed or too wide window is 422
 * naming the field, never charged; the indexed `base-transfer-search` covers any range.
 */
import { z } from 'zod';
import { decodeFunctionResult, encodeFunctionData, getAddress, type Address } from 'viem';
import { READ_EXTERNAL, evmChainOf, product } from '../../kit/index.ts';
import type { EvmChainProvider } from '../../../providers/chains.ts';
import { MAX_LOG_BLOCKS, TRANSFER_TOPIC, addressOut, addressTopic, callOrRevert, chainIdentity, checkWindow, identity, latestBlockNumber, tokenAmount, transferLogs, weiString, type Transfer } from '../evm.ts';
import { transferSearchExample, transferSearchInput } from '../transfer-search.ts';

/** Blocks searched when the caller gives no from_block (about an hour on Base). */
export const DEFAULT_WINDOW = 2_000;
/** Tokens whose decimals are looked up per answer; beyond that `amount` is null. */
const MAX_DECIMALS_LOOKUPS = 20;
const DECIMALS = [{ type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] }] as const;

export const baseTransferSearchRpc = product({
  id: 'base-transfer-search-rpc',
  title: 'Base token transfer search (direct RPC)',
  description: `Same search as base_transfer_search, answered by scanning ERC-20 Transfer logs directly over Base JSON-RPC instead of an index (fresher, slower): at most ${MAX_LOG_BLOCKS} blocks per call, the last ${DEFAULT_WINDOW} by default; returns the matching transfers, newest first.`,
  http: false,
  price: '0.02',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input: transferSearchInput,
  inputExample: transferSearchExample,
  output: z.object({
    ...chainIdentity,
    address: addressOut().describe('The address searched'),
    direction: z.enum(['in', 'out', 'both']).describe('Which transfers were searched'),
    token_address: addressOut().nullable().describe('The token searched; null for all tokens'),
    from_block: z.int().min(0).describe('First block searched'),
    to_block: z.int().min(0).describe('Last block searched'),
    transfers: z
      .array(
        z.object({
          tx_hash: z.string().describe('Transaction of the transfer'),
          log_index: z.int().min(0).describe('Position of its Transfer log in the block'),
          block_number: z.int().min(0).describe('Block of the transfer'),
          token: addressOut().describe('ERC-20 contract'),
          from: addressOut().describe('Sender'),
          to: addressOut().describe('Recipient'),
          direction: z.enum(['in', 'out', 'self']).describe('in: to the address; out: from it; self: both'),
          amount_atomic: weiString().describe('Amount in the token’s smallest unit, a decimal string'),
          token_decimals: z.int().min(0).nullable().describe('The token’s decimals, when it answers decimals()'),
          amount: z.string().nullable().describe('Amount in whole tokens (exact decimal string), when the decimals are known'),
        }),
      )
      .describe('Matching transfers, newest first, at most `limit`'),
    count: z.int().min(0).describe('Number of transfers listed'),
    truncated: z.boolean().describe('Whether more transfers matched in the window than `limit`'),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    address: '0x1f655EA0e909073b9Bde2d281B6970098421167d',
    direction: 'both',
    token_address: null,
    from_block: 0,
    to_block: 16,
    transfers: [
      {
        tx_hash: '0x5083762d989c3e385443aa7e6a787081c1d6c196165416da5649d8b96ce077ed',
        log_index: 0,
        block_number: 6,
        token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        from: '0x1f655EA0e909073b9Bde2d281B6970098421167d',
        to: '0x0C3B9360bE039EbfC651A9A64A0299b460103FD7',
        direction: 'out',
        amount_atomic: '2345678',
        token_decimals: 6,
        amount: '2.345678',
      },
      {
        tx_hash: '0x8e084903045a585dd6e018ae4c1118261863015185749ad0109268b9e3fba7ac',
        log_index: 0,
        block_number: 5,
        token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        from: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        to: '0x1f655EA0e909073b9Bde2d281B6970098421167d',
        direction: 'in',
        amount_atomic: '12345678',
        token_decimals: 6,
        amount: '12.345678',
      }
    ],
    count: 2,
    truncated: false,
  },
  run: async (input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const address = getAddress(input.address);
    const latest = await latestBlockNumber(base);
    const to = input.to_block ?? latest;
    const from = input.from_block ?? Math.max(0, Math.min(to, latest) - DEFAULT_WINDOW + 1);
    checkWindow(from, to, latest, { from: 'from_block', to: 'to_block' });
    const token = input.token_address ? { address: input.token_address.toLowerCase() } : {};
    const topic = addressTopic(address);
    const searches: Promise<Transfer[]>[] = [];
    if (input.direction !== 'in') searches.push(transferLogs(base, { ...token, topics: [TRANSFER_TOPIC, topic, null] }, from, to, ctx.signal));
    if (input.direction !== 'out') searches.push(transferLogs(base, { ...token, topics: [TRANSFER_TOPIC, null, topic] }, from, to, ctx.signal));
    // A transfer to itself is found by both searches: once is enough.
    const unique = new Map<string, Transfer>();
    for (const list of await Promise.all(searches)) for (const t of list) unique.set(`${t.tx_hash}:${t.log_index}`, t);
    const all = [...unique.values()].sort((a, b) => b.block_number - a.block_number || b.log_index - a.log_index);
    const listed = all.slice(0, input.limit);
    const decimals = await tokenDecimals(base, [...new Set(listed.map((t) => t.token))]);
    return {
      ...identity(base),
      address,
      direction: input.direction,
      token_address: input.token_address ? getAddress(input.token_address) : null,
      from_block: from,
      to_block: to,
      transfers: listed.map((t) => {
        const places = decimals.get(t.token) ?? null;
        return {
          tx_hash: t.tx_hash,
          log_index: t.log_index,
          block_number: t.block_number,
          token: t.token,
          from: t.from,
          to: t.to,
          direction: t.from === t.to ? ('self' as const) : t.to === address ? ('in' as const) : ('out' as const),
          amount_atomic: t.value.toString(),
          token_decimals: places,
          amount: places === null ? null : tokenAmount(t.value, places),
        };
      }),
      count: listed.length,
      truncated: all.length > listed.length,
    };
  },
});

/** decimals() of each token (at most MAX_DECIMALS_LOOKUPS); a token that does not answer is left out. */
async function tokenDecimals(base: EvmChainProvider, tokens: Address[]): Promise<Map<Address, number>> {
  const data = encodeFunctionData({ abi: DECIMALS, functionName: 'decimals' });
  const found = new Map<Address, number>();
  await Promise.all(
    tokens.slice(0, MAX_DECIMALS_LOOKUPS).map(async (token) => {
      const result = await callOrRevert(base, { to: token, data }, 'latest');
      if (!result) return; // no decimals(): the raw amount stands alone
      try {
        found.set(token, decodeFunctionResult({ abi: DECIMALS, functionName: 'decimals', data: result }));
      } catch {
        // An answer that is not a uint8: the raw amount stands alone.
      }
    }),
  );
  return found;
}
