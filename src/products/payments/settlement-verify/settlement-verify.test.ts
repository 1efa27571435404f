import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, numberToHex, pad, parseAbi, type Hex } from 'viem';
import { BATCH_SETTLEMENT_ADDRESS, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { computeChannelId } from '@x402/evm/batch-settlement/client';
import { X402BatchSettlement } from '../../../devchain/artifacts/index.ts';
import { fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import type { StoredVerification, VerificationRecords } from '../../kit/index.ts';
import { x402ReceiptLookup } from '../x402-receipt-lookup/index.ts';
import { settlementVerify } from './index.ts';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const TX = `0x${'ab'.repeat(32)}` as Hex;
const EVENTS = parseAbi([
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Settled()',
]);

const transferLog = (from: string, to: string, value: bigint) => ({
  address: USDC,
  topics: encodeEventTopics({ abi: EVENTS, eventName: 'Transfer', args: { from: from as Hex, to: to as Hex } }),
  data: encodeAbiParameters([{ type: 'uint256' }], [value]),
});
const authorizationLog = (authorizer: string) => ({
  address: USDC,
  topics: encodeEventTopics({ abi: EVENTS, eventName: 'AuthorizationUsed', args: { authorizer: authorizer as Hex, nonce: pad('0x01') } }),
  data: '0x',
});

function memoryRecords(): VerificationRecords & { rows: Map<string, StoredVerification> } {
  const rows = new Map<string, StoredVerification>();
  return { rows, save: async (v) => void rows.set(v.id, structuredClone(v)), get: async (id) => rows.get(id) };
}

/** A Base chain holding one transaction (or none), with the head 3 blocks after it. */
function chainWith(tx: { status?: '0x1' | '0x0'; logs?: unknown[]; to?: string; input?: Hex } | 'pending' | 'none') {
  return stubEvmChain({
    eth_getTransactionReceipt: typeof tx === 'string' ? null : { status: tx.status ?? '0x1', blockNumber: '0x10', to: tx.to ?? USDC, logs: tx.logs ?? [] },
    eth_getTransactionByHash: tx === 'none' ? null : { input: typeof tx === 'object' ? (tx.input ?? '0x') : '0x' },
    eth_getBlockByNumber: { timestamp: numberToHex(1_767_607_214) },
    eth_blockNumber: '0x12',
  });
}

const run = async (tx: Parameters<typeof chainWith>[0], input: Record<string, unknown> = {}) => {
  const records = memoryRecords();
  const ctx = fakeContext({ chains: fakeChains({ evm: [chainWith(tx)] }), payments: { verifications: records } });
  const out = await settlementVerify.run(settlementVerify.input.parse({ transaction: TX, network: 'eip155:8453', ...input }), ctx);
  expect(settlementVerify.output.safeParse(out).success).toBe(true);
  return { out, records, ctx };
};

describe('settlement-verify', () => {
  it('an EIP-3009 settlement: payer, payee, amount, block, confirmations; expectations checked; stored', async () => {
    const { out, records } = await run({ logs: [authorizationLog(PAYER), transferLog(PAYER, PAY_TO, 10_000n)] }, { pay_to: PAY_TO.toLowerCase(), amount: '10000' });
    expect(out).toMatchObject({
      verified: true,
      status: 'settled',
      mechanism: 'eip3009',
      payer: PAYER,
      payee: PAY_TO,
      amount: '0.01',
      amount_atomic: '10000',
      asset: USDC,
      block_number: 16,
      slot: null,
      block_time: '2026-01-05T10:00:14.000Z',
      confirmations: 3,
      checks: { pay_to: { matches: true }, amount: { expected_atomic: '10000', actual_atomic: '10000', matches: true } },
      reasons: [],
      source: 'rpc',
    });
    expect(out.verification_id).toMatch(/^ver_[0-9A-Z]{26}$/);
    expect(records.rows.get(out.verification_id)?.record).toEqual(out);
  });

  it('expectations that do not hold: not verified, with the reasons', async () => {
    const { out } = await run({ logs: [authorizationLog(PAYER), transferLog(PAYER, PAY_TO, 10_000n)] }, { pay_to: PAYER, amount: '20000' });
    expect(out).toMatchObject({ verified: false, status: 'settled', checks: { pay_to: { matches: false }, amount: { actual_atomic: '0', matches: false } } });
    expect(out.reasons).toHaveLength(2);
  });

  it('a plain USDC transfer is not an x402 settlement; a reverted, a pending and an unknown transaction say so', async () => {
    expect((await run({ logs: [transferLog(PAYER, PAY_TO, 5n)] })).out).toMatchObject({ verified: false, status: 'not_a_settlement', mechanism: null, payer: null, amount: null, legs: [] });
    expect((await run({ logs: [transferLog(PAYER, PAY_TO, 5n)] })).out.reasons[0]).toMatch(/plain USDC transfer/);
    expect((await run({ status: '0x0' })).out).toMatchObject({ status: 'reverted', verified: false, block_number: 16 });
    expect((await run('pending')).out).toMatchObject({ status: 'pending', confirmations: 0, block_number: null });
    expect((await run('none')).out).toMatchObject({ status: 'not_found', confirmations: 0 });
  });

  it('a Permit2 witness settlement through the x402 upto proxy', async () => {
    const settled = { address: x402UptoPermit2ProxyAddress, topics: encodeEventTopics({ abi: EVENTS, eventName: 'Settled' }), data: '0x' };
    const { out } = await run({ to: x402UptoPermit2ProxyAddress, logs: [transferLog(PAYER, PAY_TO, 7_000n), settled] });
    expect(out).toMatchObject({ status: 'settled', mechanism: 'permit2-witness', payer: PAYER, payee: PAY_TO, amount_atomic: '7000' });
  });

  it('a batch-settlement claim: each Claimed channel found in the calldata', async () => {
    const channel = { payer: PAYER, payerAuthorizer: PAYER, receiver: PAY_TO, receiverAuthorizer: PAY_TO, token: USDC, withdrawDelay: 900, salt: pad('0x07') } as const;
    const channelId = computeChannelId(channel as never, 8453);
    const input = encodeFunctionData({
      abi: X402BatchSettlement.abi,
      functionName: 'claim',
      args: [[{ voucher: { channel, maxClaimableAmount: 30_000n }, signature: '0x', totalClaimed: 30_000n }]],
    } as never);
    const claimed = {
      address: BATCH_SETTLEMENT_ADDRESS,
      topics: encodeEventTopics({ abi: X402BatchSettlement.abi, eventName: 'Claimed', args: { channelId, sender: PAY_TO } } as never),
      data: encodeAbiParameters([{ type: 'uint128' }, { type: 'uint128' }], [30_000n, 30_000n]),
    };
    const { out } = await run({ to: BATCH_SETTLEMENT_ADDRESS, input, logs: [claimed] }, { pay_to: PAY_TO, amount: '30000' });
    expect(out).toMatchObject({ verified: true, mechanism: 'batch-settlement-claim', payer: PAYER, payee: PAY_TO, amount: '0.03' });
  });

  it('an EIP-3009 deposit into a batch-settlement channel is escrow, not a settlement', async () => {
    const { out } = await run({ logs: [authorizationLog(PAYER), transferLog(PAYER, BATCH_SETTLEMENT_ADDRESS, 100_000n)] });
    expect(out).toMatchObject({ status: 'not_a_settlement', verified: false });
    expect(out.reasons[0]).toMatch(/deposit/);
  });

  it('a network not read here is 422 naming network; a malformed hash is refused before payment', async () => {
    await expect(run({ logs: [] }, { network: 'eip155:1' })).rejects.toMatchObject({ status: 422, field: 'network', code: 'chain_not_configured' });
    expect(settlementVerify.input.safeParse({ transaction: '0x12', network: 'eip155:8453' }).success).toBe(false);
    expect(settlementVerify.input.safeParse({ transaction: '0x12', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }).success).toBe(false);
  });

  it('x402-receipt-lookup: the stored verification with its confirmations now; an unknown id is 404', async () => {
    const { out, records } = await run({ logs: [authorizationLog(PAYER), transferLog(PAYER, PAY_TO, 10_000n)] });
    const later = fakeContext({ chains: fakeChains({ evm: [stubEvmChain({ eth_blockNumber: '0x20' })] }), payments: { verifications: records } });
    const found = await x402ReceiptLookup.run({ verification_id: out.verification_id }, later);
    expect(found).toEqual({ verification: out, confirmations_now: 17, commitment_now: null, looked_up_at: '2025-06-01T12:00:00.000Z' });
    expect(x402ReceiptLookup.output.safeParse(found).success).toBe(true);
    await expect(x402ReceiptLookup.run({ verification_id: 'ver_nope' }, later)).rejects.toMatchObject({ status: 404, field: 'verification_id' });
  });
});
