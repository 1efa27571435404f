import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { encodeFunctionResult, numberToHex, pad, parseAbi } from 'viem';
import { ProductInputError } from '../../kit/index.ts';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { LOG_CHUNK_BLOCKS, MAX_LOG_BLOCKS, TRANSFER_TOPIC } from '../evm.ts';
import { DEFAULT_WINDOW, baseTransferSearchRpc } from './index.ts';

const ME = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const NO_DECIMALS = '0x0000000000000000000000000000000000000bad';
const topic = (a: string) => pad(a.toLowerCase() as `0x${string}`, { size: 32 });
const log = (token: string, from: string, to: string, value: bigint, block: number, index: number) => ({
  address: token.toLowerCase(),
  topics: [TRANSFER_TOPIC, topic(from), topic(to)],
  data: numberToHex(value, { size: 32 }),
  blockNumber: numberToHex(block),
  transactionHash: `0x${block.toString(16).padStart(62, '0')}${index.toString(16).padStart(2, '0')}`,
  logIndex: numberToHex(index),
});
const LOGS = [
  log(TOKEN, OTHER, ME, 2_500_000n, 9_990, 1),
  log(TOKEN, ME, OTHER, 1_000_000n, 9_995, 0),
  log(TOKEN, ME, ME, 7n, 9_996, 4),
  log(NO_DECIMALS, OTHER, ME, 5n, 9_997, 2),
];

/** eth_getLogs over LOGS, filtered as a node does (topics, address, range). */
function chain(head = 10_000) {
  return stubEvmChain({
    eth_blockNumber: numberToHex(head),
    eth_getLogs: (params: unknown[]) => {
      const f = params[0] as { fromBlock: string; toBlock: string; topics: (string | null)[]; address?: string };
      return LOGS.filter(
        (l) =>
          Number(BigInt(l.blockNumber)) >= Number(BigInt(f.fromBlock)) &&
          Number(BigInt(l.blockNumber)) <= Number(BigInt(f.toBlock)) &&
          f.topics.every((t, i) => t === null || t === l.topics[i]) &&
          (!f.address || f.address === l.address),
      );
    },
    eth_call: (params: unknown[]) => {
      const to = (params[0] as { to: string }).to.toLowerCase();
      if (to === NO_DECIMALS) throw Object.assign(new Error('execution reverted'), { code: 3 });
      return encodeFunctionResult({ abi: parseAbi(['function decimals() view returns (uint8)']), functionName: 'decimals', result: 6 });
    },
  });
}
const run = (input: Record<string, unknown>, base = chain()) => baseTransferSearchRpc.run(baseTransferSearchRpc.input.parse(input), fakeContext({ chains: fakeChains({ evm: [base] }) }));

describe('base-transfer-search-rpc', () => {
  it('both ways, newest first, a self-transfer once, amounts with decimals where the token answers them', async () => {
    const out = await run({ address: ME.toLowerCase() });
    expect(out).toMatchObject({ chain: 'base', address: ME, direction: 'both', token_address: null, from_block: 10_000 - DEFAULT_WINDOW + 1, to_block: 10_000, count: 4, truncated: false });
    expect(out.transfers.map((t) => [t.block_number, t.direction, t.amount, t.token_decimals])).toEqual([
      [9_997, 'in', null, null],
      [9_996, 'self', '0.000007', 6],
      [9_995, 'out', '1', 6],
      [9_990, 'in', '2.5', 6],
    ]);
    expect(z.fromJSONSchema(baseTransferSearchRpc.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('one direction, one token, a limit (truncated says more matched)', async () => {
    const out = await run({ address: ME, direction: 'in', token_address: TOKEN, limit: 1 });
    expect(out.transfers).toEqual([expect.objectContaining({ block_number: 9_996, direction: 'self', token: TOKEN })]);
    expect(out).toMatchObject({ count: 1, truncated: true, token_address: TOKEN });
  });

  it('scans in chunks of LOG_CHUNK_BLOCKS blocks', async () => {
    const base = chain();
    await run({ address: ME, direction: 'out', from_block: 1, to_block: 1 + 2 * LOG_CHUNK_BLOCKS }, base);
    const ranges = base.calls.filter((c) => c.method === 'eth_getLogs').map((c) => (c.params[0] as { fromBlock: string; toBlock: string })).map((r) => [Number(r.fromBlock), Number(r.toBlock)]).sort((a, b) => a[0]! - b[0]!);
    expect(ranges).toEqual([[1, LOG_CHUNK_BLOCKS], [LOG_CHUNK_BLOCKS + 1, 2 * LOG_CHUNK_BLOCKS], [2 * LOG_CHUNK_BLOCKS + 1, 2 * LOG_CHUNK_BLOCKS + 1]]);
  });

  it('a future block, a reversed window or one over the cap is 422 naming the field', async () => {
    const refused = async (input: Record<string, unknown>) => run({ address: ME, ...input }).catch((e: unknown) => e);
    expect(await refused({ to_block: 10_001 })).toMatchObject({ status: 422, field: 'to_block' });
    expect(await refused({ from_block: 10_001 })).toMatchObject({ status: 422, field: 'from_block' });
    expect(await refused({ from_block: 500, to_block: 400 })).toMatchObject({ status: 422, field: 'from_block' });
    const wide = await refused({ from_block: 0, to_block: MAX_LOG_BLOCKS });
    expect(wide).toBeInstanceOf(ProductInputError);
    expect(wide).toMatchObject({ status: 422, field: 'from_block' });
  });

  it('refuses malformed input in its schema', () => {
    const ok = (v: Record<string, unknown>) => baseTransferSearchRpc.input.safeParse(v).success;
    expect(ok({ address: '0x12' })).toBe(false);
    expect(ok({ address: ME, direction: 'sideways' })).toBe(false);
    expect(ok({ address: ME, limit: 101 })).toBe(false);
    expect(ok({ address: ME, from_block: -1 })).toBe(false);
  });
});
