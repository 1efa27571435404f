import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_NOW, fakeContext } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../../chain/index-fixture.ts';
import { providerDouble } from '../../../providers/provider-double.fixture.ts';
import type { Row } from '../../../index/decode.ts';
import { tradingSignals } from './index.ts';

// 101 blocks 30 minutes apart ending at the fake clock: blocks 52..100 are the last 24 hours,
// 4..51 the 24 hours before.
const LAST = 100;
const SPACING = 1_800;
const at = (n: number) => blockTime(n, LAST, FAKE_NOW, SPACING);
const E18 = 10n ** 18n;

const AERO = '0x940181a94a35a4569e4529a3cdfb74e38fd98631';
const WETH = '0x4200000000000000000000000000000000000006';
const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const UNLISTED = '0x1111111111111111111111111111111111111111';
const P = '0x00000000000000000000000000000000000000a1'; // v2 WETH/AERO: AERO is token1
const Q = '0x00000000000000000000000000000000000000a2'; // v3 USDC/AERO: AERO is token1
const R = '0x00000000000000000000000000000000000000a3'; // v2, holds AERO, no output leg: side unknown
const [W1, W2, W3, W4, T1] = ['0xb1', '0xb2', '0xb3', '0xb4', '0xc1'].map((p) => p.padEnd(42, '0')) as [string, string, string, string, string];
const ZERO = `0x${'0'.repeat(40)}`;

let n = 0;
const tx = () => `0x${(++n).toString(16).padStart(64, '0')}`;
const transfer = (block: number, hash: string, logIndex: number, token: string, from: string, to: string, value: bigint) =>
  row('erc20_transfers', { block_number: block, block_time: at(block), tx_hash: hash, log_index: logIndex, contract_address: token, from, to, value });
const v2 = (block: number, hash: string, logIndex: number, pair: string, a: { in0?: bigint; in1?: bigint; out0?: bigint; out1?: bigint }) =>
  row('uniswap_v2_swaps', { block_number: block, block_time: at(block), tx_hash: hash, log_index: logIndex, pair_address: pair, sender: T1, to: T1, amount0_in: a.in0 ?? 0n, amount1_in: a.in1 ?? 0n, amount0_out: a.out0 ?? 0n, amount1_out: a.out1 ?? 0n });
const v3 = (block: number, hash: string, logIndex: number, pool: string, amount0: bigint, amount1: bigint) =>
  row('uniswap_v3_swaps', { block_number: block, block_time: at(block), tx_hash: hash, log_index: logIndex, pool_address: pool, sender: T1, recipient: T1, amount0, amount1, sqrt_price_x96: 1n, liquidity: 1n, tick: 0 });

const erc20: Row[] = [];
const swaps2: Row[] = [];
const swaps3: Row[] = [];
{
  const mint = tx();
  erc20.push(transfer(1, mint, 0, AERO, ZERO, W1, 10_000_000n * E18), transfer(1, mint, 1, UNLISTED, ZERO, W1, 5_000n * E18));
  // Liquidity into the pools (no swap in these transactions).
  const liquidity = tx();
  erc20.push(transfer(2, liquidity, 0, AERO, W1, P, 50_000n * E18), transfer(2, liquidity, 1, AERO, W1, Q, 50_000n * E18));
  // The previous window: one buy of 500 AERO on P.
  const old = tx();
  erc20.push(transfer(20, old, 0, AERO, P, T1, 500n * E18));
  swaps2.push(v2(20, old, 1, P, { in0: E18 / 4n, out1: 500n * E18 }));
  // The window: a buy of 1,000 on P (its AERO leg tells the side).
  const buy = tx();
  erc20.push(transfer(60, buy, 0, AERO, P, T1, 1_000n * E18));
  swaps2.push(v2(60, buy, 1, P, { in0: E18 / 2n, out1: 1_000n * E18 }));
  // A sell of 400 on P: its output leg is WETH (token0), so AERO is token1 again.
  const sell = tx();
  erc20.push(transfer(70, sell, 0, AERO, T1, P, 400n * E18), transfer(70, sell, 1, WETH, P, T1, E18 / 5n));
  swaps2.push(v2(70, sell, 2, P, { in1: 400n * E18, out0: E18 / 5n }));
  // A buy of 2,000 on the v3 pool Q.
  const buy3 = tx();
  erc20.push(transfer(80, buy3, 0, AERO, Q, T1, 2_000n * E18), transfer(80, buy3, 1, USDC, T1, Q, 1_426_000_000n));
  swaps3.push(v3(80, buy3, 2, Q, 1_426_000_000n, -2_000n * E18));
  // R got AERO and swaps, but no transfer leg matches its Swap: left out.
  erc20.push(transfer(81, tx(), 0, AERO, W1, R, 1_000n * E18));
  swaps2.push(v2(82, tx(), 0, R, { in0: 7n, out1: 9n }));
  // Whales: 300,000 out of Q, 150,000 into P, 250,000 between wallets; 100,000 AERO is below $100,000.
  erc20.push(transfer(85, tx(), 0, AERO, Q, W2, 300_000n * E18), transfer(90, tx(), 0, AERO, W1, P, 150_000n * E18), transfer(95, tx(), 0, AERO, W3, W4, 250_000n * E18), transfer(96, tx(), 0, AERO, W1, W3, 100_000n * E18));
  // An unlisted token with 10 (of 5,000 minted) moving between wallets: its whale threshold is 0.1% of that supply, 5.
  erc20.push(transfer(97, tx(), 0, UNLISTED, W1, W2, 10n * E18));
}

let index: Awaited<ReturnType<typeof memoryIndex>>;
const double = providerDouble();
beforeAll(async () => {
  index = await memoryIndex({ blocks: blocks(0, LAST, FAKE_NOW, SPACING), erc20_transfers: erc20, uniswap_v2_swaps: swaps2, uniswap_v3_swaps: swaps3 });
});
afterAll(() => index.close());

const run = (input: Record<string, unknown>) => tradingSignals.run(tradingSignals.input.parse(input), fakeContext({ index, data: double.providers() }));

describe('trading-signals', () => {
  it('AERO on base: momentum, DEX buys and whales taking from pools all vote bullish, with every input stated', async () => {
    const out = await run({ token: 'AERO' });
    expect(tradingSignals.output.parse(out)).toEqual(out);
    expect(out).toMatchObject({ signal: 'bullish', score: 4, chain: 'base', token: { decimals: 18, coin: { coingecko_id: 'aerodrome-finance', symbol: 'AERO' } } });
    expect(out.token.address.toLowerCase()).toBe(AERO);
    expect(out.components.map((c) => [c.rule, c.input, c.vote])).toEqual([
      ['price_change_24h', 4.83, 1],
      ['price_change_7d', 12.36, 1],
      ['dex_buy_share', 0.882352, 1],
      ['whale_net_flow', (150_000n * E18).toString(), 1],
    ]);
    expect(out.momentum).toMatchObject({ price_usd: 0.7132, change_24h_pct: 4.83, change_7d_pct: 12.36 });
    expect(out.momentum.source_url).toMatch(/\/coins\/aerodrome-finance\?/);
    expect(out.dex_volume).toMatchObject({
      swaps: 3,
      buys: 2,
      sells: 1,
      bought_atomic: (3_000n * E18).toString(),
      sold_atomic: (400n * E18).toString(),
      volume_atomic: (3_400n * E18).toString(),
      buy_share: '0.882352',
      volume_usd: 2424.88,
      pools: 2,
      unresolved_pools: 1,
      previous: { swaps: 1, buys: 1, sells: 0, bought_atomic: (500n * E18).toString() },
      change_pct: 580,
    });
    const threshold = out.whale_activity.threshold;
    expect(threshold).toMatchObject({ basis: 'usd', usd: 100_000 });
    expect(BigInt(threshold.amount_atomic!) * 7132n / 10_000n / E18).toBe(100_000n); // $100,000 at $0.7132, rounded up
    expect(out.whale_activity).toMatchObject({
      transfers: 3,
      from_venues: { count: 1, amount_atomic: (300_000n * E18).toString() },
      to_venues: { count: 1, amount_atomic: (150_000n * E18).toString() },
      other: { count: 1, amount_atomic: (250_000n * E18).toString() },
      net_from_venues_atomic: (150_000n * E18).toString(),
    });
    expect(out.whale_activity.largest.map((w) => [w.block_number, w.direction, w.amount_usd])).toEqual([
      [85, 'from_venue', 213_960],
      [95, 'other', 178_300],
      [90, 'to_venue', 106_980],
    ]);
    expect(out.window).toMatchObject({ to: FAKE_NOW.toISOString(), to_block: LAST, complete: true });
    expect(out.disclaimer).toMatch(/not investment advice/);
  });

  it('the same token by address reads the same; a listed coin without activity votes on momentum alone', async () => {
    const byAddress = await run({ token: AERO.toUpperCase().replace('0X', '0x'), chain: 'base' });
    expect(byAddress).toMatchObject({ signal: 'bullish', score: 4, token: { coin: { coingecko_id: 'aerodrome-finance' } } });
    expect(double.requests.at(-1)!.path).toBe(`/api/v3/coins/base/contract/${AERO}`);
    const uni = await run({ token: 'UNI' });
    expect(uni).toMatchObject({ signal: 'bearish', score: -2, dex_volume: { swaps: 0, buy_share: null, pools: 0 }, whale_activity: { transfers: 0, threshold: { basis: 'usd' } } });
    expect(uni.components.map((c) => c.vote)).toEqual([-1, -1, 0, 0]);
  });

  it('a contract CoinGecko does not list is read from the index alone: no price, whales by share of the indexed supply', async () => {
    const out = await run({ token: UNLISTED });
    expect(out).toMatchObject({ signal: 'neutral', score: 0, token: { coin: null, decimals: null }, momentum: { price_usd: null, source_url: null } });
    expect(out.whale_activity).toMatchObject({ threshold: { basis: 'indexed_supply', usd: null, amount_atomic: (5n * E18).toString() }, transfers: 1, other: { count: 1 } });
    expect(out.components[0]!.evidence).toMatch(/does not list/);
  });

  it('unknown tokens are 404 on token; a chain the index does not read is 422 on chain', async () => {
    await expect(run({ token: 'NOPE' })).rejects.toMatchObject({ name: 'ProductInputError', status: 404, field: 'token' });
    await expect(run({ token: '0x2222222222222222222222222222222222222222' })).rejects.toMatchObject({ status: 404, field: 'token' });
    await expect(run({ token: 'USDC', chain: 'base' }).then((o) => o.token.coin?.coingecko_id)).resolves.toBe('usd-coin');
    await expect(run({ token: 'AERO', chain: 'ethereum' })).rejects.toMatchObject({ status: 422, field: 'chain', code: 'chain_not_configured' });
    expect(tradingSignals.input.safeParse({ token: 'AERO; DROP' }).success).toBe(false);
  });
});
