import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { numberToHex, pad } from 'viem';
import { ProductInputError } from '../../kit/index.ts';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import { TRANSFER_TOPIC } from '../evm.ts';
import { baseUsdcTransferCheck } from './index.ts';

const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const hash = `0x${'77'.repeat(32)}`;
const topic = (a: string) => pad(a.toLowerCase() as `0x${string}`, { size: 32 });
const log = (from: string, to: string, value: bigint, logIndex: number, block = 100, token = USDC, tx = hash) => ({
  address: token,
  topics: [TRANSFER_TOPIC, topic(from), topic(to)],
  data: numberToHex(value, { size: 32 }),
  blockNumber: numberToHex(block),
  transactionHash: tx,
  logIndex: numberToHex(logIndex),
  removed: false,
});
const run = (input: Record<string, unknown>, answers: Record<string, unknown>) => {
  const base = stubEvmChain(answers);
  return { base, out: baseUsdcTransferCheck.run(baseUsdcTransferCheck.input.parse(input), fakeContext({ chains: fakeChains({ evm: [base] }) })) };
};

describe('base-usdc-transfer-check', () => {
  it('in a transaction: every USDC transfer, each marked against the expectations; other tokens and NFTs ignored', async () => {
    const nft = { ...log(A, B, 0n, 2), topics: [TRANSFER_TOPIC, topic(A), topic(B), numberToHex(7n, { size: 32 })], data: '0x' };
    const receipt = { status: '0x1', logs: [log(A, B, 10_000n, 0), log(A, B, 5_000n, 1), nft, log(A, B, 99n, 3, 100, '0x0000000000000000000000000000000000000001')] };
    const { out } = run({ tx_hash: hash, to: B, min_amount: '0.01' }, { eth_getTransactionReceipt: receipt });
    const answer = await out;
    expect(answer).toMatchObject({ chain: 'base', mode: 'transaction', tx_hash: hash, tx_status: 'success', found: true, from_block: null, truncated: false });
    expect(answer.transfers).toEqual([
      { tx_hash: hash, log_index: 0, block_number: 100, from: A, to: B, amount: '0.01', amount_atomic: '10000', matches: true },
      { tx_hash: hash, log_index: 1, block_number: 100, from: A, to: B, amount: '0.005', amount_atomic: '5000', matches: false },
    ]);
    expect(z.fromJSONSchema(baseUsdcTransferCheck.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(answer).success).toBe(true);
  });

  it('found is false for a wrong recipient, a reverted, pending or unknown transaction', async () => {
    expect(await run({ tx_hash: hash, to: A }, { eth_getTransactionReceipt: { status: '0x1', logs: [log(A, B, 1n, 0)] } }).out).toMatchObject({ found: false });
    expect(await run({ tx_hash: hash }, { eth_getTransactionReceipt: { status: '0x0', logs: [] } }).out).toMatchObject({ tx_status: 'reverted', found: false, transfers: [] });
    expect(await run({ tx_hash: hash }, { eth_getTransactionReceipt: null, eth_getTransactionByHash: { hash } }).out).toMatchObject({ tx_status: 'pending', found: false });
    expect(await run({ tx_hash: hash }, { eth_getTransactionReceipt: null, eth_getTransactionByHash: null }).out).toMatchObject({ tx_status: 'not_found', found: false });
  });

  it('since a time: finds the first block at or after it, then the matching transfers from/to the addresses, newest first', async () => {
    // Blocks 0..200, one every 2 s from t=1000.
    const blocks = (params: unknown[]) => {
      const n = params[0] === 'latest' ? 200 : Number(BigInt(params[0] as string));
      return { number: numberToHex(n), hash: `0x${'01'.repeat(32)}`, timestamp: numberToHex(1000 + 2 * n) };
    };
    const getLogs = (params: unknown[]) => {
      const filter = params[0] as { fromBlock: string; toBlock: string; topics: unknown[]; address: string };
      expect(filter.address.toLowerCase()).toBe(USDC);
      expect(filter.topics).toEqual([TRANSFER_TOPIC, topic(A), null]);
      return [log(A, B, 3_000_000n, 0, 150, USDC, `0x${'01'.repeat(32)}`), log(A, B, 1n, 0, 160, USDC, `0x${'02'.repeat(32)}`)].filter(
        (l) => BigInt(l.blockNumber) >= BigInt(filter.fromBlock) && BigInt(l.blockNumber) <= BigInt(filter.toBlock),
      );
    };
    const { base, out } = run({ since: new Date(1_101_000).toISOString(), from: A, min_amount: '1' }, { eth_getBlockByNumber: blocks, eth_getLogs: getLogs });
    const answer = await out;
    expect(answer).toMatchObject({ mode: 'window', from_block: 51, to_block: 200, found: true, tx_hash: null, tx_status: null });
    expect(answer.transfers).toEqual([expect.objectContaining({ block_number: 150, amount: '3', matches: true })]);
    const windows = base.calls.filter((c) => c.method === 'eth_getLogs').map((c) => (c.params[0] as { fromBlock: string }).fromBlock);
    expect(windows).toEqual(['0x33']);
  });

  it('a time older than the window, or in the future, is 422 naming since', async () => {
    const blocks = (params: unknown[]) => {
      const n = params[0] === 'latest' ? 20_000 : Number(BigInt(params[0] as string));
      return { number: numberToHex(n), hash: `0x${'01'.repeat(32)}`, timestamp: numberToHex(1000 + 2 * n) };
    };
    const old = await run({ since: new Date(1_000_000).toISOString(), to: B }, { eth_getBlockByNumber: blocks }).out.catch((e: unknown) => e);
    expect(old).toBeInstanceOf(ProductInputError);
    expect(old).toMatchObject({ status: 422, field: 'since' });
    const future = await run({ since: '2099-01-01T00:00:00Z', to: B }, { eth_getBlockByNumber: blocks }).out.catch((e: unknown) => e);
    expect(future).toMatchObject({ status: 422, field: 'since' });
    // After the latest block but not in the future: nothing to search, found is false.
    expect(await run({ since: new Date(1_000_000_000).toISOString(), to: B }, { eth_getBlockByNumber: blocks }).out).toMatchObject({ mode: 'window', found: false, from_block: null, to_block: 20_000, transfers: [] });
  });

  it('its schema asks for tx_hash or since (with from or to), and well-formed fields', () => {
    const ok = (v: Record<string, unknown>) => baseUsdcTransferCheck.input.safeParse(v).success;
    expect(ok({ tx_hash: hash })).toBe(true);
    expect(ok({ since: '2025-06-01T00:00:00Z', to: B })).toBe(true);
    expect(ok({})).toBe(false);
    expect(ok({ tx_hash: hash, since: '2025-06-01T00:00:00Z' })).toBe(false);
    expect(ok({ since: '2025-06-01T00:00:00Z' })).toBe(false);
    expect(ok({ tx_hash: '0xabc' })).toBe(false);
    expect(ok({ tx_hash: hash, min_amount: '0.0000001' })).toBe(false);
    expect(ok({ tx_hash: hash, to: '0x12' })).toBe(false);
  });
});
