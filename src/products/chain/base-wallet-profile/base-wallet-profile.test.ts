import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { numberToHex } from 'viem';
import { fakeChains, fakeContext, FAKE_NOW, stubEvmChain } from '../../kit/fake-context.ts';
import { blockTime, blocks, memoryIndex, row } from '../index-fixture.ts';
import { baseWalletProfile } from './index.ts';

const ME = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const OTHER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const NFT = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const HEAD = 100;
// Two days of blocks, one every half hour.
const time = (n: number) => blockTime(n, HEAD, FAKE_NOW, 1_800);
const hash = (n: number, i = 0) => `0x${n.toString(16).padStart(62, '0')}${i.toString(16).padStart(2, '0')}`;

let index: Awaited<ReturnType<typeof memoryIndex>>;
beforeAll(async () => {
  index = await memoryIndex({
    blocks: blocks(0, HEAD, FAKE_NOW, 1_800),
    transactions: [
      row('transactions', { block_number: 10, block_time: time(10), tx_index: 0, hash: hash(10), from: ME, to: TOKEN, value: 0, nonce: 0, gas_used: 50_000, success: true, tx_type: 2 }),
      row('transactions', { block_number: 20, block_time: time(20), tx_index: 0, hash: hash(20), from: ME, to: TOKEN, value: 0, nonce: 1, gas_used: 30_000, success: false, tx_type: 2 }),
      row('transactions', { block_number: 90, block_time: time(90), tx_index: 0, hash: hash(90), from: OTHER, to: ME, value: 5, nonce: 0, gas_used: 21_000, success: true, tx_type: 2 }),
    ],
    erc20_transfers: [
      row('erc20_transfers', { block_number: 10, block_time: time(10), tx_hash: hash(10), log_index: 0, contract_address: TOKEN, from: ME, to: OTHER, value: 7 }),
      row('erc20_transfers', { block_number: 5, block_time: time(5), tx_hash: hash(5), log_index: 0, contract_address: TOKEN, from: OTHER, to: ME, value: 9 }),
    ],
    erc721_transfers: [row('erc721_transfers', { block_number: 95, block_time: time(95), tx_hash: hash(95), log_index: 0, contract_address: NFT, from: `0x${'0'.repeat(40)}`, to: ME, token_id: 1 })],
  });
});
afterAll(() => index?.close());

const chain = () =>
  stubEvmChain(
    {
      eth_blockNumber: numberToHex(HEAD + 2),
      eth_getBalance: numberToHex(1_500_000_000_000_000_000n),
      eth_getCode: '0x',
      eth_getTransactionCount: '0x2',
      eth_call: numberToHex(12_500_000n, { size: 32 }),
    },
    { chainId: 31337, usdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
  );

describe('base-wallet-profile', () => {
  it('balances and code from the chain at its latest block, history from the index', async () => {
    const base = chain();
    const out = await baseWalletProfile.run({ address: ME }, fakeContext({ index, chains: fakeChains({ evm: [base] }) }));
    expect(out).toEqual({
      chain: 'base',
      network: 'eip155:31337',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      is_contract: false,
      eth_balance_wei: '1500000000000000000',
      eth_balance: '1.5',
      usdc_balance_atomic: '12500000',
      usdc_balance: '12.5',
      nonce: 2,
      balances_block: HEAD + 2,
      activity: {
        transactions_sent: 2,
        transactions_received: 1,
        transactions_failed: 1,
        token_transfers_in: 1,
        token_transfers_out: 1,
        nft_transfers_in: 1,
        nft_transfers_out: 0,
        first_seen: { block_number: 5, time: time(5).toISOString() },
        last_seen: { block_number: 95, time: time(95).toISOString() },
        active_days: new Set([5, 10, 20, 90, 95].map((n) => time(n).toISOString().slice(0, 10))).size,
      },
      indexed: { from_block: 0, from_time: expect.any(String), to_block: HEAD, to_time: FAKE_NOW.toISOString(), from_genesis: true },
    });
    // Every read at the same block.
    for (const call of base.calls.filter((c) => c.method !== 'eth_blockNumber')) expect(call.params.at(-1)).toBe(numberToHex(HEAD + 2));
    expect(z.fromJSONSchema(baseWalletProfile.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('an address with no history: zero counts, null first and last activity', async () => {
    const out = await baseWalletProfile.run({ address: `0x${'ab'.repeat(20)}` }, fakeContext({ index, chains: fakeChains({ evm: [chain()] }) }));
    expect(out.activity).toMatchObject({ transactions_sent: 0, token_transfers_in: 0, first_seen: null, last_seen: null, active_days: 0 });
  });

  it('needs the index and Base: without either, a problem that is never charged', async () => {
    await expect(baseWalletProfile.run({ address: ME }, fakeContext({ chains: fakeChains({ evm: [chain()] }) }))).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    await expect(baseWalletProfile.run({ address: ME }, fakeContext({ index }))).rejects.toMatchObject({ name: 'ProductInputError', code: 'chain_not_configured' });
    expect(baseWalletProfile.requires).toEqual(['index', 'evm:base']);
    expect(baseWalletProfile.input.safeParse({ address: '0x12' }).success).toBe(false);
  });

  it('its output example satisfies its output schema', () => {
    expect(baseWalletProfile.output.safeParse(baseWalletProfile.outputExample).success).toBe(true);
  });
});
