/**
 * base_gas_price: what a Base transaction costs now, read over JSON-RPC: `eth_gasPrice`, the latest
 * block's base fee and `eth_maxPriorityFeePerGas`. Wei as decimal strings (exact integers).
 */
import { z } from 'zod';
import { formatGwei, type Hex } from 'viem';
import { READ_EXTERNAL, evmChainOf, product } from '../../kit/index.ts';
import { blockByNumber, chainIdentity, identity, quantity, rpc, toBlockNumber, weiString } from '../evm.ts';

export const baseGasPrice = product({
  id: 'base-gas-price',
  title: 'Base gas price',
  description:
    'Returns the current gas price on Base in wei and in gwei, with the latest base fee and the suggested priority fee (wei as decimal strings).',
  method: 'GET',
  price: '0.002',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input: z.object({}),
  inputExample: {},
  output: z.object({
    ...chainIdentity,
    block_number: z.int().min(0).describe('Block whose base fee is reported (the latest)'),
    gas_price_wei: weiString().describe('eth_gasPrice: the legacy gas price, wei as a decimal string'),
    gas_price_gwei: z.string().describe('The same in gwei, an exact decimal string'),
    base_fee_wei: weiString().describe('Base fee per gas of that block, wei as a decimal string'),
    priority_fee_wei: weiString().describe('eth_maxPriorityFeePerGas: the suggested tip per gas, wei as a decimal string'),
  }),
  outputExample: {
    chain: 'base',
    network: 'eip155:31337',
    block_number: 10,
    gas_price_wei: '1268109258',
    gas_price_gwei: '1.268109258',
    base_fee_wei: '306169176',
    priority_fee_wei: '1000000000',
  },
  run: async (_input, ctx) => {
    const base = evmChainOf(ctx, 'base');
    const [gasPrice, block, priority] = await Promise.all([
      rpc<Hex>(base, 'eth_gasPrice'),
      blockByNumber(base, 'latest'),
      rpc<Hex>(base, 'eth_maxPriorityFeePerGas'),
    ]);
    const gasPriceWei = quantity(gasPrice);
    return {
      ...identity(base),
      block_number: toBlockNumber(block.number),
      gas_price_wei: gasPriceWei.toString(),
      gas_price_gwei: formatGwei(gasPriceWei),
      base_fee_wei: (block.baseFeePerGas ? quantity(block.baseFeePerGas) : 0n).toString(),
      priority_fee_wei: quantity(priority).toString(),
    };
  },
});
