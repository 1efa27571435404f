/**
 * base_block_number: the latest block of Base, read over JSON-RPC (the local dev chain in dev mode,
 * which the answer names by its own network id). An RPC failure is 502/503/504, never charged.
 */
import { z } from 'zod';
import { READ_EXTERNAL, evmChainOf, evmTxHash, product } from '../../kit/index.ts';
import { blockByNumber, chainIdentity, identity, toBlockNumber } from '../evm.ts';

export const baseBlockNumber = product({
  id: 'base-block-number',
  title: 'Base block number',
  description: 'Returns the latest block number on Base with its hash and timestamp.',
  method: 'GET',
  price: '0.002',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input: z.object({}),
  inputExample: {},
  output: z.object({
    ...chainIdentity,
    block_number: z.int().min(0).describe('Number of the latest block'),
    block_hash: evmTxHash().describe('Hash of that block, 0x + 64 hex characters'),
    timestamp: z.iso.datetime().describe('Time the block was produced, ISO 8601 (UTC)'),
    timestamp_unix: z.int().min(0).describe('The same time, Unix epoch seconds'),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    block_number: 9,
    block_hash: '0x97ac8d63ce33b513b7e3416f8667786d7af443930b712f321cd3eba3c7699d23',
    timestamp: '2026-11-23T20:35:18.000Z',
    timestamp_unix: 1795466118,
  },
  run: async (_input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const block = await blockByNumber(base, 'latest');
    const unix = toBlockNumber(block.timestamp);
    return { ...identity(base), block_number: toBlockNumber(block.number), block_hash: block.hash, timestamp: new Date(unix * 1000).toISOString(), timestamp_unix: unix };
  },
});
