import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getAddress } from 'viem';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../index-fixture.ts';
import { walletAnalyze } from './index.ts';

const ME = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const ZERO = `0x${'0'.repeat(40)}`;
const USDC = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const WETH = '0x4200000000000000000000000000000000000006';
const HEAD = 120;
// One block a day: block 120 is now, block 20 is 100 days ago (outside the window).
const DAY = 86_400;
const time = (n: number) => blockTime(n, HEAD, FAKE_NOW, DAY);
let log = 0;
const transfer = (block: number, token: string, from: string, to: string, value: bigint) =>
  row('erc20_transfers', { block_number: block, block_time: time(block), tx_hash: `0x${(++log).toString(16).padStart(64, '0')}`, log_index: log, contract_address: token, from, to, ...(value < 2n ** 127n ? { value } : { value_raw: value.toString() }) });
const tx = (block: number, from: string, to: string, success = true) =>
  row('transactions', { block_number: block, block_time: time(block), tx_index: 0, hash: `0x${(++log).toString(16).padStart(64, '0')}`, from, to, value: 0, nonce: 0, gas_used: 21_000, success, tx_type: 2 });

let index: Awaited<ReturnType<typeof memoryIndex>>;
beforeAll(async () => {
  index = await memoryIndex({
    blocks: blocks(0, HEAD, FAKE_NOW, DAY),
    erc20_transfers: [
      transfer(20, USDC, A, ME, 1_000n), // 100 days ago: outside
      transfer(40, USDC, ZERO, ME, 5_000_000n), // a mint: not a counterparty
      transfer(100, USDC, ME, A, 1_250_000n),
      transfer(101, USDC, ME, A, 250_000n),
      transfer(101, USDC, B, ME, 3n),
      transfer(110, WETH, ME, ME, 10n ** 18n), // to itself: in and out
      transfer(119, WETH, A, ME, 2n ** 130n), // too large for the sums, still counted
    ],
    transactions: [tx(100, ME, USDC), tx(101, ME, USDC, false), tx(20, ME, B)],
  });
});
afterAll(() => index?.close());

const run = (fields: Record<string, unknown>) => walletAnalyze.run(walletAnalyze.input.parse(fields), fakeContext({ index }));

describe('wallet-analyze', () => {
  it('90 days of transfers, transactions, counterparties, token flows and active days, from the index', async () => {
    const out = await run({ wallet_address: ME });
    expect(out).toMatchObject({
      chain: 'base',
      network: 'eip155:31337',
      wallet_address: getAddress(ME),
      window: { days: 90, from: new Date(FAKE_NOW.getTime() - 90 * DAY * 1000).toISOString(), to: FAKE_NOW.toISOString(), to_block: HEAD, complete: true },
      transfers: { in: 4, out: 3, total: 7 },
      transactions: { sent: 2, received: 0, failed: 1 },
      counterparties_total: 3,
      tokens_total: 2,
      active_days: 5, // blocks 40, 100, 101, 110, 119: a day each
      first_seen: { block_number: 40, time: time(40).toISOString() },
      last_seen: { block_number: 119, time: time(119).toISOString() },
    });
    expect(out.counterparties).toEqual([
      { address: getAddress(A), transfers_in: 1, transfers_out: 2, transactions: 0, interactions: 3 },
      { address: getAddress(USDC), transfers_in: 0, transfers_out: 0, transactions: 2, interactions: 2 },
      { address: getAddress(B), transfers_in: 1, transfers_out: 0, transactions: 0, interactions: 1 },
    ]);
    expect(out.token_flows).toEqual([
      { token: getAddress(USDC), transfers_in: 2, transfers_out: 2, amount_in: '5000003', amount_out: '1500000', net: '3500003' },
      { token: getAddress(WETH), transfers_in: 2, transfers_out: 1, amount_in: (10n ** 18n).toString(), amount_out: (10n ** 18n).toString(), net: '0' },
    ]);
    expect(z.fromJSONSchema(walletAnalyze.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('a quiet wallet: zeros and empty lists (charged: it is the answer)', async () => {
    const out = await run({ wallet_address: `0x${'cd'.repeat(20)}` });
    expect(out).toMatchObject({ transfers: { in: 0, out: 0, total: 0 }, counterparties: [], token_flows: [], active_days: 0, first_seen: null });
  });

  it('a chain the index does not hold is 422 chain_not_configured; a malformed address is refused in the schema', async () => {
    await expect(run({ wallet_address: ME, chain: 'ethereum' })).rejects.toMatchObject({ status: 422, field: 'chain', code: 'chain_not_configured' });
    expect(walletAnalyze.input.safeParse({ wallet_address: '0xabc' }).success).toBe(false);
    expect(walletAnalyze.input.safeParse({ wallet_address: ME, chain: 'solana' }).success).toBe(false);
  });

  it('its output example satisfies its output schema', () => {
    expect(walletAnalyze.output.safeParse(walletAnalyze.outputExample).success).toBe(true);
  });
});
