import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, createTestClient, createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { BATCH_SETTLEMENT_ADDRESS, batchSettlementAbi } from '../src/devchain/batch-settlement.ts';
import { devChain, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import type { RunningService } from '../src/runtime.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// The official batch-settlement client (unmodified, through @x402/fetch) paying percall: one deposit,
// then vouchers that move nothing on chain until the service claims them.

const PRICE = usdToAtomic('0.01'); // GET /api/v1/paid/time
const ADMIN_TOKEN = 'batch-test-operator-secret';
let chain: DevChain;
let service: RunningService;
let url: string;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ chain, env: { ADMIN_TOKEN } });
  url = `${service.url}/api/v1/paid/time`;
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const publicClient = () => createPublicClient({ chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl), cacheTime: 0 });
const blockNumber = () => publicClient().getBlockNumber();

/**
 * A buyer with the official client scheme (a fresh channel each); `payingFetch` pays with
 * batch-settlement only. `calls`: the deposit covers that many calls (the client's deposit policy).
 */
function buyer(calls = 10) {
  const signer = toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), publicClient());
  const salt = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex;
  // The client's own deposit sizing: enough for `calls` calls (the service announces 10 as its minimum).
  const scheme = new BatchSettlementEvmScheme(signer, { salt, depositStrategy: ({ requestAmount }) => (BigInt(requestAmount) * BigInt(calls)).toString() });
  const client = new x402Client().register(chain.network, scheme);
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  return { scheme, client, payingFetch: wrapFetchWithPayment(fetch, client) };
}

async function batchTerms(): Promise<PaymentRequirements> {
  const quote = decodePaymentRequiredHeader((await fetch(url)).headers.get('payment-required')!);
  return quote.accepts.find((a) => a.scheme === 'batch-settlement')!;
}

async function ledgerOf(channelId: string) {
  return (await service.percall.store.ledger({ limit: 1000 })).filter((e) => e.scheme === 'batch-settlement' && e.paymentKey.includes(channelId.toLowerCase()));
}

describe('batch-settlement with the official client', () => {
  it('is offered after exact on every paid route, with the receiver authorizer and withdrawal delay', async () => {
    const quote = decodePaymentRequiredHeader((await fetch(url)).headers.get('payment-required')!);
    const schemes = quote.accepts.filter((a) => a.network === chain.network).map((a) => a.scheme);
    expect(schemes.indexOf('exact')).toBeLessThan(schemes.indexOf('batch-settlement'));
    const terms = quote.accepts.find((a) => a.scheme === 'batch-settlement')!;
    expect(terms.amount).toBe(PRICE.toString());
    expect(terms.extra).toMatchObject({ receiverAuthorizer: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), withdrawDelay: 900 });
  });

  it('100 calls: one deposit transaction, 100 vouchers, nothing more on chain until the claim; then the receiver gains exactly the charges', async () => {
    const { payingFetch } = buyer(100);
    const before = await balances(chain);
    const first = await payingFetch(url);
    expect(first.status).toBe(200);
    const firstSettlement = decodePaymentResponseHeader(first.headers.get('payment-response')!);
    const channelId = (firstSettlement.extra as { channelState: { channelId: string } }).channelState.channelId;
    const afterDeposit = await blockNumber();
    for (let i = 1; i < 100; i++) {
      const response = await payingFetch(url);
      expect(response.status, `call ${i + 1}`).toBe(200);
      await response.json();
    }
    expect(await blockNumber()).toBe(afterDeposit); // 99 vouchers: no transaction at all
    expect((await balances(chain)).payTo).toBe(before.payTo);

    const rows = await ledgerOf(channelId);
    expect(rows).toHaveLength(100);
    expect(rows.reduce((sum, r) => sum + BigInt(r.amount), 0n)).toBe(100n * PRICE);

    const metrics = async () => (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(await metrics()).toMatch(/^percall_batch_unclaimed_usdc 1$/m);
    await service.percall.batchClaims!.runOnce();
    expect(await metrics()).toMatch(/^percall_batch_unclaimed_usdc 0$/m);
    expect(await metrics()).toMatch(/^percall_batch_claimed_usdc 1$/m);
    const after = await balances(chain);
    expect(after.payTo - before.payTo).toBe(100n * PRICE);
    const onChain = await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channelId as Hex] });
    expect(onChain[1]).toBe(100n * PRICE); // totalClaimed
    const sent = await service.percall.store.batchTransactions(10);
    expect(sent.map((t) => t.kind)).toEqual(expect.arrayContaining(['claim', 'settle']));
  });

  it('the same voucher twice: served once, then the terms again with the channel state; the client goes on from there', async () => {
    const { client, payingFetch } = buyer();
    expect((await payingFetch(url)).status).toBe(200); // the deposit
    // One voucher, presented by hand twice.
    const unpaid = await fetch(url);
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
    const payload = await client.createPaymentPayload({ ...required, accepts: required.accepts.filter((a) => a.scheme === 'batch-settlement') });
    const header = Buffer.from(JSON.stringify(payload)).toString('base64');
    const once = await fetch(url, { headers: { 'payment-signature': header } });
    expect(once.status).toBe(200);
    const again = await fetch(url, { headers: { 'payment-signature': header } });
    expect(again.status).toBe(402);
    const corrective = decodePaymentRequiredHeader(again.headers.get('payment-required')!);
    expect(corrective.error).toMatch(/cumulative/);
    const terms = corrective.accepts.find((a) => a.scheme === 'batch-settlement')!;
    expect(terms.extra).toMatchObject({ channelState: { chargedCumulativeAmount: (2n * PRICE).toString() } });
    // The official client re-syncs from those terms and pays the next call.
    expect((await payingFetch(url)).status).toBe(200);
  });

  it('20 concurrent calls on one channel: each served once or refused with the terms again; charges equal what was served', async () => {
    const { payingFetch, scheme } = buyer(30);
    expect((await payingFetch(url)).status).toBe(200);
    const terms = await batchTerms();
    const statuses = await Promise.all(Array.from({ length: 20 }, () => payingFetch(url).then(async (r) => (await r.text(), r.status))));
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const served = statuses.filter((s) => s === 200).length + 1;
    const channelId = (await import('@x402/evm/batch-settlement/client')).computeChannelId(scheme.buildChannelConfig(terms), chain.network);
    const rows = await ledgerOf(channelId);
    expect(rows).toHaveLength(served);
    const channel = await service.percall.store.channelStorage().get(channelId);
    expect(BigInt(channel!.chargedCumulativeAmount)).toBe(BigInt(served) * PRICE);
  });

  it('the MCP door: a tool paid with a deposit, then vouchers, read back by the client from the tool result', async () => {
    const { client: payer } = buyer(10);
    const mcp = new Client({ name: 'batch-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    await mcp.listTools();
    let blocksAfterDeposit: bigint | undefined;
    for (let i = 0; i < 5; i++) {
      const unpaid = (await mcp.callTool({ name: 'server_time', arguments: {} })) as { structuredContent?: unknown };
      const required = unpaid.structuredContent as PaymentRequired;
      const payload = await payer.createPaymentPayload({ ...required, accepts: required.accepts.filter((a) => a.scheme === 'batch-settlement') });
      const paid = (await mcp.callTool({ name: 'server_time', arguments: {}, _meta: { 'x402/payment': payload } })) as { isError?: boolean; _meta?: Record<string, unknown> };
      expect(paid.isError, `call ${i + 1}`).toBeFalsy();
      const settleResponse = paid._meta?.['x402/payment-response'] as SettleResponse;
      expect(settleResponse.success).toBe(true);
      // What an x402 MCP client does with the result: the scheme counts its next voucher from it.
      await payer.handlePaymentResponse({ paymentPayload: payload, requirements: payload.accepted, settleResponse });
      if (i === 0) blocksAfterDeposit = await blockNumber();
    }
    expect(await blockNumber()).toBe(blocksAfterDeposit);
    await mcp.close();
  });

  /** The buyer's own transaction on the channel contract (a timed withdrawal). */
  async function payerSends(functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]): Promise<void> {
    const client = publicClient();
    const wallet = createWalletClient({ account: privateKeyToAccount(chain.buyer.privateKey), chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl) });
    const { request } = await client.simulateContract({ account: wallet.account, address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName, args: args as never });
    const receipt = await client.waitForTransactionReceipt({ hash: await wallet.writeContract(request), pollingInterval: 50 });
    expect(receipt.status).toBe('success');
  }

  it('a channel idle past BATCH_REFUND_IDLE_SECS: its vouchers are claimed and the rest of its deposit goes back to the payer', async () => {
    const { payingFetch, scheme } = buyer(10);
    for (let i = 0; i < 2; i++) expect((await payingFetch(url)).status).toBe(200);
    const config = scheme.buildChannelConfig(await batchTerms());
    const channelId = (await import('@x402/evm/batch-settlement/client')).computeChannelId(config, chain.network) as Hex;
    const [deposit] = await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channelId] });
    const buyerBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address);
    // A day and more later, by the service's clock (the channel's idle time is read from it).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_401_000 });
    try {
      await service.percall.batchClaims!.runOnce();
    } finally {
      vi.useRealTimers();
    }
    // This channel (and the other idle ones of this file, same payer) paid back what was not charged.
    expect(await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channelId] })).toEqual([2n * PRICE, 2n * PRICE]);
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address)).toBeGreaterThanOrEqual(buyerBefore + deposit - 2n * PRICE);
    expect(await service.percall.store.channelStorage().get(channelId)).toBeUndefined();
    expect((await service.percall.store.batchTransactions(20)).some((t) => t.kind === 'refund' && t.channelId?.toLowerCase() === channelId.toLowerCase())).toBe(true);
  });

  // Last: it moves the chain's clock 15 minutes ahead of the payers' (their authorizations would be expired).
  it("a payer's timed withdrawal: the service's next claim round takes what was charged first; the payer gets only the rest", async () => {
    const { payingFetch, scheme } = buyer(10);
    for (let i = 0; i < 3; i++) expect((await payingFetch(url)).status).toBe(200);
    const config = scheme.buildChannelConfig(await batchTerms());
    const channelId = (await import('@x402/evm/batch-settlement/client')).computeChannelId(config, chain.network) as Hex;
    const [deposit] = await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channelId] });
    await payerSends('initiateWithdraw', [config, deposit]);
    await service.percall.batchClaims!.runOnce();
    const testClient = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
    await testClient.increaseTime({ seconds: 901 });
    await testClient.mine({ blocks: 1 });
    const buyerBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address);
    await payerSends('finalizeWithdraw', [config]);
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address)).toBe(buyerBefore + deposit - 3n * PRICE);
    const [, claimed] = await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channelId] });
    expect(claimed).toBe(3n * PRICE);
  });
});
