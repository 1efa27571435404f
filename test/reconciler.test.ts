import { describe, expect, it } from 'vitest';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../src/devchain/stack.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import type { RunningService } from '../src/runtime.ts';
import type { PaymentReservation } from '../src/store/types.ts';
import { paymentHeader, quote, settlementOf, signPayment } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

/**
 * Crashes are simulated exactly: a reservation left by an instance that is gone, in the state it
 * died in, with or without its transfer on chain. The reconciler must end each correctly.
 */
let chain: DevChain;
let service: RunningService;

// Background passes out of the way: each test runs its pass itself.
useTestService((c, s) => ((chain = c), (service = s)), { env: { RECONCILE_INTERVAL_MS: '3600000', OWNER_TIMEOUT_MS: '3600000' } });

async function paymentFor(path: string): Promise<PaymentPayload> {
  return signPayment(chain.buyer.privateKey, await quote(`${service.url}${path}`));
}

function orphanReservation(payload: PaymentPayload, overrides: Partial<PaymentReservation> = {}): PaymentReservation {
  const authorization = (payload.payload as { authorization: { from: string; validBefore: string } }).authorization;
  return {
    key: paymentKey(payload),
    product: 'time',
    surface: 'http',
    network: payload.accepted.network,
    scheme: 'exact',
    asset: payload.accepted.asset,
    payTo: payload.accepted.payTo,
    amount: payload.accepted.amount,
    payer: authorization.from,
    validBefore: Number(authorization.validBefore),
    owner: 'an-instance-that-died',
    ...overrides,
  };
}

describe('reconciliation after a crash', () => {
  it('transfer on chain, no ledger row: the row is written from the chain, and the payer collects the owed response once', async () => {
    const { store, reconciler } = service.percall;
    const payload = await paymentFor('/api/v1/paid/time');
    const reservation = orphanReservation(payload);
    await store.reservePayment(reservation);
    await store.markSettling(reservation.key);
    // The dead instance got as far as broadcasting its settlement.
    const facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey });
    const settled = await facilitator.settle(payload, payload.accepted);
    expect(settled.success).toBe(true);
    const afterCharge = await balances(chain);

    expect(await reconciler.runOnce()).toMatchObject({ settled: 1 });
    expect(await store.settlement(reservation.key)).toMatchObject({ txHash: settled.transaction, amount: '10000', payTo: chain.payTo, product: 'time' });

    // Presenting the same payment again: the owed response, no new charge.
    const url = `${service.url}/api/v1/paid/time`;
    const collected = await fetch(url, { headers: paymentHeader(payload) });
    expect(collected.status).toBe(200);
    expect(settlementOf(collected)).toMatchObject({ success: true, transaction: settled.transaction });
    expect((await collected.json()) as object).toHaveProperty('unix');
    // Exactly once.
    const again = await fetch(url, { headers: paymentHeader(payload) });
    expect(again.status).toBe(402);
    expect(((await again.json()) as { error: string }).error).toBe('payment_already_used');
    expect(await balances(chain)).toEqual(afterCharge);
  });

  it('settlement requested but never broadcast: pending until the authorization expires, then failed', async () => {
    const { store, reconciler } = service.percall;
    const payload = await paymentFor('/api/v1/paid/time');
    const live = orphanReservation(payload);
    await store.reservePayment(live);
    await store.markSettling(live.key);
    await reconciler.runOnce();
    expect(await store.paymentState(live.key)).toBe('pending');

    const expired = orphanReservation(await paymentFor('/api/v1/paid/time'), { validBefore: Math.floor(Date.now() / 1000) - 3600 });
    await store.reservePayment(expired);
    await store.markSettling(expired.key);
    await reconciler.runOnce();
    expect(await store.paymentState(expired.key)).toBe('failed');
  });

  it('a reservation that never asked for settlement is released, so the payer can use it', async () => {
    const { store, reconciler } = service.percall;
    const payload = await paymentFor('/api/v1/paid/time');
    const reservation = orphanReservation(payload);
    await store.reservePayment(reservation);
    await reconciler.runOnce();
    expect(await store.paymentState(reservation.key)).toBeUndefined();
    expect((await fetch(`${service.url}/api/v1/paid/time`, { headers: paymentHeader(payload) })).status).toBe(200);
  });

  it("this instance's own calls in flight are left alone", async () => {
    const { store, reconciler } = service.percall;
    const payload = await paymentFor('/api/v1/paid/time');
    const reservation = orphanReservation(payload, { owner: service.percall.instanceId });
    await store.reservePayment(reservation);
    await store.markSettling(reservation.key);
    expect(await reconciler.runOnce()).toMatchObject({ in_flight: 1 });
    expect(await store.paymentState(reservation.key)).toBe('settling');
    await store.releasePayment(reservation.key);
  });
});

describe('reconciliation of upto (Permit2) payments after a crash', () => {
  async function uptoPayment(): Promise<{ payload: PaymentPayload; requirements: PaymentRequirements }> {
    const [requirements] = (await service.percall.rail.server.buildPaymentRequirements({
      scheme: 'upto',
      network: chain.network,
      payTo: chain.payTo,
      price: { amount: '1000000', asset: chain.usdc, extra: { name: chain.usdcName, version: chain.usdcVersion } },
      maxTimeoutSeconds: 300,
    })) as [PaymentRequirements];
    const client = new x402Client();
    client.register(chain.network, new UptoEvmScheme(toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), createPublicClient({ transport: http(chain.rpcUrl) }))));
    client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: `${service.url}/api/v1/paid/inference`, description: 'upto', mimeType: 'application/json' }, accepts: [requirements] });
    return { payload, requirements };
  }

  function uptoReservation(payload: PaymentPayload, overrides: Partial<PaymentReservation> = {}): PaymentReservation {
    const permit = (payload.payload as { permit2Authorization: { from: string; deadline: string } }).permit2Authorization;
    return {
      key: paymentKey(payload),
      product: 'time',
      surface: 'http',
      network: payload.accepted.network,
      scheme: 'upto',
      asset: payload.accepted.asset,
      payTo: payload.accepted.payTo,
      amount: payload.accepted.amount,
      payer: permit.from,
      validBefore: Number(permit.deadline),
      owner: 'an-instance-that-died',
      ...overrides,
    };
  }

  it('nonce spent on chain: the ledger gets the charge recorded before settlement, not the authorized maximum', async () => {
    const { store, reconciler } = service.percall;
    const { payload, requirements } = await uptoPayment();
    const reservation = uptoReservation(payload);
    expect(reservation.key).toMatch(/^permit2:/);
    await store.reservePayment(reservation);
    await store.markSettling(reservation.key, '10000');
    const before = await balances(chain);
    // The dead instance's settlement of 0.01 out of the 1.00 authorized landed.
    const facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey });
    expect((await facilitator.settle(payload, { ...requirements, amount: '10000' })).success).toBe(true);
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);

    expect(await reconciler.runOnce()).toMatchObject({ settled: 1 });
    expect(await store.settlement(reservation.key)).toMatchObject({ amount: '10000', scheme: 'upto', payTo: chain.payTo, payer: reservation.payer });
  });

  it('nonce never spent and the permit expired: failed, nothing owed', async () => {
    const { store, reconciler } = service.percall;
    const { payload } = await uptoPayment();
    const reservation = uptoReservation(payload, { validBefore: Math.floor(Date.now() / 1000) - 120 });
    await store.reservePayment(reservation);
    await store.markSettling(reservation.key, '10000');
    await reconciler.runOnce();
    expect(await store.paymentState(reservation.key)).toBe('failed');
    expect(await store.settlement(reservation.key)).toBeUndefined();
  });
});

describe('ledger against the chain', () => {
  it('a ledger row whose transaction a restarted dev chain lacks is flagged, never silently kept; rows on chain are not', async () => {
    const { store, reconciler } = service.percall;
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    expect((await pay(`${service.url}/api/v1/paid/time`)).status).toBe(200);
    const onChain = (await store.ledger({ limit: 1 }))[0]!;
    const lost = { ...onChain, paymentKey: `lost-${crypto.randomUUID()}`, txHash: `0x${'ab'.repeat(32)}` };
    await store.recordSettlement(lost, { delivered: true });
    expect(await reconciler.checkLedgerAgainstChain(chain.network, 50)).toBe(1);
    const ledger = await store.ledger({ limit: 50 });
    expect(ledger.find((e) => e.paymentKey === lost.paymentKey)?.missingOnChainAt).toBeInstanceOf(Date);
    expect(ledger.find((e) => e.paymentKey === onChain.paymentKey)?.missingOnChainAt).toBeUndefined();
    // Flagged once: a second check finds nothing new.
    expect(await reconciler.checkLedgerAgainstChain(chain.network, 50)).toBe(0);
  });
});
