import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { startSolanaDevChain, type SolanaDevChain } from './solana.ts';
import { SLOT_MS } from './solana-rpc.ts';

// The shim answers getRecentPrioritizationFees from the compute-unit prices of the transactions it
// processed, per slot, as agave's prioritization-fee cache does.
describe('the Solana dev RPC: getRecentPrioritizationFees', () => {
  let clock = 1_750_000_000_000;
  let chain: SolanaDevChain;
  let rpc: ReturnType<typeof createSolanaRpc>;
  let payer: KeyPairSigner;
  const [x, y] = [0, 1].map(() => generateKeyPairSigner());

  beforeAll(async () => {
    chain = await startSolanaDevChain({ now: () => clock });
    rpc = createSolanaRpc(chain.rpcUrl);
    payer = await createKeyPairSignerFromBytes(chain.feePayer.secretKey);
  });
  afterAll(async () => chain?.stop());

  async function send(to: Address, microLamports: number | undefined, lamports: bigint): Promise<void> {
    const { value } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(value, m),
      (m) =>
        appendTransactionMessageInstructions(
          [...(microLamports === undefined ? [] : [getSetComputeUnitPriceInstruction({ microLamports })]), getTransferSolInstruction({ source: payer, destination: to, amount: lamports })],
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  }

  const fees = async (accounts: Address[] = []) =>
    (await rpc.getRecentPrioritizationFees(accounts).send()).map((e) => [Number(e.slot), Number(e.prioritizationFee)]);

  it('per slot: the smallest price, raised to the given accounts’ own minimums', async () => {
    const [X, Y] = [(await x!).address, (await y!).address];
    const first = Number(await rpc.getSlot().send());
    await send(X, 5, 1_000_000n);
    await send(Y, 50, 1_000_000n);
    clock += SLOT_MS;
    await send(X, 500, 1_000_001n);
    clock += SLOT_MS;
    await send(Y, undefined, 1_000_002n); // no SetComputeUnitPrice: 0
    expect(await fees()).toEqual([[first, 5], [first + 1, 500], [first + 2, 0]]);
    expect(await fees([Y])).toEqual([[first, 50], [first + 1, 500], [first + 2, 0]]);
    expect(await fees([X])).toEqual([[first, 5], [first + 1, 500], [first + 2, 0]]);
    expect(await fees([X, Y])).toEqual([[first, 50], [first + 1, 500], [first + 2, 0]]);
  });

  it('forgets slots older than 150 and refuses more than 128 accounts', async () => {
    clock += 151 * SLOT_MS;
    expect(await fees()).toEqual([]);
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getRecentPrioritizationFees', params: [Array(129).fill(chain.mint)] }),
    });
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });
});
