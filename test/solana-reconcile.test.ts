import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyPairSignerFromBytes, getBase58Decoder } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload } from '@x402/core/types';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { randomBytes } from 'node:crypto';
import { startSolanaDevChain, type SolanaDevChain } from '../src/devchain/solana.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import type { RunningService } from '../src/runtime.ts';
import { paymentHeader } from './helpers/payments.ts';
import { startTestChain, startTestService } from './helpers/service.ts';

/**
 * A Solana settlement whose outcome the call could not learn (the broadcast went out, confirmation
 * did not come back) is resolved from the chain by its signature: landed ⇒ a ledger row and one
 * owed response; never seen and its blockhash expired ⇒ failed, nothing moved.
 */
describe('Solana settlements of unknown outcome', () => {
  let chain: DevChain;
  let solana: SolanaDevChain;
  let service: RunningService;
  let skewMs = 0;
  /** How the wrapped facilitator answers a Solana settle. */
  let mode: 'real' | 'landed-unconfirmed' | 'never-sent' = 'real';
  let lastPayment: PaymentPayload | undefined;
  const broadcast = new Map<string, string>();

  const pendingAnswer = (network: string, transaction: string) => ({ success: false, errorReason: 'settlement_pending', transaction, network, payer: '' }) as Awaited<ReturnType<FacilitatorClient['settle']>>;
  const wrap = (f: FacilitatorClient): FacilitatorClient => ({
    verify: (p, r) => f.verify(p, r),
    getSupported: () => f.getSupported(),
    settle: async (p, r) => {
      if (!r.network.startsWith('solana:') || mode === 'real') return f.settle(p, r);
      if (mode === 'never-sent') return pendingAnswer(r.network, getBase58Decoder().decode(randomBytes(64)));
      // The SDK asks once more after a pending answer; a facilitator still without confirmation answers the same.
      const key = paymentKey(p);
      const signature = broadcast.get(key) ?? (await f.settle(p, r)).transaction;
      broadcast.set(key, signature);
      return pendingAnswer(r.network, signature);
    },
  });

  beforeAll(async () => {
    chain = await startTestChain();
    solana = await startSolanaDevChain({ now: () => Date.now() + skewMs });
    service = await startTestService({ chain, solanaDevChain: solana, wrapFacilitator: wrap, env: { RECONCILE_INTERVAL_MS: '3600000' } });
  });
  afterAll(async () => {
    await service?.stop();
    await solana?.stop();
    await chain?.stop();
  });

  async function payTime(): Promise<Response> {
    const signer = await createKeyPairSignerFromBytes(solana.buyer.secretKey);
    const client = new x402Client().register(solana.network as `${string}:${string}`, new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl }));
    client.onAfterPaymentCreation(async ({ paymentPayload }) => void (lastPayment = paymentPayload));
    return wrapFetchWithPayment(fetch, client)(`${service.url}/api/v1/paid/time`);
  }
  const buyerBalance = () => solana.usdcBalance(solana.buyer.address);

  it('landed but unconfirmed: settled from its signature at once, the payer gets its response once', async () => {
    mode = 'landed-unconfirmed';
    const before = await buyerBalance();
    // The gate asks the chain at once: the signature landed, so the result is served now.
    const first = await payTime();
    expect(first.status).toBe(200);
    expect((await first.json()) as object).toHaveProperty('unix');
    const key = paymentKey(lastPayment!);
    expect(before - (await buyerBalance())).toBe(10_000n);
    expect(await service.percall.store.settlement(key)).toMatchObject({ amount: '10000', network: solana.network, payTo: solana.payTo, payer: solana.buyer.address, txHash: broadcast.get(key) });
    const again = await fetch(`${service.url}/api/v1/paid/time`, { headers: paymentHeader(lastPayment!) });
    expect(decodePaymentRequiredHeader(again.headers.get('payment-required')!).error).toBe('payment_already_used');
    expect(before - (await buyerBalance())).toBe(10_000n);
  });

  it('never landed: pending while its blockhash is valid, failed once the chain expires it; nothing moved', async () => {
    mode = 'never-sent';
    const before = await buyerBalance();
    expect((await payTime()).status).toBe(503);
    const key = paymentKey(lastPayment!);
    expect(await service.percall.reconciler.runOnce()).toMatchObject({ unresolved: 1 });
    expect(await service.percall.store.paymentState(key)).toBe('pending');

    skewMs += 200 * 400; // 200 slots later: past the 150-block lifetime of its blockhash
    expect(await service.percall.reconciler.runOnce()).toMatchObject({ failed: 1 });
    expect(await service.percall.store.paymentState(key)).toBe('failed');
    expect(await service.percall.store.settlement(key)).toBeUndefined();
    expect(await buyerBalance()).toBe(before);
  });
});
