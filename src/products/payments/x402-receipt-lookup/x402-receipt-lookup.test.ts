import { describe, expect, it } from 'vitest';
import { fakeChains, fakeContext, stubEvmChain, stubSolanaChain } from '../../kit/fake-context.ts';
import type { StoredVerification } from '../../kit/index.ts';
import { x402ReceiptLookup } from './index.ts';

const example = x402ReceiptLookup.outputExample as { verification: Record<string, unknown> };
const evmRecord = { ...example.verification, network: 'eip155:8453', block_number: 16 };
const solanaRecord = { ...example.verification, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', transaction: '5'.repeat(88), block_number: null, slot: 100, mechanism: 'spl-transfer' };
const pendingRecord = { ...evmRecord, status: 'pending', block_number: null, confirmations: 0 };
const rows: Record<string, StoredVerification> = Object.fromEntries(
  [['ver_EVM', evmRecord], ['ver_SOL', solanaRecord], ['ver_PENDING', pendingRecord]].map(([id, record]) => [id, { id, network: (record as { network: string }).network, transaction: 't', record: record as Record<string, unknown>, verifiedAt: new Date(0) }]),
);

const lookup = (id: string) =>
  x402ReceiptLookup.run(
    { verification_id: id },
    fakeContext({
      chains: fakeChains({ evm: [stubEvmChain({ eth_blockNumber: '0x20' })], solana: stubSolanaChain({ getSlot: 140, getSignatureStatuses: { context: { slot: 140 }, value: [{ slot: 100, confirmations: null, err: null, confirmationStatus: 'finalized' }] } }) }),
      payments: { verifications: { save: async () => undefined, get: async (id) => rows[id] } },
    }),
  );

describe('x402-receipt-lookup', () => {
  it('returns the stored verification unchanged, with its confirmations now (EVM blocks, Solana slots)', async () => {
    const evm = await lookup('ver_EVM');
    expect(evm).toEqual({ verification: evmRecord, confirmations_now: 17, commitment_now: null, looked_up_at: '2025-06-01T12:00:00.000Z' });
    expect(x402ReceiptLookup.output.safeParse(evm).success).toBe(true);
    expect(await lookup('ver_SOL')).toMatchObject({ verification: solanaRecord, confirmations_now: 40, commitment_now: 'finalized' });
  });

  it('a verification never mined has no confirmations now; an unknown id is 404', async () => {
    expect(await lookup('ver_PENDING')).toMatchObject({ confirmations_now: null });
    await expect(lookup('ver_NOPE')).rejects.toMatchObject({ status: 404, field: 'verification_id' });
  });
});
