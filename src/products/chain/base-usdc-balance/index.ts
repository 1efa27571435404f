/**
 * base_usdc_balance: an address's USDC on Base (`balanceOf` at the latest block, read over
 * JSON-RPC), exact: atomic units and the same as a decimal string.
 */
import { z } from 'zod';
import { encodeFunctionData, getAddress, numberToHex, type Hex } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChainOf, product } from '../../kit/index.ts';
import { USDC_DECIMALS, addressOut, chainIdentity, identity, latestBlockNumber, quantity, rpc, tokenAmount, weiString } from '../evm.ts';

const BALANCE_OF = [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'account', type: 'address' }], outputs: [{ type: 'uint256' }] }] as const;

export const baseUsdcBalance = product({
  id: 'base-usdc-balance',
  title: 'Base USDC balance',
  description: "Returns an address's USDC balance on Base at the latest block, in atomic units and in USDC (exact decimal strings).",
  method: 'GET',
  price: '0.003',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input: z.object({
    address: evmAddress().describe('Address to read, 0x + 40 hex characters'),
  }),
  inputExample: { address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' },
  output: z.object({
    ...chainIdentity,
    address: addressOut().describe('The address read, EIP-55 checksummed'),
    token: addressOut().describe('The USDC contract read'),
    balance: z.string().regex(/^\d+(\.\d{1,6})?$/).describe('Balance in USDC, an exact decimal string (1 USDC = 1 USD)'),
    balance_atomic: weiString().describe('Balance in atomic units (6 decimals), a decimal string'),
    decimals: z.literal(USDC_DECIMALS).describe('Decimals of USDC'),
    block_number: z.int().min(0).describe('Block at which the balance was read'),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    address: '0x1f655EA0e909073b9Bde2d281B6970098421167d',
    token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    balance: '10',
    balance_atomic: '10000000',
    decimals: 6,
    block_number: 12,
  },
  run: async (input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const address = getAddress(input.address);
    const block = await latestBlockNumber(base);
    const data = encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [address] });
    const result = await rpc<Hex>(base, 'eth_call', [{ to: base.usdc, data }, numberToHex(block)]);
    const atomic = result === '0x' ? 0n : quantity(result);
    return {
      ...identity(base),
      address,
      token: getAddress(base.usdc),
      balance: tokenAmount(atomic, USDC_DECIMALS),
      balance_atomic: atomic.toString(),
      decimals: USDC_DECIMALS,
      block_number: block,
    };
  },
});
