/**
 * base_tx_status: one Base transaction's status from JSON-RPC: `not_found` (the node does not know
 * it), `pending` (known, not in a block yet), `success` or `reverted` (from its receipt), with
 * confirmations counted from the latest block. An unknown hash is an answer, charged.
 */
import { z } from 'zod';
import { getAddress, type Hex } from 'viem';
import { READ_EXTERNAL, evmChainOf, evmTxHash, product } from '../../kit/index.ts';
import { addressOut, chainIdentity, identity, latestBlockNumber, quantity, rpc, toBlockNumber, weiString } from '../evm.ts';

interface RawTransaction {
  hash: Hex;
  blockNumber: Hex | null;
  from: Hex;
  to: Hex | null;
  value: Hex;
}
interface RawReceipt {
  status: Hex;
  gasUsed: Hex;
  blockNumber: Hex;
  contractAddress?: Hex | null;
}

export const baseTxStatus = product({
  id: 'base-tx-status',
  title: 'Base transaction status',
  description:
    'Returns the status of one Base transaction: pending, success, reverted or not_found, with block number, confirmations, sender, recipient, value and gas used.',
  method: 'GET',
  price: '0.003',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input: z.object({
    tx_hash: evmTxHash().describe('Transaction hash, 0x + 64 hex characters'),
  }),
  inputExample: { tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' },
  output: z.object({
    ...chainIdentity,
    hash: evmTxHash().describe('The transaction hash asked about'),
    status: z
      .enum(['pending', 'success', 'reverted', 'not_found'])
      .describe('not_found: unknown to the node; pending: not in a block yet; success or reverted: mined, from its receipt'),
    block_number: z.int().min(0).nullable().describe('Block that includes it; null when pending or not found'),
    confirmations: z.int().min(0).describe('Blocks from its block to the latest, its own included; 0 when pending or not found'),
    latest_block: z.int().min(0).describe('The latest block when the status was read'),
    from: addressOut().nullable().describe('Sender; null when not found'),
    to: addressOut().nullable().describe('Recipient; null for a contract creation or when not found'),
    contract_address: addressOut().nullable().describe('Contract created by it, when it is a successful creation; else null'),
    value_wei: weiString().nullable().describe('Native value sent, wei as a decimal string; null when not found'),
    gas_used: weiString().nullable().describe('Gas used, a decimal string; null until mined'),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    hash: '0x5083762d989c3e385443aa7e6a787081c1d6c196165416da5649d8b96ce077ed',
    status: 'success',
    block_number: 6,
    confirmations: 6,
    latest_block: 11,
    from: '0x1f655EA0e909073b9Bde2d281B6970098421167d',
    to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    value_wei: '0',
    contract_address: null,
    gas_used: '51588',
  },
  run: async (input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const hash = input.tx_hash.toLowerCase() as Hex;
    const [tx, latest] = await Promise.all([rpc<RawTransaction | null>(base, 'eth_getTransactionByHash', [hash]), latestBlockNumber(base)]);
    const none = { block_number: null, confirmations: 0, contract_address: null, gas_used: null };
    if (!tx) return { ...identity(base), hash, status: 'not_found' as const, latest_block: latest, ...none, from: null, to: null, value_wei: null };
    const seen = { from: getAddress(tx.from), to: tx.to ? getAddress(tx.to) : null, value_wei: quantity(tx.value).toString() };
    if (tx.blockNumber === null) return { ...identity(base), hash, status: 'pending' as const, latest_block: latest, ...none, ...seen };
    const receipt = await rpc<RawReceipt | null>(base, 'eth_getTransactionReceipt', [hash]);
    // Mined but its receipt not served yet (a node catching up): still reported as pending.
    if (!receipt) return { ...identity(base), hash, status: 'pending' as const, latest_block: latest, ...none, ...seen };
    const block = toBlockNumber(receipt.blockNumber);
    const head = Math.max(latest, block);
    return {
      ...identity(base),
      hash,
      status: quantity(receipt.status) === 1n ? ('success' as const) : ('reverted' as const),
      block_number: block,
      confirmations: head - block + 1,
      latest_block: head,
      ...seen,
      contract_address: receipt.contractAddress ? getAddress(receipt.contractAddress) : null,
      gas_used: quantity(receipt.gasUsed).toString(),
    };
  },
});
