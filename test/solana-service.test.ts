import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { startSolanaDevChain, type SolanaDevChain } from '../src/devchain/solana.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { paymentHeader } from './helpers/payments.ts';
import { startTestChain, startTestService } from './helpers/service.ts';

// x402 `exact` on Solana through the whole service: the unmodified @x402/fetch client with the
// official SVM scheme pays on the in-process Solana VM; balances are read from that VM.
describe('Solana exact on the service', () => {
  let chain: DevChain;
  let solana: SolanaDevChain;
  let service: RunningService;
  let lastPayment: PaymentPayload | undefined;

  beforeAll(async () => {
    chain = await startTestChain();
    solana = await startSolanaDevChain();
    service = await startTestService({ chain, solanaDevChain: solana });
  });
  afterAll(async () => {
    await service?.stop();
    await solana?.stop();
    await chain?.stop();
  });

  async function solanaFetch(): Promise<typeof fetch> {
    const signer = await createKeyPairSignerFromBytes(solana.buyer.secretKey);
    const client = new x402Client().register(solana.network as `${string}:${string}`, new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl }));
    client.onAfterPaymentCreation(async ({ paymentPayload }) => void (lastPayment = paymentPayload));
    return wrapFetchWithPayment(fetch, client);
  }

  const solanaBalances = async () => ({ buyer: await solana.usdcBalance(solana.buyer.address), payTo: await solana.usdcBalance(solana.payTo) });

  it('offers Solana next to EVM in the 402, at the catalogue price, with the fee payer', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/time`);
    const required = decodePaymentRequiredHeader(response.headers.get('payment-required')!);
    const offer = required.accepts.find((a) => a.network === solana.network)!;
    expect(offer).toMatchObject({ scheme: 'exact', amount: '10000', asset: solana.mint, payTo: solana.payTo });
    expect(offer.extra?.feePayer).toBe(solana.feePayer.address);
    expect(required.accepts.find((a) => a.network === chain.network)?.amount).toBe('10000');
  });

  it('is paid by the official client: exactly 0.01 USDC moves in the VM, once', async () => {
    const before = await solanaBalances();
    const response = await (await solanaFetch())(`${service.url}/api/v1/paid/time`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { unix: number }).unix).toBeGreaterThan(0);
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    expect(settlement.network).toBe(solana.network);
    expect(settlement.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const after = await solanaBalances();
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);

    // The same signed transaction again: served once, nothing moves.
    const replay = await fetch(`${service.url}/api/v1/paid/time`, { headers: paymentHeader(lastPayment!) });
    expect(replay.status).toBe(402);
    expect(decodePaymentRequiredHeader(replay.headers.get('payment-required')!).error).toBe('payment_already_used');
    expect(await solanaBalances()).toEqual(after);
  });

  it('refuses a Solana payment presented on another route and price', async () => {
    const before = await solanaBalances();
    const response = await fetch(`${service.url}/api/v1/paid/echo?message=hi`, { headers: paymentHeader({ ...lastPayment!, accepted: { ...lastPayment!.accepted, amount: '1' } }) });
    expect(response.status).toBe(402);
    expect(await solanaBalances()).toEqual(before);
  });

  it('writes what a Solana client needs to dev-solana.json', () => {
    expect(service.solanaDev).toMatchObject({ network: solana.network, rpcUrl: solana.rpcUrl, mint: solana.mint, payTo: solana.payTo, buyerAddress: solana.buyer.address });
  });
});

describe('network minimums', () => {
  let chain: DevChain;
  let solana: SolanaDevChain;
  let service: RunningService;

  beforeAll(async () => {
    chain = await startTestChain();
    solana = await startSolanaDevChain();
    service = await startTestService({ chain, solanaDevChain: solana, env: { FACILITATOR_MIN_USD_SOLANA: '0.02' } });
  });
  afterAll(async () => {
    await service?.stop();
    await solana?.stop();
    await chain?.stop();
  });

  it('leaves out a network whose minimum is above the price, and x402.json says why', async () => {
    const required = decodePaymentRequiredHeader((await fetch(`${service.url}/api/v1/paid/time`)).headers.get('payment-required')!);
    expect(required.accepts.map((a) => [a.network, a.scheme])).toEqual([
      [chain.network, 'exact'],
      [chain.network, 'batch-settlement'],
    ]);
    const catalogue = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as {
      networkMinimums: { network: string; minimumUsd: string; note: string }[];
      resources: { id: string; networks: string[]; excludedNetworks?: { network: string; reason: string; detail: string }[] }[];
    };
    expect(catalogue.networkMinimums.find((m) => m.network === solana.network)).toMatchObject({ minimumUsd: '0.02' });
    const time = catalogue.resources.find((r) => r.id === 'time')!;
    expect(time.networks).toEqual([chain.network]);
    expect(time.excludedNetworks).toEqual([
      { network: solana.network, scheme: 'exact', reason: 'below_network_minimum', detail: expect.stringContaining('0.02 USD') },
    ]);
  });
});
