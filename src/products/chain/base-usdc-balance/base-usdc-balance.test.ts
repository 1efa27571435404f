import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeFunctionData, parseAbi } from 'viem';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { baseUsdcBalance } from './index.ts';

const who = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045';

describe('base-usdc-balance', () => {
  it('reads balanceOf on the chain’s USDC at the latest block, exact', async () => {
    const base = stubEvmChain({ eth_blockNumber: '0x2a', eth_call: `0x${(1_250_500_001n).toString(16).padStart(64, '0')}` }, { chainId: 31337, usdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });
    const out = await baseUsdcBalance.run({ address: who }, fakeContext({ chains: fakeChains({ evm: [base] }) }));
    expect(out).toEqual({
      chain: 'base',
      network: 'eip155:31337',
      address: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
      token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      balance: '1250.500001',
      balance_atomic: '1250500001',
      decimals: 6,
      block_number: 42,
    });
    const call = base.calls.find((c) => c.method === 'eth_call')!;
    const [request, block] = call.params as [{ to: string; data: `0x${string}` }, string];
    expect(request.to).toBe('0x5FbDB2315678afecb367f032d93F642f64180aa3');
    expect(block).toBe('0x2a');
    expect(decodeFunctionData({ abi: parseAbi(['function balanceOf(address) view returns (uint256)']), data: request.data }).args).toEqual(['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045']);
    expect(z.fromJSONSchema(baseUsdcBalance.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('a zero balance is "0"', async () => {
    const base = stubEvmChain({ eth_blockNumber: '0x1', eth_call: `0x${'0'.repeat(64)}` });
    expect(await baseUsdcBalance.run({ address: who }, fakeContext({ chains: fakeChains({ evm: [base] }) }))).toMatchObject({ balance: '0', balance_atomic: '0' });
  });

  it('refuses a malformed address in its schema (before payment)', () => {
    for (const address of ['0x123', 'd8da6bf26964af9d7eed9e03e53415d37aa96045', `0x${'g'.repeat(40)}`]) expect(baseUsdcBalance.input.safeParse({ address }).success).toBe(false);
  });
});
