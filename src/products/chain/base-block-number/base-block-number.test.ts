import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProductInputError, UpstreamError } from '../../kit/index.ts';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { RpcBudgetError } from '../../../providers/chains.ts';
import { baseBlockNumber } from './index.ts';

const block = { number: '0x1df5c10', hash: `0x${'ab'.repeat(32)}`, timestamp: '0x683c40c1', baseFeePerGas: '0x4c4b40' };

describe('base-block-number', () => {
  it('answers the latest block with the network actually behind "base"', async () => {
    const base = stubEvmChain({ eth_getBlockByNumber: (params: unknown[]) => (params[0] === 'latest' ? block : null) }, { chainId: 31337 });
    const out = await baseBlockNumber.run({}, fakeContext({ chains: fakeChains({ evm: [base] }) }));
    expect(out).toEqual({
      chain: 'base',
      network: 'eip155:31337',
      block_number: 31_415_312,
      block_hash: block.hash,
      timestamp: '2025-06-01T12:00:01.000Z',
      timestamp_unix: 1_748_779_201,
    });
    expect(base.calls.map((c) => c.method)).toEqual(['eth_getBlockByNumber']);
    const schema = z.fromJSONSchema(baseBlockNumber.outputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(schema.safeParse(out).success).toBe(true);
  });

  it('is sold only with a Base RPC, and says chain_not_configured without one', async () => {
    expect(baseBlockNumber.requires).toEqual(['evm:base']);
    const refused = await baseBlockNumber.run({}, fakeContext()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProductInputError);
    expect(refused).toMatchObject({ status: 422, code: 'chain_not_configured', field: 'chain' });
  });

  it('turns an RPC failure into 502 without the endpoint’s URL or text', async () => {
    const base = stubEvmChain({
      eth_getBlockByNumber: () => {
        throw new Error('request to https://base.example/v2/SECRETKEY failed');
      },
    });
    const failed = await baseBlockNumber.run({}, fakeContext({ chains: fakeChains({ evm: [base] }) })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UpstreamError);
    expect((failed as UpstreamError).status).toBe(502);
    expect((failed as Error).message).not.toMatch(/SECRETKEY|https?:/);
  });

  it('answers 503 when the request budget of every endpoint is spent, 504 on a timeout', async () => {
    const spent = stubEvmChain({ eth_getBlockByNumber: () => { throw new RpcBudgetError(); } });
    expect(await baseBlockNumber.run({}, fakeContext({ chains: fakeChains({ evm: [spent] }) })).catch((e: unknown) => e)).toMatchObject({ status: 503 });
    const slow = stubEvmChain({ eth_getBlockByNumber: () => { throw Object.assign(new Error('timed out'), { name: 'TimeoutError' }); } });
    expect(await baseBlockNumber.run({}, fakeContext({ chains: fakeChains({ evm: [slow] }) })).catch((e: unknown) => e)).toMatchObject({ status: 504 });
  });
});
