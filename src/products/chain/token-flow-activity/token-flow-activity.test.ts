import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getAddress } from 'viem';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../index-fixture.ts';
import { tokenFlowActivity } from './index.ts';

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const ZERO = `0x${'0'.repeat(40)}`;
const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const C = '0x3333333333333333333333333333333333333333';
const PAIR = '0x4444444444444444444444444444444444444444';
const HEAD = 72;
// One block an hour: block 72 is now, block 47 is 25 hours ago (outside a 24-hour window).
const time = (n: number) => blockTime(n, HEAD, FAKE_NOW, 3_600);
let log = 0;
const transfer = (block: number, from: string, to: string, value: bigint) =>
  row('erc20_transfers', { block_number: block, block_time: time(block), tx_hash: `0x${(++log).toString(16).padStart(64, '0')}`, log_index: log, contract_address: TOKEN, from, to, value });

let index: Awaited<ReturnType<typeof memoryIndex>>;
beforeAll(async () => {
  index = await memoryIndex({
    blocks: blocks(0, HEAD, FAKE_NOW, 3_600),
    erc20_transfers: [
      transfer(47, A, B, 999_999n), // outside the window
      transfer(50, ZERO, A, 1_000n),
      transfer(55, A, PAIR, 300n),
      transfer(56, PAIR, B, 120n),
      transfer(60, A, C, 500n),
      transfer(70, B, ZERO, 20n),
    ],
    uniswap_v2_swaps: [row('uniswap_v2_swaps', { block_number: 56, block_time: time(56), tx_hash: `0x${'ee'.repeat(32)}`, log_index: 9, pair_address: PAIR, sender: B, to: B, amount0_in: 300, amount1_in: 0, amount0_out: 0, amount1_out: 120 })],
  });
});
afterAll(() => index?.close());

const run = (fields: Record<string, unknown>) => tokenFlowActivity.run(tokenFlowActivity.input.parse(fields), fakeContext({ index }));

describe('token-flow-activity', () => {
  it('volume, largest transfers, top senders and receivers, mints and burns, DEX pool flows over the window', async () => {
    const out = await run({ token_address: TOKEN });
    expect(out).toMatchObject({
      chain: 'base',
      token_address: getAddress(TOKEN),
      window: { hours: 24, from: new Date(FAKE_NOW.getTime() - 24 * 3_600_000).toISOString(), to_block: HEAD, complete: true },
      volume: { transfers: 5, amount_atomic: '1940', senders: 3, receivers: 4 },
      mint_burn: { minted_atomic: '1000', burned_atomic: '20' },
      exchange_flows: { pools: 1, inflow_atomic: '300', outflow_atomic: '120', net_atomic: '180' },
    });
    expect(out.largest_transfers.map((t) => [t.block_number, t.amount_atomic])).toEqual([[50, '1000'], [60, '500'], [55, '300'], [56, '120'], [70, '20']]);
    expect(out.top_senders).toEqual([
      { address: getAddress(A), sent_atomic: '800', received_atomic: '1000', net_atomic: '200' },
      { address: getAddress(PAIR), sent_atomic: '120', received_atomic: '300', net_atomic: '180' },
      { address: getAddress(B), sent_atomic: '20', received_atomic: '120', net_atomic: '100' },
    ]);
    expect(out.top_receivers.map((p) => [p.address, p.received_atomic])).toEqual([[getAddress(A), '1000'], [getAddress(C), '500'], [getAddress(PAIR), '300'], [getAddress(B), '120']]);
    expect(z.fromJSONSchema(tokenFlowActivity.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('a wider window takes older transfers in; a quiet one answers zeros', async () => {
    expect((await run({ token_address: TOKEN, window_hours: 48 })).volume).toMatchObject({ transfers: 6, amount_atomic: '1001939' });
    expect((await run({ token_address: TOKEN, window_hours: 1 })).volume).toEqual({ transfers: 0, amount_atomic: '0', senders: 0, receivers: 0 });
  });

  it('a contract never transferred is 422 on token_address; a window over 168 hours is refused in the schema', async () => {
    await expect(run({ token_address: `0x${'ab'.repeat(20)}` })).rejects.toMatchObject({ status: 422, field: 'token_address' });
    expect(tokenFlowActivity.input.safeParse({ token_address: TOKEN, window_hours: 169 }).success).toBe(false);
    expect(tokenFlowActivity.input.safeParse({ token_address: '0x1' }).success).toBe(false);
  });

  it('its output example satisfies its output schema', () => {
    expect(tokenFlowActivity.output.safeParse(tokenFlowActivity.outputExample).success).toBe(true);
  });
});
