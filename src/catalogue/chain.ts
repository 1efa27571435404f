import { z } from 'zod';
import { FIXED, X402_AND_MPP, X402_BOTH, unavailable, type Product } from './types.ts';

// ---- Field fragments shared by the domain files ----

/** An EVM address: `0x` + 40 hex characters. */
export const evmAddress = () => z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** An EVM transaction hash: `0x` + 64 hex characters. */
export const evmTxHash = () => z.string().regex(/^0x[0-9a-fA-F]{64}$/);
/** A Solana account address (base58, 32 to 44 characters). */
export const solanaAddress = () => z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
/** EVM chains of the wallet routes. */
export const EVM_CHAINS = ['ethereum', 'base', 'arbitrum', 'optimism', 'polygon'] as const;
export const evmChain = () => z.enum(EVM_CHAINS);

const READ_EXTERNAL = { readOnlyHint: true, openWorldHint: true } as const;

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

export const chainProducts: Product[] = [
  unavailable({
    id: 'analytics-query',
    title: 'On-chain SQL analytics query',
    description:
      'Runs an on-chain analytics SQL query (SQL text, or the numeric id of a saved query) and returns the rows in `result` together with the engine `execution_id`.',
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/analytics-query', price: '0.05' },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      query: z.string().min(1).describe('SQL text, or a numeric saved-query id as a string'),
      chain: z.string().optional().describe('Chain to scope the query to, e.g. "base" or "ethereum"'),
    }),
    inputExample: {
      query: "SELECT block_number, COUNT(*) AS txs FROM base.transactions WHERE block_time > now() - interval '1' hour GROUP BY 1 ORDER BY 1 DESC LIMIT 5",
      chain: 'base',
    },
    outputSchema: z.toJSONSchema(
      z.looseObject({
        result: z.looseObject({}).describe('Query result: rows and column metadata'),
        execution_id: z.string().describe('Id of the query execution on the analytics engine'),
      }),
    ),
    outputExample: {
      result: {
        rows: [{ block_number: 24_310_512, txs: 187 }],
        metadata: { column_names: ['block_number', 'txs'], row_count: 1 },
      },
      execution_id: '01JH7Q4W2V9M3K8T5R6Y0ZP1XA',
    },
  }),
  unavailable({
    id: 'token-metrics',
    title: 'Token holder metrics',
    description:
      'Returns holder metrics for one token contract: balances, holder distribution, concentration and whale ownership.',
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/token-metrics', price: '0.03' },
    mcp: { tool: 'token_metrics', price: '0.003', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      token_address: z.string().min(1).describe('Token contract address'),
      chain: z.string().optional().describe('Chain of the token, e.g. "base" or "ethereum"'),
    }),
    inputExample: { token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base' },
  }),
  unavailable({
    id: 'wallet-analyze',
    title: 'Wallet analysis (90 days)',
    description:
      "Returns an EVM wallet's activity over the last 90 days: transfers, counterparties, token flows and active days.",
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/wallet-analyze', price: '0.08' },
    mcp: { tool: 'wallet_analyze', price: '0.005', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      wallet_address: evmAddress().describe('Wallet address, 0x + 40 hex characters'),
      chain: evmChain().optional().describe('Chain to analyse'),
    }),
    inputExample: { wallet_address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', chain: 'base' },
  }),
  unavailable({
    id: 'wallet-spy',
    title: 'Wallet activity report',
    description:
      "Returns a wallet's recent transactions, token flows, swaps, NFT activity and counterparties, with a heuristic risk score.",
    category: 'chain',
    http: { method: 'GET', path: '/api/v1/paid/wallet-spy', price: '0.03' },
    mcp: { tool: 'wallet_spy', price: '0.03', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      address: evmAddress().describe('Wallet address, 0x + 40 hex characters'),
      chain: evmChain().default('base').describe('Chain to inspect'),
    }),
    inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', chain: 'base' },
  }),
  unavailable({
    id: 'base-block-number',
    title: 'Base block number',
    description: 'Returns the latest block number on Base with its timestamp.',
    category: 'chain',
    http: { method: 'GET', path: '/api/v1/paid/base-block-number', price: '0.002' },
    mcp: { tool: 'base_block_number', price: '0.002', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({}),
    inputExample: {},
  }),
  unavailable({
    id: 'base-gas-price',
    title: 'Base gas price',
    description: 'Returns the current gas price on Base, in wei and in gwei.',
    category: 'chain',
    http: { method: 'GET', path: '/api/v1/paid/base-gas-price', price: '0.002' },
    mcp: { tool: 'base_gas_price', price: '0.002', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({}),
    inputExample: {},
  }),
  unavailable({
    id: 'base-tx-status',
    title: 'Base transaction status',
    description:
      'Returns the status of one Base transaction: pending, succeeded or reverted, with block number, confirmations and gas used.',
    category: 'chain',
    http: { method: 'GET', path: '/api/v1/paid/base-tx-status', price: '0.003' },
    mcp: { tool: 'base_tx_status', price: '0.003', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      tx_hash: evmTxHash().describe('Transaction hash, 0x + 64 hex characters'),
    }),
    inputExample: { tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' },
  }),
  unavailable({
    id: 'base-transfer-search',
    title: 'Base token transfer search',
    description:
      'Searches indexed ERC-20 transfers on Base to or from an address, optionally for one token and block range; returns the matching transfers (hash, block, from, to, token, amount).',
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/base-transfer-search', price: '0.005' },
    mcp: { tool: 'base_transfer_search', price: '0.005', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: transferSearchInput,
    inputExample: transferSearchExample,
  }),
  unavailable({
    id: 'base-transfer-search-rpc',
    title: 'Base token transfer search (direct RPC)',
    description:
      'Same search as base_transfer_search, answered by scanning Transfer logs directly over Base JSON-RPC instead of an index (fresher, slower); returns the matching transfers.',
    category: 'chain',
    mcp: { tool: 'base_transfer_search_rpc', price: '0.02', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: transferSearchInput,
    inputExample: transferSearchExample,
  }),
  unavailable({
    id: 'base-usdc-balance',
    title: 'Base USDC balance',
    description: "Returns an address's USDC balance on Base, in atomic units and in USD.",
    category: 'chain',
    http: { method: 'GET', path: '/api/v1/paid/base-usdc-balance', price: '0.003' },
    mcp: { tool: 'base_usdc_balance', price: '0.003', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      address: evmAddress().describe('Address to read, 0x + 40 hex characters'),
    }),
    inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
  }),
  unavailable({
    id: 'base-usdc-transfer-check',
    title: 'Base USDC transfer check',
    description:
      'Checks whether a Base transaction carries a USDC transfer, optionally to an expected recipient and of at least an expected amount; returns the transfers found and whether they match.',
    category: 'chain',
    http: { method: 'GET', path: '/api/v1/paid/base-usdc-transfer-check', price: '0.004' },
    mcp: { tool: 'base_usdc_transfer_check', price: '0.004', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      tx_hash: evmTxHash().describe('Transaction hash, 0x + 64 hex characters'),
      to: evmAddress().optional().describe('Expected recipient address'),
      min_amount: z
        .string()
        .regex(/^\d+(\.\d{1,6})?$/)
        .optional()
        .describe('Expected minimum amount in USDC as a decimal string, e.g. "0.01"'),
    }),
    inputExample: {
      tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
      to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      min_amount: '0.01',
    },
  }),
  unavailable({
    id: 'base-wallet-profile',
    title: 'Base wallet profile',
    description:
      'Returns a profile of a Base address: ETH and USDC balances, transaction count, first and last activity, and whether it is a contract.',
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/base-wallet-profile', price: '0.01' },
    mcp: { tool: 'base_wallet_profile', price: '0.01', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      address: evmAddress().describe('Base address, 0x + 40 hex characters'),
    }),
    inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
  }),
  unavailable({
    id: 'token-flow-activity',
    title: 'Token flow activity',
    description:
      "Returns a token's recent transfer flows: volume, largest transfers, net flows of the top senders and receivers, and exchange inflow/outflow, over a chosen window.",
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/token-flow-activity', price: '0.02' },
    mcp: { tool: 'token_flow_activity', price: '0.02', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      token_address: evmAddress().describe('Token contract address, 0x + 40 hex characters'),
      chain: evmChain().default('base').describe('Chain of the token'),
      window_hours: z.int().min(1).max(168).default(24).describe('Look-back window in hours'),
    }),
    inputExample: { token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base', window_hours: 24 },
  }),
  unavailable({
    id: 'proxy-implementation',
    title: 'Proxy implementation lookup',
    description:
      'Resolves the implementation (and admin, when set) behind an upgradeable proxy contract from its EIP-1967 storage slots. Also callable with GET and the same fields as query parameters.',
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/proxy-implementation', price: '0.003' },
    mcp: { tool: 'proxy_implementation', price: '0.003', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      address: evmAddress().describe('Proxy contract address, 0x + 40 hex characters'),
      chain: evmChain().default('base').describe('Chain of the contract'),
    }),
    inputExample: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', chain: 'base' },
  }),
  unavailable({
    id: 'solana-ops-context',
    title: 'Solana operations context',
    description:
      'Returns what an agent needs before sending a Solana transaction: current slot, recent blockhash, priority-fee levels and, when an account is given, its SOL and USDC balances. Payable by MPP, Solana x402 or Base x402.',
    category: 'chain',
    http: { method: 'POST', path: '/api/v1/paid/solana-ops-context', price: '0.005' },
    mcp: { tool: 'solana_ops_context', price: '0.005', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_AND_MPP,
    input: z.object({
      account: solanaAddress().optional().describe('Solana account (base58) whose balances to include'),
    }),
    inputExample: { account: 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr' },
  }),
  unavailable({
    id: 'solana-priority-fee',
    title: 'Solana priority fee',
    description:
      'Returns recent Solana priority-fee levels (micro-lamports per compute unit, low to very high) for up to five writable accounts; readings are cached for 8 seconds.',
    category: 'chain',
    mcp: { tool: 'solana_priority_fee', price: '0.002', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      writable_accounts: z
        .array(solanaAddress())
        .max(5)
        .optional()
        .describe('Up to five writable accounts (base58) the transaction will lock; default network-wide fees'),
    }),
    inputExample: { writable_accounts: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] },
  }),
];
