import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { baseGasPrice } from './index.ts';

describe('base-gas-price', () => {
  it('reports eth_gasPrice in wei and gwei, the latest base fee and the suggested tip, exactly', async () => {
    const base = stubEvmChain({
      eth_gasPrice: '0x5b8d80', // 6,000,000 wei
      eth_getBlockByNumber: { number: '0x10', hash: `0x${'01'.repeat(32)}`, timestamp: '0x1', baseFeePerGas: '0x4c4b40' },
      eth_maxPriorityFeePerGas: '0xf4240',
    });
    const out = await baseGasPrice.run({}, fakeContext({ chains: fakeChains({ evm: [base] }) }));
    expect(out).toEqual({
      chain: 'base',
      network: 'eip155:8453',
      block_number: 16,
      gas_price_wei: '6000000',
      gas_price_gwei: '0.006',
      base_fee_wei: '5000000',
      priority_fee_wei: '1000000',
    });
    expect(z.fromJSONSchema(baseGasPrice.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('keeps wei beyond 2^53 exact', async () => {
    const base = stubEvmChain({
      eth_gasPrice: '0x1bc16d674ec80000', // 2e18
      eth_getBlockByNumber: { number: '0x1', hash: `0x${'01'.repeat(32)}`, timestamp: '0x1' },
      eth_maxPriorityFeePerGas: '0x0',
    });
    const out = await baseGasPrice.run({}, fakeContext({ chains: fakeChains({ evm: [base] }) }));
    expect(out).toMatchObject({ gas_price_wei: '2000000000000000000', gas_price_gwei: '2000000000', base_fee_wei: '0', priority_fee_wei: '0' });
  });

  it('fails as 502 when one of the reads fails (nothing charged)', async () => {
    const base = stubEvmChain({ eth_gasPrice: '0x1', eth_getBlockByNumber: { number: '0x1', hash: `0x${'01'.repeat(32)}`, timestamp: '0x1' } });
    await expect(baseGasPrice.run({}, fakeContext({ chains: fakeChains({ evm: [base] }) }))).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
  });
});
