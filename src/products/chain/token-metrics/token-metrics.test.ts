import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getAddress } from 'viem';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../index-fixture.ts';
import { ratio } from '../index-read.ts';
import { tokenMetrics } from './index.ts';

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const OTHER_TOKEN = '0x4200000000000000000000000000000000000006';
const ZERO = `0x${'0'.repeat(40)}`;
const holder = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const HEAD = 30;
let log = 0;
const transfer = (block: number, from: string, to: string, value: bigint, token = TOKEN) =>
  row('erc20_transfers', { block_number: block, block_time: blockTime(block, HEAD, FAKE_NOW), tx_hash: `0x${(++log).toString(16).padStart(64, '0')}`, log_index: log, contract_address: token, from, to, value });

// Mint 1,000,000 to holder 1, who pays out: holder 2 gets 200,000, holders 3..14 get 1,000 each (12 of them), holder 15 gets 50 (0.005%).
// Holder 2 burns 100,000, and holder 16 receives and sends back everything (balance 0: not a holder).
const transfers = [
  transfer(1, ZERO, holder(1), 1_000_000n),
  transfer(2, holder(1), holder(2), 200_000n),
  ...Array.from({ length: 12 }, (_, i) => transfer(3 + i, holder(1), holder(3 + i), 1_000n)),
  transfer(20, holder(1), holder(15), 50n),
  transfer(21, holder(2), ZERO, 100_000n),
  transfer(22, holder(1), holder(16), 10n),
  transfer(23, holder(16), holder(1), 10n),
  transfer(24, holder(1), holder(2), 5n, OTHER_TOKEN),
];
const balances = new Map<string, bigint>([[holder(1), 1_000_000n - 200_000n - 12_000n - 50n], [holder(2), 100_000n], [holder(15), 50n]]);
for (let i = 3; i <= 14; i++) balances.set(holder(i), 1_000n);
const HELD = 900_000n;

/** Gini over the balances, as the product defines it (ascending ranks). */
function gini(values: bigint[]): number {
  const x = values.map(Number).sort((a, b) => a - b);
  const n = x.length;
  const sum = x.reduce((a, b) => a + b, 0);
  return (2 * x.reduce((acc, v, i) => acc + (i + 1) * v, 0)) / (n * sum) - (n + 1) / n;
}

let index: Awaited<ReturnType<typeof memoryIndex>>;
beforeAll(async () => {
  index = await memoryIndex({ blocks: blocks(0, HEAD, FAKE_NOW), erc20_transfers: transfers });
});
afterAll(() => index?.close());

const run = (fields: Record<string, unknown>) => tokenMetrics.run(tokenMetrics.input.parse(fields), fakeContext({ index }));

describe('token-metrics', () => {
  it('balances from the indexed transfers: holders, top holders, buckets, concentration, whales', async () => {
    const out = await run({ token_address: TOKEN });
    expect(out).toMatchObject({
      chain: 'base',
      token_address: getAddress(TOKEN),
      as_of_block: HEAD,
      complete: true,
      holders: 15,
      supply: { held_atomic: HELD.toString(), minted_atomic: '1000000', burned_atomic: '100000' },
      transfers: { count: 18, first_block: 1, last_block: 23 },
    });
    expect(out.top_holders.slice(0, 3)).toEqual([
      { address: getAddress(holder(1)), balance_atomic: '787950', share: '0.8755' },
      { address: getAddress(holder(2)), balance_atomic: '100000', share: '0.111111' },
      { address: getAddress(holder(3)), balance_atomic: '1000', share: '0.001111' },
    ]);
    expect(out.top_holders).toHaveLength(10);
    expect(out.distribution).toEqual([
      { bucket: '>=1%', holders: 2, balance_atomic: '887950', share: '0.986611' },
      { bucket: '0.1%-1%', holders: 12, balance_atomic: '12000', share: '0.013333' },
      { bucket: '0.01%-0.1%', holders: 0, balance_atomic: '0', share: '0' },
      { bucket: '<0.01%', holders: 1, balance_atomic: '50', share: '0.000055' },
    ]);
    const top10 = [...balances.values()].sort((a, b) => (b > a ? 1 : -1)).slice(0, 10).reduce((a, b) => a + b, 0n);
    expect(out.concentration.top10_share).toBe(ratio(top10, HELD));
    expect(ratio(top10, HELD)).toBe('0.9955'); // all but four of the 1,000 holdings and the 50
    expect(Number(out.concentration.gini)).toBeCloseTo(gini([...balances.values()]), 5);
    expect(out.whales).toEqual({ threshold_share: '0.01', count: 2, balance_atomic: '887950', share: '0.986611' });
    expect(z.fromJSONSchema(tokenMetrics.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('a contract without indexed transfers is 422 on token_address; malformed input is refused in the schema', async () => {
    await expect(run({ token_address: `0x${'ab'.repeat(20)}` })).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'token_address' });
    await expect(run({ token_address: TOKEN, chain: 'polygon' })).rejects.toMatchObject({ status: 422, code: 'chain_not_configured' });
    expect(tokenMetrics.input.safeParse({ token_address: 'USDC' }).success).toBe(false);
    expect(tokenMetrics.input.safeParse({ token_address: TOKEN, chain: 'solana' }).success).toBe(false);
  });

  it('its output example satisfies its output schema', () => {
    expect(tokenMetrics.output.safeParse(tokenMetrics.outputExample).success).toBe(true);
  });
});
