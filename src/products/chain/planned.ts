import { z } from 'zod';
import { READ_EXTERNAL, evmAddress, evmChain, planned } from '../kit/index.ts';
import { transferSearchInput, transferSearchExample } from './transfer-search.ts';

export const tokenMetrics = planned({
  id: 'token-metrics',
  title: 'Token holder metrics',
  description:
    'Returns holder metrics for one token contract: balances, holder distribution, concentration and whale ownership.',
  price: { http: '0.03', mcp: '0.003' },
  annotations: READ_EXTERNAL,
  input: z.object({
    token_address: z.string().min(1).describe('Token contract address'),
    chain: z.string().optional().describe('Chain of the token, e.g. "base" or "ethereum"'),
  }),
  inputExample: { token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base' },
});

export const walletAnalyze = planned({
  id: 'wallet-analyze',
  title: 'Wallet analysis (90 days)',
  description:
    "Returns an EVM wallet's activity over the last 90 days: transfers, counterparties, token flows and active days.",
  price: { http: '0.08', mcp: '0.005' },
  annotations: READ_EXTERNAL,
  input: z.object({
    wallet_address: evmAddress().describe('Wallet address, 0x + 40 hex characters'),
    chain: evmChain().optional().describe('Chain to analyse'),
  }),
  inputExample: { wallet_address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', chain: 'base' },
});

export const walletSpy = planned({
  id: 'wallet-spy',
  title: 'Wallet activity report',
  description:
    "Returns a wallet's recent transactions, token flows, swaps, NFT activity and counterparties, with a heuristic risk score.",
  method: 'GET',
  price: '0.03',
  annotations: READ_EXTERNAL,
  input: z.object({
    address: evmAddress().describe('Wallet address, 0x + 40 hex characters'),
    chain: evmChain().default('base').describe('Chain to inspect'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', chain: 'base' },
});

export const baseTransferSearch = planned({
  id: 'base-transfer-search',
  title: 'Base token transfer search',
  description:
    'Searches indexed ERC-20 transfers on Base to or from an address, optionally for one token and block range; returns the matching transfers (hash, block, from, to, token, amount).',
  price: '0.005',
  annotations: READ_EXTERNAL,
  input: transferSearchInput,
  inputExample: transferSearchExample,
});

export const baseWalletProfile = planned({
  id: 'base-wallet-profile',
  title: 'Base wallet profile',
  description:
    'Returns a profile of a Base address: ETH and USDC balances, transaction count, first and last activity, and whether it is a contract.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    address: evmAddress().describe('Base address, 0x + 40 hex characters'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
});

export const tokenFlowActivity = planned({
  id: 'token-flow-activity',
  title: 'Token flow activity',
  description:
    "Returns a token's recent transfer flows: volume, largest transfers, net flows of the top senders and receivers, and exchange inflow/outflow, over a chosen window.",
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    token_address: evmAddress().describe('Token contract address, 0x + 40 hex characters'),
    chain: evmChain().default('base').describe('Chain of the token'),
    window_hours: z.int().min(1).max(168).default(24).describe('Look-back window in hours'),
  }),
  inputExample: { token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base', window_hours: 24 },
});

