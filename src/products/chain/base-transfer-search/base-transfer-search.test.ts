import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import { ProductInputError, UpstreamError } from '../../kit/index.ts';
import { blockTime, blocks, memoryIndex, row } from '../index-fixture.ts';
import { baseTransferSearch } from './index.ts';

const ME = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const OTHER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const SPAM = '0x000000000000000000000000000000000000dead';
const HEAD = 20;
const transfer = (block: number, logIndex: number, from: string, to: string, value: bigint, token = TOKEN) =>
  row('erc20_transfers', {
    block_number: block,
    block_time: blockTime(block, HEAD, FAKE_NOW),
    tx_hash: `0x${block.toString(16).padStart(62, '0')}${logIndex.toString(16).padStart(2, '0')}`,
    log_index: logIndex,
    contract_address: token,
    from,
    to,
    ...(value < 2n ** 127n ? { value } : { value_raw: value.toString() }),
  });

let index: Awaited<ReturnType<typeof memoryIndex>>;
beforeAll(async () => {
  index = await memoryIndex({
    blocks: blocks(0, HEAD, FAKE_NOW),
    erc20_transfers: [
      transfer(3, 0, OTHER, ME, 2_500_000n),
      transfer(5, 1, ME, OTHER, 1_000_000n),
      transfer(5, 2, ME, ME, 7n),
      transfer(9, 0, OTHER, ME, 2n ** 200n, SPAM),
      transfer(12, 4, OTHER, '0x1111111111111111111111111111111111111111', 9n),
    ],
  });
});
afterAll(() => index?.close());

const run = (fields: Record<string, unknown>) => baseTransferSearch.run(baseTransferSearch.input.parse(fields), fakeContext({ index }));

describe('base-transfer-search (the index)', () => {
  it('both ways over the whole index, newest first, exact amounts (beyond 2^127 too), a self-transfer once', async () => {
    const out = await run({ address: ME });
    expect(out).toMatchObject({ chain: 'base', network: 'eip155:31337', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', from_block: 0, to_block: HEAD, count: 4, next_cursor: null });
    expect(out.transfers.map((t) => [t.block_number, t.log_index, t.direction, t.amount_atomic])).toEqual([
      [9, 0, 'in', (2n ** 200n).toString()],
      [5, 2, 'self', '7'],
      [5, 1, 'out', '1000000'],
      [3, 0, 'in', '2500000'],
    ]);
    expect(out.indexed).toEqual({ from_block: 0, from_time: expect.any(String), to_block: HEAD, to_time: FAKE_NOW.toISOString(), from_genesis: true });
    expect(z.fromJSONSchema(baseTransferSearch.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('pages with a cursor until the end; each page continues where the last ended', async () => {
    const first = await run({ address: ME, limit: 3 });
    expect(first.transfers.map((t) => t.block_number)).toEqual([9, 5, 5]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await run({ address: ME, limit: 3, cursor: first.next_cursor });
    expect(second.transfers.map((t) => [t.block_number, t.log_index])).toEqual([[3, 0]]);
    expect(second.next_cursor).toBeNull();
  });

  it('one direction, one token, a block range', async () => {
    expect((await run({ address: ME, direction: 'in', token_address: TOKEN })).transfers.map((t) => t.block_number)).toEqual([5, 3]);
    expect((await run({ address: ME, direction: 'out', from_block: 4, to_block: 6 })).transfers.map((t) => t.log_index)).toEqual([2, 1]);
  });

  it('a cursor of another search, or not a cursor, is refused in the schema (before payment)', async () => {
    const { next_cursor } = await run({ address: ME, limit: 1 });
    const parse = (fields: Record<string, unknown>) => baseTransferSearch.input.safeParse(fields);
    expect(parse({ address: ME, limit: 1, cursor: next_cursor }).success).toBe(true);
    expect(parse({ address: OTHER, cursor: next_cursor }).error?.issues[0]?.path).toEqual(['cursor']);
    expect(parse({ address: ME, cursor: 'garbage!' }).error?.issues[0]?.path).toEqual(['cursor']);
    expect(parse({ address: '0x12' }).success).toBe(false);
  });

  it('a range outside the index is 422 naming the field; no index is 503', async () => {
    const refused = (fields: Record<string, unknown>) => run({ address: ME, ...fields }).catch((e: unknown) => e);
    expect(await refused({ to_block: HEAD + 1 })).toMatchObject({ status: 422, field: 'to_block' });
    expect(await refused({ from_block: 8, to_block: 7 })).toMatchObject({ status: 422, field: 'from_block' });
    expect(await refused({ from_block: 8, to_block: 7 })).toBeInstanceOf(ProductInputError);
    const none = await baseTransferSearch.run(baseTransferSearch.input.parse({ address: ME }), fakeContext()).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(UpstreamError);
    expect(none).toMatchObject({ status: 503 });
  });

  it('its output example satisfies its output schema', () => {
    expect(baseTransferSearch.output.safeParse(baseTransferSearch.outputExample).success).toBe(true);
  });
});
