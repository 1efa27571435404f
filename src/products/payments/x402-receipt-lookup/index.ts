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
  inputExample: { verification_id: 'ver_01M85E6GXSW7GXE2EQXRBPFGYP' },
  output: z.object({
    verification: verificationSchema.describe('The stored verification, unchanged since it was made'),
    confirmations_now: z.int().min(0).nullable().describe('Confirmations read now (same definition as the verification’s); null when the transaction was never mined'),
    commitment_now: z.string().nullable().describe('Solana: the signature’s commitment now; null on EVM'),
    looked_up_at: z.iso.datetime().describe('When the confirmations were read'),
  }),
  outputExample: {
    "verification": {
      "verification_id": "ver_01M85E6GXSW7GXE2EQXRBPFGYP",
      "verified": true,
      "status": "settled",
      "mechanism": "eip3009",
      "network": "eip155:31337",
      "transaction": "0x0b36d0b5ce08a4c8d5413550470abdd7c047c83cf99560ad061f78cc05909a61",
      "payer": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      "payee": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      "amount": "0.01",
      "amount_atomic": "10000",
      "asset": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "legs": [
        {
          "payer": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
          "payee": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
          "amount": "0.01",
          "amount_atomic": "10000"
        }
      ],
      "block_number": 4,
      "slot": null,
      "block_time": "2026-11-24T00:09:55.000Z",
      "confirmations": 1,
      "commitment": null,
      "checks": {
        "pay_to": {
          "expected": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
          "matches": true
        },
        "amount": {
          "expected_atomic": "10000",
          "actual_atomic": "10000",
          "matches": true
        }
      },
      "reasons": [],
      "source": "rpc",
      "verified_at": "2026-11-24T00:09:55.897Z"
    },
    "confirmations_now": 2,
    "commitment_now": null,
    "looked_up_at": "2026-11-24T00:09:56.041Z"
  },
  run: async (input, ctx) => {
    const stored = await desk(ctx).verifications.get(input.verification_id);
    if (!stored) throw new ProductInputError(`no verification ${input.verification_id} was issued here`, 404, 'verification_id', 'not-found');
    const verification = stored.record as Verification;
    const now = await confirmationsNow(verification, ctx);
    return { verification, confirmations_now: now.confirmations, commitment_now: now.commitment, looked_up_at: ctx.now.toISOString() };
  },
});
