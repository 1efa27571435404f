// x402 `batch-settlement` end to end on a fresh anvil: the official @x402/evm batch-settlement client, server
// and facilitator schemes (driven through the official x402Client / x402ResourceServer, as our gate drives
// exact and upto) against our own channel contract and deposit collectors (src/devchain/batch-settlement.ts).
// One deposit transaction opens a channel; then vouchers are verified and charged with no chain work at all;
// the channel manager claims and settles in two transactions; refunds and timed withdrawals return the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { x402Client } from '@x402/core/client';
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme as BatchClientScheme, computeChannelId } from '@x402/evm/batch-settlement/client';
import { BatchSettlementEvmScheme as BatchServerScheme, InMemoryChannelStorage } from '@x402/evm/batch-settlement/server';
import { paymentMiddleware } from '@x402/hono';
import { createPublicClient, createTestClient, createWalletClient, http, isHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  BATCH_SETTLEMENT_ADDRESS,
  batchSettlementAbi,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  installBatchSettlementContracts,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
} from '../src/devchain/batch-settlement.ts';
import { devChain, USDC_EIP712, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import { startTestChain } from './helpers/service.ts';

const SCHEME = 'batch-settlement';
const PRICE = 1_000n; // the most one call may cost: 0.001 USDC
const DEPOSIT = 50_000n; // what the first payment locks in the channel (announced as extra.minDeposit)
const RESOURCE = { url: 'http://127.0.0.1/api/v1/paid/batch', description: 'batch-settlement test', mimeType: 'application/json' };
const WITHDRAW_DELAY = 900;
/** What Bob's Permit2 channel is charged (claimed later, with Carol's). */
const BOB_CHARGED = 1_010n;

let chain: DevChain;
let facilitator: FacilitatorClient & { address: Hex };
/** Calls that reached the facilitator (every one of them is chain work: a read, a simulation or a transaction). */
const facilitatorCalls = { verify: 0, settle: 0 };
let resourceServer: x402ResourceServer;
let serverScheme: BatchServerScheme;
let storage: InMemoryChannelStorage;
let requirements: PaymentRequirements;
/** JSON-RPC requests the buyer's client made (it reads the channel once, when it has no local record). */
let buyerRpcRequests = 0;

function publicClient() {
  return createPublicClient({ chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl), cacheTime: 0 });
}

function channelOnChain(channelId: Hex) {
  return publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channelId] });
}

/** One buyer: the official client scheme in an x402Client, whose deposits can be switched off. */
function buyer(salt?: Hex) {
  const transport = http(chain.rpcUrl, { onFetchRequest: () => void buyerRpcRequests++ });
  const signer = toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), createPublicClient({ chain: devChain(chain.rpcUrl, chain.chainId), transport }));
  const state = { allowDeposit: true };
  const scheme = new BatchClientScheme(signer, { ...(salt ? { salt } : {}), depositStrategy: () => (state.allowDeposit ? undefined : false) });
  const client = new x402Client().register(chain.network, scheme);
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  const channelId = computeChannelId(scheme.buildChannelConfig(requirements), chain.network) as Hex;
  return { scheme, client, state, channelId };
}
type Buyer = ReturnType<typeof buyer>;

interface Paid {
  payload: PaymentPayload;
  accepted: PaymentRequirements;
  verified: VerifyResponse;
  settled?: SettleResponse;
}

/**
 * One paid call the way a resource server runs it: 402 terms → client payload → match → verify → (serve) →
 * settle with the actual charge (`settlementOverrides.amount`, at most the quoted price) → client reads the answer.
 */
async function pay(who: Buyer, charge: bigint, accepts: PaymentRequirements = requirements): Promise<Paid> {
  const paymentRequired = await resourceServer.createPaymentRequiredResponse([accepts], RESOURCE);
  const payload = await who.client.createPaymentPayload(paymentRequired);
  const accepted = resourceServer.findMatchingRequirements([accepts], payload);
  if (!accepted) throw new Error('the payload matches no offered requirement');
  const verified = await resourceServer.verifyPayment(payload, accepted);
  if (!verified.isValid) return { payload, accepted, verified };
  const settled = await resourceServer.settlePayment(payload, accepted, undefined, undefined, { amount: charge.toString() });
  await who.client.handlePaymentResponse({ paymentPayload: payload, requirements: accepted, settleResponse: settled });
  return { payload, accepted, verified, settled };
}

async function quote(amount: bigint, extra: Record<string, unknown> = {}): Promise<PaymentRequirements> {
  const [accepts] = await resourceServer.buildPaymentRequirements({
    scheme: SCHEME,
    network: chain.network,
    payTo: chain.payTo,
    price: { amount: amount.toString(), asset: chain.usdc, extra: { ...USDC_EIP712, ...extra } },
    maxTimeoutSeconds: 60,
    extra: { minDeposit: DEPOSIT.toString() },
  });
  return accepts!;
}

beforeAll(async () => {
  chain = await startTestChain();
  const local = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey });
  facilitator = {
    address: local.address,
    getSupported: () => local.getSupported(),
    verify: (payload, accepts) => (facilitatorCalls.verify++, local.verify(payload, accepts)),
    settle: (payload, accepts) => (facilitatorCalls.settle++, local.settle(payload, accepts)),
  };
  storage = new InMemoryChannelStorage();
  // The server signs its own claims and refunds: our facilitator advertises no receiverAuthorizer.
  serverScheme = new BatchServerScheme(chain.payTo, { storage, receiverAuthorizerSigner: privateKeyToAccount(generatePrivateKey()), withdrawDelay: WITHDRAW_DELAY });
  resourceServer = new x402ResourceServer(facilitator).register(chain.network, serverScheme);
  await resourceServer.initialize();
  requirements = await quote(PRICE);
});

afterAll(async () => {
  await chain?.stop();
});

describe('batch-settlement contracts on the dev chain', () => {
  it('are installed at the SDK addresses, idempotently, and the facilitator supports the scheme', async () => {
    const client = publicClient();
    const before = await Promise.all([BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS].map((address) => client.getCode({ address })));
    for (const code of before) expect(code?.length).toBeGreaterThan(100);
    await installBatchSettlementContracts(chain.rpcUrl);
    const after = await Promise.all([BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS].map((address) => client.getCode({ address })));
    expect(after).toEqual(before);
    expect(await client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'ERC3009_DEPOSIT_COLLECTOR' })).toBe(ERC3009_DEPOSIT_COLLECTOR_ADDRESS);
    expect(await client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'PERMIT2_DEPOSIT_COLLECTOR' })).toBe(PERMIT2_DEPOSIT_COLLECTOR_ADDRESS);

    const supported = await facilitator.getSupported();
    expect(supported.kinds).toContainEqual(expect.objectContaining({ x402Version: 2, scheme: SCHEME, network: chain.network }));
    expect(requirements.extra).toMatchObject({ withdrawDelay: WITHDRAW_DELAY, minDeposit: DEPOSIT.toString(), receiverAuthorizer: expect.any(String) });
  });
});

describe('one channel: deposit, vouchers, claim and settle, refund', () => {
  let alice: Buyer;
  let charged = 0n;
  const vouchers: Paid[] = [];

  it('the first payment deposits in one transaction, and the contract derives the SDK channel id', async () => {
    alice = buyer();
    const client = publicClient();
    expect(await client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'getChannelId', args: [alice.scheme.buildChannelConfig(requirements) as never] })).toBe(alice.channelId);
    const block = await client.getBlockNumber();
    const buyerBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address);

    const first = await pay(alice, 700n);
    expect(first.payload.payload.type).toBe('deposit');
    expect(first.verified).toMatchObject({ isValid: true, payer: chain.buyer.address });
    expect(first.settled).toMatchObject({ success: true, amount: DEPOSIT.toString(), extra: { chargedAmount: '700' } });
    expect(isHex(first.settled!.transaction) && first.settled!.transaction.length === 66).toBe(true);
    charged += 700n;

    expect(await client.getBlockNumber()).toBe(block + 1n);
    expect(await channelOnChain(alice.channelId)).toEqual([DEPOSIT, 0n]);
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address)).toBe(buyerBefore - DEPOSIT);
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, BATCH_SETTLEMENT_ADDRESS)).toBe(DEPOSIT);
    expect(await storage.get(alice.channelId)).toMatchObject({ chargedCumulativeAmount: '700', balance: DEPOSIT.toString(), totalClaimed: '0' });
  });

  it('20 vouchers are verified and charged (less than their maximum) with no chain work at all', async () => {
    const block = await publicClient().getBlockNumber();
    const calls = { ...facilitatorCalls };
    buyerRpcRequests = 0;
    for (let i = 0; i < 20; i++) {
      const charge = 100n + 37n * BigInt(i);
      const paid = await pay(alice, charge);
      expect(paid.payload.payload).toMatchObject({ type: 'voucher', voucher: { maxClaimableAmount: (charged + PRICE).toString() } });
      expect(paid.verified.isValid).toBe(true);
      expect(paid.settled).toMatchObject({ success: true, transaction: '', extra: { chargedAmount: charge.toString(), channelState: { chargedCumulativeAmount: (charged + charge).toString() } } });
      charged += charge;
      vouchers.push(paid);
    }
    expect(facilitatorCalls).toEqual(calls);
    expect(buyerRpcRequests).toBe(0);
    expect(await publicClient().getBlockNumber()).toBe(block);
    expect(await storage.get(alice.channelId)).toMatchObject({ chargedCumulativeAmount: charged.toString(), signedMaxClaimable: (charged - (100n + 37n * 19n) + PRICE).toString() });
    expect(await channelOnChain(alice.channelId)).toEqual([DEPOSIT, 0n]);
  });

  it('refuses a voucher above the deposit, and a replayed voucher with a corrective 402 the client recovers from', async () => {
    // No top-up allowed: the client signs charged + DEPOSIT, more than the channel holds.
    alice.state.allowDeposit = false;
    const tooMuch = await pay(alice, DEPOSIT, await quote(DEPOSIT));
    alice.state.allowDeposit = true;
    expect(tooMuch.payload.payload.type).toBe('voucher');
    expect(tooMuch.verified).toMatchObject({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_cumulative_exceeds_balance' });
    expect(await facilitator.verify(tooMuch.payload, tooMuch.accepted)).toMatchObject({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_cumulative_exceeds_balance' });

    for (const replayed of [vouchers[4]!.payload, vouchers[19]!.payload]) {
      const verdict = await resourceServer.verifyPayment(replayed, requirements);
      expect(verdict).toMatchObject({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_cumulative_amount_mismatch' });
      // The 402 built with the failed payload carries the server's channel state and last signed voucher.
      const corrective = await resourceServer.createPaymentRequiredResponse([requirements], RESOURCE, verdict.invalidReason, undefined, undefined, replayed);
      expect(corrective.accepts[0]!.extra).toMatchObject({ channelState: { chargedCumulativeAmount: charged.toString() }, voucherState: { signedMaxClaimable: expect.any(String) } });
      expect(await alice.client.handlePaymentResponse({ paymentPayload: replayed, requirements, paymentRequired: corrective })).toEqual({ recovered: true });
    }
    expect((await storage.get(alice.channelId))?.chargedCumulativeAmount).toBe(charged.toString());
    // The next call still pays on top of the server's count.
    const next = await pay(alice, 250n);
    expect(next.settled).toMatchObject({ success: true, transaction: '', extra: { chargedAmount: '250' } });
    charged += 250n;
  });

  it('the channel manager claims and settles: the receiver gets exactly the charges, totalClaimed equals them', async () => {
    const payToBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo);
    const block = await publicClient().getBlockNumber();
    const manager = serverScheme.createChannelManager(facilitator, chain.network, chain.usdc);
    const { claims, settle } = await manager.claimAndSettle();
    expect(claims).toEqual([{ vouchers: 1, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) }]);
    expect(settle?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await publicClient().getBlockNumber()).toBe(block + 2n);

    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo)).toBe(payToBefore + charged);
    expect(await channelOnChain(alice.channelId)).toEqual([DEPOSIT, charged]);
    expect(await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'receivers', args: [chain.payTo, chain.usdc] })).toEqual([charged, charged]);
    expect((await storage.get(alice.channelId))?.totalClaimed).toBe(charged.toString());
    // Nothing left to claim or settle.
    expect(await manager.claimAndSettle()).toEqual({ claims: [], settle: undefined });

    // On chain an old voucher is now below what was claimed.
    expect(await facilitator.verify(vouchers[4]!.payload, requirements)).toMatchObject({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_cumulative_below_claimed' });
  });

  it('the contract itself refuses claims above the voucher, with a forged signature, or from a stranger', async () => {
    const channel = (await storage.get(alice.channelId))!;
    const row = (maxClaimableAmount: bigint, totalClaimed: bigint, signature = channel.signature as Hex) => ({
      voucher: { channel: channel.channelConfig as never, maxClaimableAmount },
      signature,
      totalClaimed,
    });
    const signed = BigInt(channel.signedMaxClaimable);
    const claimAs = (account: Address, rows: ReturnType<typeof row>[]) =>
      publicClient().simulateContract({ account, address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'claim', args: [rows] });
    await expect(claimAs(chain.payTo, [row(signed, signed + 1n)])).rejects.toThrow(/ClaimExceedsCeiling/);
    await expect(claimAs(chain.payTo, [row(signed + 1n, signed + 1n)])).rejects.toThrow(/InvalidSignature/);
    await expect(claimAs(chain.buyer.address, [row(signed, signed)])).rejects.toThrow(/NotAuthorizedToClaim/);
    // A claim at or below totalClaimed is a no-op, never a decrease.
    await claimAs(chain.payTo, [row(signed, charged - 1n)]);
  });

  it('a cooperative refund through the HTTP route claims what is outstanding and returns the rest to the payer', async () => {
    const extra: bigint[] = [300n, 400n, 500n];
    for (const charge of extra) {
      expect((await pay(alice, charge)).settled).toMatchObject({ success: true, transaction: '' });
      charged += charge;
    }
    // The official refund flow is HTTP (probe 402, then a zero-charge voucher): an in-process Hono app with the
    // official middleware over the same resource server, reached through its fetch (no socket).
    const app = new Hono();
    app.use(
      paymentMiddleware(
        { 'GET /paid': { accepts: { scheme: SCHEME, network: chain.network, payTo: chain.payTo, price: { amount: PRICE.toString(), asset: chain.usdc, extra: { ...USDC_EIP712 } }, maxTimeoutSeconds: 60, extra: { minDeposit: DEPOSIT.toString() } } } },
        resourceServer,
      ),
    );
    app.get('/paid', (c) => c.json({ served: true }));
    const buyerBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address);

    const refund = await alice.scheme.refund('http://127.0.0.1/paid', { fetch: ((input: RequestInfo | URL, init?: RequestInit) => app.request(input, init)) as typeof fetch });
    expect(refund).toMatchObject({ success: true, amount: (DEPOSIT - charged).toString() });
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address)).toBe(buyerBefore + DEPOSIT - charged);
    // The outstanding vouchers were claimed in the same transaction; the channel keeps only what was claimed.
    expect(await channelOnChain(alice.channelId)).toEqual([charged, charged]);
    expect(await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'refundNonce', args: [alice.channelId] })).toBe(1n);
    expect(await storage.get(alice.channelId)).toBeUndefined();

    const payToBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo);
    await serverScheme.createChannelManager(facilitator, chain.network, chain.usdc).settle();
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo)).toBe(payToBefore + 1_200n);
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, BATCH_SETTLEMENT_ADDRESS)).toBe(0n);
  });
});

describe('deposits through Permit2, and the timed withdrawal', () => {
  it('a Permit2 deposit goes through the Permit2 collector', async () => {
    const bob = buyer('0x0000000000000000000000000000000000000000000000000000000000000002');
    const permit2Requirements = await quote(PRICE, { assetTransferMethod: 'permit2' });
    const first = await pay(bob, 1_000n, permit2Requirements);
    expect(first.payload.payload).toMatchObject({ type: 'deposit', deposit: { authorization: { permit2Authorization: { spender: PERMIT2_DEPOSIT_COLLECTOR_ADDRESS } } } });
    expect(first.settled).toMatchObject({ success: true, amount: DEPOSIT.toString() });
    expect(await channelOnChain(bob.channelId)).toEqual([DEPOSIT, 0n]);
    const next = await pay(bob, 10n, permit2Requirements);
    expect(next.settled).toMatchObject({ success: true, transaction: '', extra: { chargedAmount: '10' } });
    expect((await storage.get(bob.channelId))?.chargedCumulativeAmount).toBe(BOB_CHARGED.toString());
  });

  it('the payer withdraws what is unclaimed once the delay has passed; claims still land during it', async () => {
    const carol = buyer('0x0000000000000000000000000000000000000000000000000000000000000003');
    let charged = 0n;
    for (const charge of [500n, 300n, 300n]) {
      expect((await pay(carol, charge)).settled?.success).toBe(true);
      charged += charge;
    }
    const config = carol.scheme.buildChannelConfig(requirements) as never;
    const client = publicClient();
    const testClient = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
    const wallet = createWalletClient({ account: privateKeyToAccount(chain.buyer.privateKey), chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl) });
    const send = async (functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]) => {
      const { request } = await client.simulateContract({ account: wallet.account, address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName, args: args as never });
      const receipt = await client.waitForTransactionReceipt({ hash: await wallet.writeContract(request), pollingInterval: 50 });
      expect(receipt.status).toBe('success');
    };

    // Nothing is claimed yet, so the payer may ask for the whole deposit back.
    await expect(send('initiateWithdraw', [config, DEPOSIT + 1n])).rejects.toThrow(/WithdrawAmountExceedsAvailable/);
    await send('initiateWithdraw', [config, DEPOSIT]);
    const [, initiatedAt] = await client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'pendingWithdrawals', args: [carol.channelId] });
    expect(initiatedAt).toBeGreaterThan(0);
    await expect(send('finalizeWithdraw', [config])).rejects.toThrow(/WithdrawDelayNotElapsed/);

    // A voucher verified locally (fresh mirrored state) is still served: the server's mirror does not know of
    // the withdrawal. The facilitator, reading the chain, reports it (withdrawRequestedAt).
    const during = await pay(carol, 200n);
    expect(during.settled).toMatchObject({ success: true, transaction: '' });
    charged += 200n;
    expect(await facilitator.verify(during.payload, requirements)).toMatchObject({ isValid: true, extra: { withdrawRequestedAt: initiatedAt } });
    // The server claims within the grace period (every channel with unclaimed charges: Bob's Permit2 one too).
    expect(await serverScheme.createChannelManager(facilitator, chain.network, chain.usdc).claim()).toEqual([{ vouchers: 2, transaction: expect.any(String) }]);
    expect(await channelOnChain(carol.channelId)).toEqual([DEPOSIT, charged]);

    await testClient.increaseTime({ seconds: WITHDRAW_DELAY - 60 });
    await testClient.mine({ blocks: 1 });
    await expect(send('finalizeWithdraw', [config])).rejects.toThrow(/WithdrawDelayNotElapsed/);
    await testClient.increaseTime({ seconds: 70 });
    await testClient.mine({ blocks: 1 });
    const buyerBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address);
    await send('finalizeWithdraw', [config]);
    // Capped to what was not claimed: the claimed charges stay for the receiver.
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.buyer.address)).toBe(buyerBefore + DEPOSIT - charged);
    expect(await channelOnChain(carol.channelId)).toEqual([charged, charged]);
    expect(await client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'pendingWithdrawals', args: [carol.channelId] })).toEqual([0n, 0]);

    const payToBefore = await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo);
    await serverScheme.createChannelManager(facilitator, chain.network, chain.usdc).settle();
    expect(await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo)).toBe(payToBefore + charged + BOB_CHARGED);
  });
});
