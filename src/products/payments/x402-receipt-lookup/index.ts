/**
 * x402_receipt_lookup: a verification settlement_verify stored, by its `verification_id`, as it was
 * made, with its confirmations read again now. An id never issued is 404 (field `verification_id`),
 * never charged.
 */
import { z } from 'zod';
import { ProductInputError, READ_EXTERNAL, product } from '../../kit/index.ts';
import { confirmationsNow, desk, verificationSchema, type Verification } from '../settlement-verify/verification.ts';

export const x402ReceiptLookup = product({
  id: 'x402-receipt-lookup',
  title: 'x402 receipt lookup',
  description:
    'Looks up a settlement verification by its `verification_id` and returns the stored receipt as settlement_verify made it, with its confirmations now.',
  method: 'GET',
  price: '0.002',
  annotations: READ_EXTERNAL,
  requires: ['evm:base'],
  input: z.object({
    verification_id: z.string().min(1).describe('Id returned by settlement_verify'),
  }),
  inputExample: { verification_id: 'ver_01JH7Q4W2V9M3K8T5R6Y0ZP1XA' },
  output: z.object({
    verification: verificationSchema.describe('The stored verification, unchanged since it was made'),
    confirmations_now: z.int().min(0).nullable().describe('Confirmations read now (same definition as the verification’s); null when the transaction was never mined'),
    commitment_now: z.string().nullable().describe('Solana: the signature’s commitment now; null on EVM'),
    looked_up_at: z.iso.datetime().describe('When the confirmations were read'),
  }),
  outputExample: {
    verification: {
      verification_id: 'ver_01KAQ3V6ZQ0G8Y6X1M4T2B9C7D',
      verified: true,
      status: 'settled',
      mechanism: 'eip3009',
      network: 'eip155:31337',
      transaction: '0x9e1f1c2c5e35c7b0c0b7c0e1f47d3b8a6f7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e',
      payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      payee: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      amount: '0.01',
      amount_atomic: '10000',
      asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      legs: [{ payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', payee: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', amount: '0.01', amount_atomic: '10000' }],
      block_number: 14,
      slot: null,
      block_time: '2026-01-05T10:00:14.000Z',
      confirmations: 2,
      commitment: null,
      checks: { pay_to: null, amount: null },
      reasons: [],
      source: 'rpc',
      verified_at: '2026-01-05T10:00:16.000Z',
    },
    confirmations_now: 5,
    commitment_now: null,
    looked_up_at: '2026-01-05T10:00:22.000Z',
  },
  run: async (input, ctx) => {
    const stored = await desk(ctx).verifications.get(input.verification_id);
    if (!stored) throw new ProductInputError(`no verification ${input.verification_id} was issued here`, 404, 'verification_id', 'not-found');
    const verification = stored.record as Verification;
    const now = await confirmationsNow(verification, ctx);
    return { verification, confirmations_now: now.confirmations, commitment_now: now.commitment, looked_up_at: ctx.now.toISOString() };
  },
});
