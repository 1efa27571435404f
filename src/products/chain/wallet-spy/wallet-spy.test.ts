import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getAddress } from 'viem';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../index-fixture.ts';
import { walletSpy } from './index.ts';
import { RISK_RULES, riskScore, type RiskFacts } from './risk.ts';

const ME = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const A = '0x1111111111111111111111111111111111111111';
const ROUTER = '0x2222222222222222222222222222222222222222';
const PAIR = '0x3333333333333333333333333333333333333333';
const POOL = '0x4444444444444444444444444444444444444444';
const NFT = '0x5555555555555555555555555555555555555555';
const MULTI = '0x6666666666666666666666666666666666666666';
const USDC = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const ZERO = `0x${'0'.repeat(40)}`;
const HEAD = 48;
// One block an hour: two days of history, the wallet's first activity 40 hours ago (a new wallet).
const time = (n: number) => blockTime(n, HEAD, FAKE_NOW, 3_600);
const hash = (n: number, i = 0) => `0x${n.toString(16).padStart(62, '0')}${i.toString(16).padStart(2, '0')}`;
const at = (n: number, i = 0) => ({ block_number: n, block_time: time(n), tx_hash: hash(n, i), log_index: i });

let index: Awaited<ReturnType<typeof memoryIndex>>;
beforeAll(async () => {
  index = await memoryIndex({
    blocks: blocks(0, HEAD, FAKE_NOW, 3_600),
    transactions: [
      row('transactions', { block_number: 8, block_time: time(8), tx_index: 0, hash: hash(8), from: A, to: ME, value: 10n ** 18n, nonce: 0, gas_used: 21_000, success: true, tx_type: 2 }),
      row('transactions', { block_number: 20, block_time: time(20), tx_index: 0, hash: hash(20), from: ME, to: ROUTER, value: 0, nonce: 0, gas_used: 90_000, success: true, tx_type: 2, method_id: '0x38ed1739' }),
      row('transactions', { block_number: 30, block_time: time(30), tx_index: 0, hash: hash(30), from: ME, to: ROUTER, value: 0, nonce: 1, gas_used: 40_000, success: false, tx_type: 2, method_id: '0x38ed1739' }),
      row('transactions', { block_number: 31, block_time: time(31), tx_index: 0, hash: hash(31), from: ME, to: NFT, value: 0, nonce: 2, gas_used: 60_000, success: true, tx_type: 2, method_id: '0x40c10f19' }),
    ],
    erc20_transfers: [
      row('erc20_transfers', { ...at(10), contract_address: USDC, from: A, to: ME, value: 1_000_000 }),
      row('erc20_transfers', { ...at(11), contract_address: USDC, from: A, to: ME, value: 1_000_000 }),
      row('erc20_transfers', { ...at(20, 1), contract_address: USDC, from: ME, to: PAIR, value: 1_900_000 }),
      row('erc20_transfers', { ...at(21), contract_address: USDC, from: ME, to: A, value: 50_000 }),
    ],
    // Through a router: the pair's sender is the router, the recipient the wallet; the v3 swap found by its transaction's sender.
    uniswap_v2_swaps: [row('uniswap_v2_swaps', { ...at(20, 2), tx_hash: hash(20), pair_address: PAIR, sender: ROUTER, to: ME, amount0_in: 1_900_000, amount1_in: 0, amount0_out: 0, amount1_out: 950_000_000_000_000 })],
    uniswap_v3_swaps: [row('uniswap_v3_swaps', { ...at(20, 3), tx_hash: hash(20), pool_address: POOL, sender: ROUTER, recipient: ROUTER, amount0: -5, amount1: 7, sqrt_price_x96: 1, liquidity: 1, tick: 0 })],
    erc721_transfers: [row('erc721_transfers', { ...at(31), contract_address: NFT, from: ZERO, to: ME, token_id: 42 })],
    erc1155_transfers: [row('erc1155_transfers', { ...at(40), batch_index: 0, contract_address: MULTI, operator: A, from: A, to: ME, token_id_raw: (2n ** 200n).toString(), value: 3 })],
  });
});
afterAll(() => index?.close());

const run = (fields: Record<string, unknown>) => walletSpy.run(walletSpy.input.parse(fields), fakeContext({ index }));

describe('wallet-spy', () => {
  it('transactions, token flows, swaps (via a router too), NFT activity, counterparties and a documented risk score', async () => {
    const out = await run({ address: ME });
    expect(out).toMatchObject({ chain: 'base', address: getAddress(ME), window: { days: 30, to_block: HEAD, complete: true }, tokens_total: 1, counterparties_total: 4 }); // A, the pair, the router, the NFT contract
    expect(out.transactions).toMatchObject({ sent: 3, received: 1, failed: 1 });
    expect(out.transactions.recent.map((t) => [t.block_number, t.direction, t.success, t.counterparty])).toEqual([
      [31, 'out', true, getAddress(NFT)],
      [30, 'out', false, getAddress(ROUTER)],
      [20, 'out', true, getAddress(ROUTER)],
      [8, 'in', true, getAddress(A)],
    ]);
    expect(out.transactions.recent[3]!.value_wei).toBe('1000000000000000000');
    expect(out.token_flows).toEqual([{ token: getAddress(USDC), transfers_in: 2, transfers_out: 2, amount_in: '2000000', amount_out: '1950000', net: '50000' }]);
    expect(out.swaps).toEqual({
      count: 2,
      recent: [
        { tx_hash: hash(20), block_number: 20, protocol: 'uniswap_v3', pool: getAddress(POOL), amount0_in: '0', amount1_in: '7', amount0_out: '5', amount1_out: '0' },
        { tx_hash: hash(20), block_number: 20, protocol: 'uniswap_v2', pool: getAddress(PAIR), amount0_in: '1900000', amount1_in: '0', amount0_out: '0', amount1_out: '950000000000000' },
      ],
    });
    expect(out.nft_activity).toMatchObject({ received: 2, sent: 0, minted: 1 });
    expect(out.nft_activity.recent.map((n) => [n.standard, n.token_id, n.amount, n.direction, n.mint])).toEqual([
      ['erc1155', (2n ** 200n).toString(), '3', 'in', false],
      ['erc721', '42', '1', 'in', true],
    ]);
    // New (first seen 40 hours ago), passes 97.5% of its USDC on, a third of its transactions reverted.
    expect(out.risk_factors.map((f) => f.rule)).toEqual(['new_wallet', 'pass_through', 'failed_transactions']);
    expect(out).toMatchObject({ risk_score: 60, risk_level: 'high' });
    expect(z.fromJSONSchema(walletSpy.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('the risk rules: each fires on its own evidence, the sum is capped at 100, and the description lists them all', () => {
    const quiet: RiskFacts = { ageDays: 400, ageKnown: true, sent: 10, failed: 0, recipients: 3, unsolicitedTokens: 0, busiestDay: 2, flows: [] };
    expect(riskScore(quiet)).toEqual({ score: 0, level: 'low', factors: [] });
    expect(riskScore({ ...quiet, ageDays: 1, ageKnown: false }).score).toBe(0); // a young index cannot tell
    const loud: RiskFacts = { ageDays: 1, ageKnown: true, sent: 100, failed: 40, recipients: 25, unsolicitedTokens: 9, busiestDay: 80, flows: [{ token: USDC, amountIn: 100n, amountOut: 95n, transfersIn: 3, transfersOut: 3 }] };
    expect(riskScore(loud)).toMatchObject({ score: 100, level: 'high' });
    expect(riskScore(loud).factors.map((f) => f.rule)).toEqual(RISK_RULES.map((r) => r.id));
    for (const rule of RISK_RULES) expect(walletSpy.description).toContain(`${rule.id} +${rule.points}`);
  });

  it('GET with query parameters; a malformed address or an unknown chain is refused in the schema', () => {
    expect(walletSpy.http).toMatchObject({ method: 'GET', path: '/api/v1/paid/wallet-spy', price: '0.03' });
    expect(walletSpy.input.safeParse({ address: ME }).data).toEqual({ address: ME, chain: 'base' });
    expect(walletSpy.input.safeParse({ address: '0xzz' }).success).toBe(false);
    expect(walletSpy.input.safeParse({ address: ME, chain: 'bitcoin' }).success).toBe(false);
  });

  it('its output example satisfies its output schema', () => {
    expect(walletSpy.output.safeParse(walletSpy.outputExample).success).toBe(true);
  });
});
