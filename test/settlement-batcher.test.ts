import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseAbi, parseSignature, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../src/devchain/stack.ts';
import { DEV_ROLES, devChain, mintUsdc, usdcBalance } from '../src/devchain/contracts.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import { evmSettlementChain } from '../src/payments/settlement-chain.ts';
import { MULTICALL3_ADDRESS } from '../src/payments/settlement-batcher.ts';
import { facilitatorSettler, type SettleOutcome } from '../src/payments/settlers.ts';
import { signPayment, tamper } from './helpers/payments.ts';
import { silentLog, startTestChain } from './helpers/service.ts';

/**
 * The built-in facilitator with `batchSettlements`: `exact` settlements of different payers that
 * arrive together go out as one Multicall3 transaction, and one bad authorization among them fails
 * alone, classified by the gate's rules (settlers.ts): a failure when nothing was broadcast for it,
 * pending when its outcome is the chain's to tell. Balances are checked to the unit.
 */
let chain: DevChain;
const AMOUNT = 10_000n;
/** Ten payers of their own (a transaction carries one payment per payer), each holding test USDC. */
const payers = Array.from({ length: 10 }, () => generatePrivateKey());

beforeAll(async () => {
  chain = await startTestChain();
  for (const key of payers) await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, privateKeyToAccount(key).address, 1_000_000n);
});
afterAll(async () => {
  await chain?.stop();
});

function required(amount = AMOUNT): PaymentRequired {
  return {
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/api/v1/paid/time', description: 'time', mimeType: 'application/json' },
    accepts: [
      {
        scheme: 'exact',
        network: chain.network,
        asset: chain.usdc,
        amount: amount.toString(),
        payTo: chain.payTo,
        maxTimeoutSeconds: 300,
        extra: { name: chain.usdcName, version: chain.usdcVersion },
      },
    ],
  };
}

/** One payment from each payer. */
const signAll = () => Promise.all(payers.map((key) => signPayment(key, required())));

/** The payers' USDC together, and the pay-to's. */
async function balances(): Promise<{ payers: bigint; payTo: bigint }> {
  const each = await Promise.all(payers.map((key) => usdcBalance(chain.rpcUrl, chain.usdc, privateKeyToAccount(key).address)));
  return { payers: each.reduce((a, b) => a + b, 0n), payTo: await usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo) };
}

type BatchOptions = Exclude<NonNullable<Parameters<typeof createLocalFacilitator>[0]['batchSettlements']>, boolean>;

/** The facilitator with batching; a long window so that everything started together is one batch. */
function batching(options: BatchOptions = {}) {
  return createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey, batchSettlements: { windowMs: 300, ...options } });
}

/** The gate's settler over the facilitator: what the gate makes of each settlement's answer. */
async function settlerFor(facilitator: ReturnType<typeof createLocalFacilitator>) {
  const server = new x402ResourceServer(facilitator).register(chain.network, new ExactEvmScheme());
  await server.initialize();
  return (payload: PaymentPayload): Promise<SettleOutcome> =>
    facilitatorSettler({ server, log: silentLog, timeoutMs: 15_000 }, payload, payload.accepted as PaymentRequirements).settle(payload.accepted.amount);
}

async function transactionOf(hash: string) {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  return { tx: await client.getTransaction({ hash: hash as Hex }), receipt: await client.getTransactionReceipt({ hash: hash as Hex }) };
}

function txOf(outcome: SettleOutcome): string | undefined {
  return outcome.status === 'settled' ? outcome.settlement.transaction : undefined;
}

function authorizationOf(payload: PaymentPayload) {
  return (payload.payload as { authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex }; signature: Hex }).authorization;
}

describe('batched exact settlements', () => {
  it('ten at once, one authorization already used: nine settle in one Multicall3 transaction, the used one fails alone', async () => {
    const payloads = await signAll();
    const used = payloads[4]!;
    // Spent beforehand through a facilitator without batching.
    const plain = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: DEV_ROLES.spare.privateKey });
    expect((await plain.settle(used, used.accepted)).success).toBe(true);

    const before = await balances();
    const settle = await settlerFor(batching());
    const outcomes = await Promise.all(payloads.map((p) => settle(p)));

    // Refused before anything was broadcast for it; "already used" may be this payment's own earlier
    // broadcast, so the gate parks it as pending for the chain to tell (the reconciler finds that transfer).
    expect(outcomes[4]).toEqual({ status: 'pending', detail: 'invalid_exact_evm_nonce_already_used', txHash: undefined });
    const settled = outcomes.filter((_, i) => i !== 4);
    expect(settled.every((o) => o.status === 'settled')).toBe(true);
    const hashes = new Set(settled.map(txOf));
    expect(hashes.size).toBe(1);
    const { tx, receipt } = await transactionOf([...hashes][0]!);
    expect(tx.to?.toLowerCase()).toBe(MULTICALL3_ADDRESS.toLowerCase());
    expect(receipt.status).toBe('success');

    const after = await balances();
    expect(before.payers - after.payers).toBe(9n * AMOUNT);
    expect(after.payTo - before.payTo).toBe(9n * AMOUNT);
  });

  it('ten at once, one with a wrong signature: it fails alone (nothing moved, released), nine settle in one transaction', async () => {
    const payloads = await signAll();
    // Signed by someone else than the payer it names.
    payloads[7] = await tamper(DEV_ROLES.spare.privateKey, payloads[7]!, {});
    const before = await balances();
    const outcomes = await Promise.all(payloads.map(await settlerFor(batching())));

    const bad = outcomes[7]!;
    expect(bad.status === 'failed' && bad.result.status === 'payment_failed' && bad.result.failure.reason).toBe('invalid_exact_evm_signature');
    const settled = outcomes.filter((_, i) => i !== 7);
    expect(settled.every((o) => o.status === 'settled')).toBe(true);
    expect(new Set(settled.map(txOf)).size).toBe(1);

    const after = await balances();
    expect(before.payers - after.payers).toBe(9n * AMOUNT);
    expect(after.payTo - before.payTo).toBe(9n * AMOUNT);
  });

  it('one authorization spent elsewhere between the check and the broadcast: its call fails inside the mined batch and is pending, never settled; the rest settle', async () => {
    const payloads = await signAll();
    const victim = payloads[2]!;
    const other = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: DEV_ROLES.spare.privateKey });
    let raced = false;
    const facilitator = batching({
      // The batch passed its check; the victim's authorization lands elsewhere before the batch does.
      beforeBroadcast: async (calls) => {
        if (raced || calls.length < 2) return;
        raced = true;
        expect((await other.settle(victim, victim.accepted)).success).toBe(true);
      },
    });
    const before = await balances();
    const outcomes = await Promise.all(payloads.map(await settlerFor(facilitator)));
    expect(raced).toBe(true);

    // Not in the batch's receipt (no AuthorizationUsed of its own there): its outcome is the chain's to tell.
    const bad = outcomes[2]!;
    expect(bad.status === 'pending' && bad.detail).toBe('invalid_exact_evm_transaction_failed');
    const settled = outcomes.filter((_, i) => i !== 2);
    expect(settled.every((o) => o.status === 'settled')).toBe(true);
    const hashes = new Set(settled.map(txOf));
    expect(hashes.size).toBe(1);
    expect(bad.status === 'pending' && bad.txHash).toBe([...hashes][0]);

    // Ten moved: nine in the batch, the victim's once, by the other transaction; never twice.
    const after = await balances();
    expect(before.payers - after.payers).toBe(10n * AMOUNT);
    expect(after.payTo - before.payTo).toBe(10n * AMOUNT);
  });

  it('two payments of one payer at once go out in two transactions (one payment per payer per transaction)', async () => {
    const [first, second] = await Promise.all([signPayment(payers[0]!, required()), signPayment(payers[0]!, required(25_000n))]);
    const before = await balances();
    const outcomes = await Promise.all([first!, second!].map(await settlerFor(batching())));
    expect(outcomes.map((o) => o.status)).toEqual(['settled', 'settled']);
    expect(txOf(outcomes[0]!)).not.toBe(txOf(outcomes[1]!));
    const after = await balances();
    expect(before.payers - after.payers).toBe(35_000n);
    expect(after.payTo - before.payTo).toBe(35_000n);
  });

  it('with perPayer raised, one payer\'s payments at different prices share a transaction, each settled by its own authorization', async () => {
    const amounts = [10_000n, 25_000n, 40_000n];
    const payloads = await Promise.all(amounts.map((amount) => signPayment(payers[5]!, required(amount))));
    const before = await balances();
    const outcomes = await Promise.all(payloads.map(await settlerFor(batching({ perPayer: 3 }))));
    expect(outcomes.map((o) => o.status)).toEqual(['settled', 'settled', 'settled']);
    const hashes = new Set(outcomes.map(txOf));
    expect(hashes.size).toBe(1);
    const hash = [...hashes][0] as Hex;
    const after = await balances();
    expect(before.payers - after.payers).toBe(75_000n);
    expect(after.payTo - before.payTo).toBe(75_000n);
    // What the reconciler would read for each: its own transfer in the shared transaction.
    const reader = evmSettlementChain(chain.rpcUrl);
    for (const [i, payload] of payloads.entries()) {
      const { from, nonce } = authorizationOf(payload);
      expect(await reader.findTransfer(chain.usdc, from, nonce, hash)).toEqual({ txHash: hash, to: chain.payTo, value: amounts[i] });
    }
  });

  it('a lone settlement goes to the token directly', async () => {
    const outcome = await (await settlerFor(batching({ windowMs: 5 })))(await signPayment(payers[1]!, required()));
    expect(outcome.status).toBe('settled');
    const { tx } = await transactionOf(txOf(outcome)!);
    expect(tx.to?.toLowerCase()).toBe(chain.usdc.toLowerCase());
  });
});

describe('reading a transaction that carries several transfers of one payer', () => {
  it('the reconciler’s chain reader pairs each authorization with its own transfer, not another of the same payer', async () => {
    const large = await signPayment(payers[3]!, required(25_000n));
    const small = await signPayment(payers[3]!, required(10_000n));
    const eip3009 = parseAbi(['function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)']);
    const calls = [large, small].map((payload) => {
      const a = authorizationOf(payload);
      const { v, r, s } = parseSignature((payload.payload as { signature: Hex }).signature);
      const callData = encodeFunctionData({ abi: eip3009, functionName: 'transferWithAuthorization', args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, Number(v), r, s] });
      return { target: chain.usdc, allowFailure: false, callData };
    });
    // Sent by hand (another facilitator might batch so): both transfers in one transaction.
    const wallet = createWalletClient({ account: privateKeyToAccount(DEV_ROLES.spare.privateKey), chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({
      address: MULTICALL3_ADDRESS,
      abi: parseAbi(['struct Call3 { address target; bool allowFailure; bytes callData; }', 'function aggregate3(Call3[] calls) payable returns ((bool success, bytes returnData)[])']),
      functionName: 'aggregate3',
      args: [calls],
    });
    expect((await createPublicClient({ transport: http(chain.rpcUrl) }).waitForTransactionReceipt({ hash })).status).toBe('success');

    const reader = evmSettlementChain(chain.rpcUrl);
    for (const [payload, value] of [[small, 10_000n], [large, 25_000n]] as const) {
      const { from, nonce } = authorizationOf(payload);
      expect(await reader.findTransfer(chain.usdc, from, nonce, hash)).toEqual({ txHash: hash, to: chain.payTo, value });
      expect(await reader.findTransfer(chain.usdc, from, nonce)).toEqual({ txHash: hash, to: chain.payTo, value });
    }
  });
});
