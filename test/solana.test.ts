import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { x402Facilitator } from '@x402/core/facilitator';
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements, SupportedResponse } from '@x402/core/types';
import { SOLANA_DEVNET_CAIP2, USDC_DEVNET_ADDRESS, toFacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { ExactSvmScheme as ExactSvmServerScheme } from '@x402/svm/exact/server';
import { startSolanaDevChain, type SolanaDevChain } from '../src/devchain/solana.ts';
import { SLOT_MS } from '../src/devchain/solana-rpc.ts';
import { registerSvmFacilitator } from '../src/payments/svm-facilitator.ts';

const PRICE = 10_000n; // $0.01 in USDC atomic units

/** The official in-process facilitator, wrapped as a FacilitatorClient like src/payments/facilitator.ts does. */
async function localFacilitator(chain: SolanaDevChain): Promise<FacilitatorClient & { feePayer: string }> {
  const facilitator = new x402Facilitator();
  const { feePayer } = await registerSvmFacilitator(facilitator, {
    rpcUrl: chain.rpcUrl,
    network: chain.network,
    feePayerSecretKey: chain.feePayer.secretKey,
  });
  return {
    feePayer,
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string; data?: { err?: unknown } } }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/** The unmodified official client, pointed at the shim through the scheme's own rpcUrl option. */
async function payFor(chain: SolanaDevChain, server: x402ResourceServer, requirements: PaymentRequirements[]): Promise<PaymentPayload> {
  const signer = await createKeyPairSignerFromBytes(chain.buyer.secretKey);
  const client = new x402Client().register(chain.network, new ExactSvmClientScheme(signer, { rpcUrl: chain.rpcUrl }));
  const paymentRequired = await server.createPaymentRequiredResponse(requirements, { url: 'http://localhost/api/v1/paid/time' });
  return client.createPaymentPayload(paymentRequired);
}

describe('x402 exact on Solana (LiteSVM behind a JSON-RPC shim) with the official @x402/svm schemes', () => {
  let chain: SolanaDevChain;
  let facilitator: FacilitatorClient & { feePayer: string };
  let server: x402ResourceServer;
  let requirements: PaymentRequirements;
  let payload: PaymentPayload;
  let signature: string;

  beforeAll(async () => {
    chain = await startSolanaDevChain();
    facilitator = await localFacilitator(chain);
    server = new x402ResourceServer(facilitator);
    server.register(chain.network, new ExactSvmServerScheme());
    await server.initialize();
  });
  afterAll(async () => {
    await chain?.stop();
  });

  it('runs on the SDK default devnet USDC and a funded buyer', async () => {
    expect(chain.network).toBe(SOLANA_DEVNET_CAIP2);
    expect(chain.mint).toBe(USDC_DEVNET_ADDRESS);
    expect(await chain.usdcBalance(chain.buyer.address)).toBe(1_000_000_000n);
    expect(await chain.usdcBalance(chain.payTo)).toBe(0n);
    expect(facilitator.feePayer).toBe(chain.feePayer.address);
  });

  it('(a) the resource server builds requirements with the facilitator fee payer', async () => {
    const built = await server.buildPaymentRequirements({
      scheme: 'exact',
      network: chain.network,
      payTo: chain.payTo,
      price: { amount: PRICE.toString(), asset: chain.mint },
      maxTimeoutSeconds: 60,
    });
    expect(built).toHaveLength(1);
    requirements = built[0]!;
    expect(requirements).toMatchObject({ scheme: 'exact', network: chain.network, amount: '10000', asset: chain.mint, payTo: chain.payTo });
    expect(requirements.extra.feePayer).toBe(chain.feePayer.address);

    // A money price resolves to the same mint: the SDK's devnet USDC default.
    const [byMoney] = await server.buildPaymentRequirements({ scheme: 'exact', network: chain.network, payTo: chain.payTo, price: '$0.01' });
    expect(byMoney).toMatchObject({ amount: '10000', asset: chain.mint });
  });

  it('(b) the official client signs a payment payload against the shim', async () => {
    payload = await payFor(chain, server, [requirements]);
    expect(payload.x402Version).toBe(2);
    expect(payload.accepted).toEqual(requirements);
    expect(typeof (payload.payload as { transaction?: unknown }).transaction).toBe('string');
  });

  it('(c) verify is valid, settle moves exactly the price from buyer to pay-to', async () => {
    const before = { buyer: await chain.usdcBalance(chain.buyer.address), payTo: await chain.usdcBalance(chain.payTo) };
    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: chain.buyer.address });

    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: chain.network, payer: chain.buyer.address });
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    signature = settled.transaction;

    expect(before.buyer - (await chain.usdcBalance(chain.buyer.address))).toBe(PRICE);
    expect((await chain.usdcBalance(chain.payTo)) - before.payTo).toBe(PRICE);

    const status = await rpc(chain.rpcUrl, 'getSignatureStatuses', [[signature]]);
    expect(status.result).toMatchObject({ value: [{ err: null, status: { Ok: null }, confirmationStatus: 'confirmed' }] });
  });

  it('(d) the same payload cannot be settled twice, by this facilitator or a fresh one, nor resent raw', async () => {
    const before = { buyer: await chain.usdcBalance(chain.buyer.address), payTo: await chain.usdcBalance(chain.payTo) };

    const again = await facilitator.settle(payload, requirements);
    expect(again).toMatchObject({ success: false, errorReason: 'duplicate_settlement' });

    // A second facilitator process has no settlement cache; the chain itself refuses the replay
    // (simulation in verify reports AlreadyProcessed, as a real node does).
    const fresh = await localFacilitator(chain);
    const replay = await fresh.settle(payload, requirements);
    expect(replay).toMatchObject({ success: false, errorReason: 'invalid_exact_svm_transaction_simulation_failed' });
    expect(await fresh.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_transaction_simulation_failed' });

    // The fully signed bytes (the fee payer's ed25519 signature is deterministic) resent directly.
    const feePayerSigner = toFacilitatorSvmSigner(await createKeyPairSignerFromBytes(chain.feePayer.secretKey), { defaultRpcUrl: chain.rpcUrl });
    const signed = await feePayerSigner.signTransaction((payload.payload as { transaction: string }).transaction, chain.feePayer.address as never, chain.network);
    for (const skipPreflight of [true, false]) {
      const sent = await rpc(chain.rpcUrl, 'sendTransaction', [signed, { encoding: 'base64', skipPreflight }]);
      expect(sent.error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: This transaction has already been processed', data: { err: 'AlreadyProcessed' } });
    }

    expect(await chain.usdcBalance(chain.buyer.address)).toBe(before.buyer);
    expect(await chain.usdcBalance(chain.payTo)).toBe(before.payTo);
  });

  it('(e) a payload checked against other requirements is rejected at verify', async () => {
    const fresh = await payFor(chain, server, [requirements]);
    const cheaper = { ...requirements, amount: '9999' };
    expect(await facilitator.verify({ ...fresh, accepted: cheaper }, cheaper)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_payload_amount_mismatch',
    });
    const elsewhere = { ...requirements, payTo: chain.buyer.address };
    expect(await facilitator.verify({ ...fresh, accepted: elsewhere }, elsewhere)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_payload_recipient_mismatch',
    });
    const otherFeePayer = { ...requirements, extra: { ...requirements.extra, feePayer: chain.buyer.address } };
    expect(await facilitator.verify({ ...fresh, accepted: otherFeePayer }, otherFeePayer)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
    });
    // The untouched payload is still good, so the rejections above were about the tampering.
    expect(await facilitator.verify(fresh, requirements)).toMatchObject({ isValid: true });
  });

  it('answers unknown methods with -32601 and serves the account wire format', async () => {
    expect((await rpc(chain.rpcUrl, 'getProgramAccounts', [chain.mint])).error).toMatchObject({ code: -32601 });
    const info = await rpc(chain.rpcUrl, 'getAccountInfo', [chain.mint, { encoding: 'base64' }]);
    expect(info.result).toMatchObject({
      context: { slot: expect.any(Number) },
      value: { owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', executable: false, space: 82, data: [expect.any(String), 'base64'] },
    });
  });
});

/** A chain of its own with the server side set up, for tests that need a particular clock or balance. */
async function standalone(options: Parameters<typeof startSolanaDevChain>[0]) {
  const chain = await startSolanaDevChain(options);
  const facilitator = await localFacilitator(chain);
  const server = new x402ResourceServer(facilitator);
  server.register(chain.network, new ExactSvmServerScheme());
  await server.initialize();
  const [requirements] = await server.buildPaymentRequirements({
    scheme: 'exact',
    network: chain.network,
    payTo: chain.payTo,
    price: { amount: PRICE.toString(), asset: chain.mint },
    maxTimeoutSeconds: 60,
  });
  return { chain, facilitator, server, requirements: requirements! };
}

describe('Solana shim: what the chain itself refuses', () => {
  it('accepts a payment signed 140 slots ago and rejects one whose blockhash is older than 150 slots', async () => {
    let now = Date.now();
    const { chain, facilitator, server, requirements } = await standalone({ now: () => now });
    try {
      const recent = await payFor(chain, server, [requirements]);
      const stale = await payFor(chain, server, [requirements]);
      now += 140 * SLOT_MS;
      expect(await facilitator.settle(recent, requirements)).toMatchObject({ success: true });

      now += 20 * SLOT_MS; // 160 slots after signing: past lastValidBlockHeight
      const verified = await facilitator.verify(stale, requirements);
      expect(verified).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_transaction_simulation_failed' });
      expect(verified.invalidMessage).toContain('BlockhashNotFound');
      expect(await chain.usdcBalance(chain.payTo)).toBe(PRICE);
    } finally {
      await chain.stop();
    }
  });

  it('rejects at verify (simulation) a payment the buyer cannot cover, and settle moves nothing', async () => {
    const { chain, facilitator, server, requirements } = await standalone({ buyerUsdc: PRICE - 1n });
    try {
      const payload = await payFor(chain, server, [requirements]);
      const verified = await facilitator.verify(payload, requirements);
      expect(verified).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_transaction_simulation_failed' });
      // SPL Token error 1 = InsufficientFunds, in instruction 2 (the TransferChecked).
      expect(verified.invalidMessage).toMatch(/\{"InstructionError":\["?2"?,\{"Custom":"?1"?\}\]\}/);
      expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: false });
      expect(await chain.usdcBalance(chain.buyer.address)).toBe(PRICE - 1n);
      expect(await chain.usdcBalance(chain.payTo)).toBe(0n);
    } finally {
      await chain.stop();
    }
  });
});
