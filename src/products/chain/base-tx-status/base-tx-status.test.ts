import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { baseTxStatus } from './index.ts';

const hash = `0x${'5c'.repeat(32)}`;
const from = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const to = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const tx = { hash, blockNumber: '0x64', from, to, value: '0xde0b6b3a7640000' };
const run = (answers: Record<string, unknown>) => baseTxStatus.run(baseTxStatus.input.parse({ tx_hash: hash.toUpperCase().replace('0X', '0x') }), fakeContext({ chains: fakeChains({ evm: [stubEvmChain(answers)] }) }));

describe('base-tx-status', () => {
  it('a mined success: block, confirmations to the head, sender, recipient, value and gas, checksummed', async () => {
    const out = await run({ eth_getTransactionByHash: tx, eth_blockNumber: '0x6e', eth_getTransactionReceipt: { status: '0x1', gasUsed: '0xf2d3', blockNumber: '0x64', contractAddress: null } });
    expect(out).toEqual({
      chain: 'base',
      network: 'eip155:8453',
      hash,
      status: 'success',
      block_number: 100,
      confirmations: 11,
      latest_block: 110,
      from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      contract_address: null,
      value_wei: '1000000000000000000',
      gas_used: '62163',
    });
    expect(z.fromJSONSchema(baseTxStatus.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('reverted, pending and not_found', async () => {
    expect(await run({ eth_getTransactionByHash: tx, eth_blockNumber: '0x64', eth_getTransactionReceipt: { status: '0x0', gasUsed: '0x5208', blockNumber: '0x64' } })).toMatchObject({ status: 'reverted', confirmations: 1, gas_used: '21000' });
    expect(await run({ eth_getTransactionByHash: { ...tx, blockNumber: null }, eth_blockNumber: '0x64' })).toMatchObject({ status: 'pending', block_number: null, confirmations: 0, gas_used: null, value_wei: '1000000000000000000' });
    const missing = await run({ eth_getTransactionByHash: null, eth_blockNumber: '0x64' });
    expect(missing).toMatchObject({ status: 'not_found', block_number: null, from: null, to: null, value_wei: null, latest_block: 100 });
    expect(z.fromJSONSchema(baseTxStatus.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(missing).success).toBe(true);
  });

  it('a contract creation has no recipient and names the contract', async () => {
    const out = await run({ eth_getTransactionByHash: { ...tx, to: null }, eth_blockNumber: '0x64', eth_getTransactionReceipt: { status: '0x1', gasUsed: '0x1', blockNumber: '0x64', contractAddress: to } });
    expect(out).toMatchObject({ to: null, contract_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' });
  });

  it('refuses a malformed hash before anything runs', () => {
    expect(baseTxStatus.input.safeParse({ tx_hash: '0x1234' }).success).toBe(false);
    expect(baseTxStatus.input.safeParse({ tx_hash: `0x${'zz'.repeat(32)}` }).success).toBe(false);
  });
});
