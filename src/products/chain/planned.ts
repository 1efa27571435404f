import { z } from 'zod';
import { READ_EXTERNAL, evmAddress, evmChain, evmTxHash, planned, solanaAddress, usdAmount } from '../kit/index.ts';

const transferSearchInput = z.object({
  address: evmAddress().describe('Base address whose token transfers to find (sender or recipient)'),
  direction: z.enum(['in', 'out', 'both']).default('both').describe('Transfers into, out of, or both ways for the address'),
  token_address: evmAddress().optional().describe('Only transfers of this ERC-20 contract (default: all tokens)'),
  from_block: z.int().min(0).optional().describe('First block to search (inclusive); default a recent window'),
  to_block: z.int().min(0).optional().describe('Last block to search (inclusive); default the latest block'),
  limit: z.int().min(1).max(100).default(25).describe('Most transfers to return'),
});
const transferSearchExample = {
  address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  direction: 'in',
  limit: 10,
};

export const analyticsQuery = planned({
  id: 'analytics-query',
  title: 'On-chain SQL analytics query',
  description:
    'Runs an on-chain analytics SQL query (SQL text, or the numeric id of a saved query) and returns the rows in `result` together with the engine `execution_id`.',
  mcp: false,
  price: '0.05',
  input: z.object({
    query: z.string().min(1).describe('SQL text, or a numeric saved-query id as a string'),
    chain: z.string().optional().describe('Chain to scope the query to, e.g. "base" or "ethereum"'),
  }),
  inputExample: {
    query: "SELECT block_number, COUNT(*) AS txs FROM base.transactions WHERE block_time > now() - interval '1' hour GROUP BY 1 ORDER BY 1 DESC LIMIT 5",
    chain: 'base',
  },
  output: z.looseObject({
    result: z.looseObject({}).describe('Query result: rows and column metadata'),
    execution_id: z.string().describe('Id of the query execution on the analytics engine'),
  }),
  outputExample: {
    result: {
      rows: [{ block_number: 24_310_512, txs: 187 }],
      metadata: { column_names: ['block_number', 'txs'], row_count: 1 },
    },
    execution_id: '01JH7Q4W2V9M3K8T5R6Y0ZP1XA',
  },
});

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

export const baseBlockNumber = planned({
  id: 'base-block-number',
  title: 'Base block number',
  description: 'Returns the latest block number on Base with its timestamp.',
  method: 'GET',
  price: '0.002',
  annotations: READ_EXTERNAL,
  input: z.object({}),
  inputExample: {},
});

export const baseGasPrice = planned({
  id: 'base-gas-price',
  title: 'Base gas price',
  description: 'Returns the current gas price on Base, in wei and in gwei.',
  method: 'GET',
  price: '0.002',
  annotations: READ_EXTERNAL,
  input: z.object({}),
  inputExample: {},
});

export const baseTxStatus = planned({
  id: 'base-tx-status',
  title: 'Base transaction status',
  description:
    'Returns the status of one Base transaction: pending, succeeded or reverted, with block number, confirmations and gas used.',
  method: 'GET',
  price: '0.003',
  annotations: READ_EXTERNAL,
  input: z.object({
    tx_hash: evmTxHash().describe('Transaction hash, 0x + 64 hex characters'),
  }),
  inputExample: { tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' },
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

export const baseTransferSearchRpc = planned({
  id: 'base-transfer-search-rpc',
  title: 'Base token transfer search (direct RPC)',
  description:
    'Same search as base_transfer_search, answered by scanning Transfer logs directly over Base JSON-RPC instead of an index (fresher, slower); returns the matching transfers.',
  http: false,
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: transferSearchInput,
  inputExample: transferSearchExample,
});

export const baseUsdcBalance = planned({
  id: 'base-usdc-balance',
  title: 'Base USDC balance',
  description: "Returns an address's USDC balance on Base, in atomic units and in USD.",
  method: 'GET',
  price: '0.003',
  annotations: READ_EXTERNAL,
  input: z.object({
    address: evmAddress().describe('Address to read, 0x + 40 hex characters'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
});

export const baseUsdcTransferCheck = planned({
  id: 'base-usdc-transfer-check',
  title: 'Base USDC transfer check',
  description:
    'Checks whether a Base transaction carries a USDC transfer, optionally to an expected recipient and of at least an expected amount; returns the transfers found and whether they match.',
  method: 'GET',
  price: '0.004',
  annotations: READ_EXTERNAL,
  input: z.object({
    tx_hash: evmTxHash().describe('Transaction hash, 0x + 64 hex characters'),
    to: evmAddress().optional().describe('Expected recipient address'),
    min_amount: usdAmount()
      .optional()
      .describe('Expected minimum amount in USDC as a decimal string, e.g. "0.01"'),
  }),
  inputExample: {
    tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
    to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
    min_amount: '0.01',
  },
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

export const proxyImplementation = planned({
  id: 'proxy-implementation',
  title: 'Proxy implementation lookup',
  description:
    'Resolves the implementation (and admin, when set) behind an upgradeable proxy contract from its EIP-1967 storage slots. Also callable with GET and the same fields as query parameters.',
  price: '0.003',
  annotations: READ_EXTERNAL,
  input: z.object({
    address: evmAddress().describe('Proxy contract address, 0x + 40 hex characters'),
    chain: evmChain().default('base').describe('Chain of the contract'),
  }),
  inputExample: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base' },
});

export const solanaOpsContext = planned({
  id: 'solana-ops-context',
  title: 'Solana operations context',
  description:
    'Returns what an agent needs before sending a Solana transaction: current slot, recent blockhash, priority-fee levels and, when an account is given, its SOL and USDC balances. Payable by MPP, Solana x402 or Base x402.',
  price: '0.005',
  mpp: true,
  annotations: READ_EXTERNAL,
  input: z.object({
    account: solanaAddress().optional().describe('Solana account (base58) whose balances to include'),
  }),
  inputExample: { account: 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr' },
});

export const solanaPriorityFee = planned({
  id: 'solana-priority-fee',
  title: 'Solana priority fee',
  description:
    'Returns recent Solana priority-fee levels (micro-lamports per compute unit, low to very high) for up to five writable accounts; readings are cached for 8 seconds.',
  http: false,
  price: '0.002',
  annotations: READ_EXTERNAL,
  input: z.object({
    writable_accounts: z
      .array(solanaAddress())
      .max(5)
      .optional()
      .describe('Up to five writable accounts (base58) the transaction will lock; default network-wide fees'),
  }),
  inputExample: { writable_accounts: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] },
});
