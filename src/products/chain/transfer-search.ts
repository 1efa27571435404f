/** The input of the two Base transfer searches: `base-transfer-search` (the index) and `base-transfer-search-rpc`. */
import { z } from 'zod';
import { evmAddress } from '../kit/index.ts';

export const transferSearchInput = z.object({
  address: evmAddress().describe('Base address whose token transfers to find (sender or recipient)'),
  direction: z.enum(['in', 'out', 'both']).default('both').describe('Transfers into, out of, or both ways for the address'),
  token_address: evmAddress().optional().describe('Only transfers of this ERC-20 contract (default: all tokens)'),
  from_block: z.int().min(0).optional().describe('First block to search (inclusive); default a recent window'),
  to_block: z.int().min(0).optional().describe('Last block to search (inclusive); default the latest block'),
  limit: z.int().min(1).max(100).default(25).describe('Most transfers to return'),
});

export const transferSearchExample = {
  address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  direction: 'in',
  limit: 10,
};
