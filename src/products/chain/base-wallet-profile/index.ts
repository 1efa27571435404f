/**
 * base_wallet_profile: a Base address at a glance. Its state now from JSON-RPC (one read each: ETH
 * balance, USDC balance, nonce, code), its history from the block index (transactions, token and NFT
 * transfers, first and last activity, active days), both stated with the blocks they were read at.
 */
import { z } from 'zod';
import { encodeFunctionData, formatEther, getAddress, numberToHex, type Hex } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChainOf, product } from '../../kit/index.ts';
import { USDC_DECIMALS, addressOut, chainIdentity, latestBlockNumber, quantity, rpc, tokenAmount, weiString } from '../evm.ts';
import { indexedChain, indexedRange, indexedRangeSchema, requireIndexed } from '../index-read.ts';
import { activityCounts, seenSchema } from '../wallet-activity.ts';

const BALANCE_OF = [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'account', type: 'address' }], outputs: [{ type: 'uint256' }] }] as const;

export const baseWalletProfile = product({
  id: 'base-wallet-profile',
  title: 'Base wallet profile',
  description:
    'Returns a profile of a Base address: ETH and USDC balances, transaction count, whether it is a contract (read from the chain now), and from the block index its transactions sent and received, token and NFT transfers, first and last activity and active days.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  requires: ['index', 'evm:base'],
  input: z.object({
    address: evmAddress().describe('Base address, 0x + 40 hex characters'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
  output: z.object({
    ...chainIdentity,
    address: addressOut().describe('The address, EIP-55 checksummed'),
    is_contract: z.boolean().describe('Whether code is deployed at the address (at balances_block)'),
    eth_balance_wei: weiString().describe('ETH balance in wei, an exact decimal string (at balances_block)'),
    eth_balance: z.string().describe('ETH balance in ETH, an exact decimal string'),
    usdc_balance_atomic: weiString().describe('USDC balance in atomic units (6 decimals), an exact decimal string (at balances_block)'),
    usdc_balance: z.string().describe('USDC balance in USDC, an exact decimal string'),
    nonce: z.int().min(0).describe('Transactions the address has sent, as the chain counts them (its nonce at balances_block)'),
    balances_block: z.int().min(0).describe('The latest block when the balances, nonce and code were read over JSON-RPC'),
    activity: z
      .object({
        transactions_sent: z.int().min(0).describe('Indexed transactions sent by the address'),
        transactions_received: z.int().min(0).describe('Indexed transactions sent to the address'),
        transactions_failed: z.int().min(0).describe('Of those sent, how many reverted'),
        token_transfers_in: z.int().min(0).describe('ERC-20 transfers to the address'),
        token_transfers_out: z.int().min(0).describe('ERC-20 transfers from the address'),
        nft_transfers_in: z.int().min(0).describe('ERC-721 and ERC-1155 transfers to the address (one per token id)'),
        nft_transfers_out: z.int().min(0).describe('ERC-721 and ERC-1155 transfers from the address'),
        first_seen: seenSchema().describe('First indexed activity (a transaction, token or NFT transfer); null when none'),
        last_seen: seenSchema().describe('Last indexed activity; null when none'),
        active_days: z.int().min(0).describe('UTC days with at least one indexed activity'),
      })
      .describe('The address’s history in the block index (a transfer to itself counts once in and once out)'),
    indexed: indexedRangeSchema(),
  }),
  // Captured from the dev chain (anvil as `base`, eip155:31337) in test/chain-index-products.test.ts.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "address": "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
    "is_contract": false,
    "eth_balance_wei": "99999740110556518398",
    "eth_balance": "99.999740110556518398",
    "usdc_balance_atomic": "93749989",
    "usdc_balance": "93.749989",
    "nonce": 5,
    "balances_block": 33,
    "activity": {
      "transactions_sent": 5,
      "transactions_received": 0,
      "transactions_failed": 0,
      "token_transfers_in": 4,
      "token_transfers_out": 3,
      "nft_transfers_in": 2,
      "nft_transfers_out": 0,
      "first_seen": {
        "block_number": 5,
        "time": "2026-11-23T22:57:52.000Z"
      },
      "last_seen": {
        "block_number": 28,
        "time": "2026-11-23T22:57:53.000Z"
      },
      "active_days": 1
    },
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-23T22:57:39.000Z",
      "to_block": 33,
      "to_time": "2026-11-23T22:57:59.000Z",
      "from_genesis": true
    }
  },
  run: async (input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const on = indexedChain(ctx, 'base');
    const address = getAddress(input.address);
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const activity = await activityCounts(on, address, { toBlock: range.to_block }, ctx.signal);
    const block = await latestBlockNumber(base);
    const at = numberToHex(block);
    const [balance, code, nonce, usdc] = await Promise.all([
      rpc<Hex>(base, 'eth_getBalance', [address, at]),
      rpc<Hex>(base, 'eth_getCode', [address, at]),
      rpc<Hex>(base, 'eth_getTransactionCount', [address, at]),
      rpc<Hex>(base, 'eth_call', [{ to: base.usdc, data: encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [address] }) }, at]),
    ]);
    const wei = quantity(balance);
    const usdcAtomic = usdc === '0x' ? 0n : quantity(usdc);
    return {
      chain: on.chain,
      network: base.network,
      address,
      is_contract: code !== '0x' && code !== '0x0',
      eth_balance_wei: wei.toString(),
      eth_balance: formatEther(wei),
      usdc_balance_atomic: usdcAtomic.toString(),
      usdc_balance: tokenAmount(usdcAtomic, USDC_DECIMALS),
      nonce: Number(quantity(nonce)),
      balances_block: block,
      activity,
      indexed: range,
    };
  },
});
