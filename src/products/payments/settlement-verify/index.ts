/**
 * settlement_verify: proves on chain that an x402-style USDC settlement happened (see evm.ts and
 * solana.ts for the mechanisms), checks it against an expected recipient and amount, and stores the
 * answer under its `verification_id` (x402_receipt_lookup reads it back). Every answer is charged
 * and stored, "not a settlement", "reverted" and "not found" included: they are what the caller
 * paid to learn. A network this instance does not read is 422 (field `network`), never charged.
 */
import { OPEN_WORLD, product } from '../../kit/index.ts';
import { desk, verificationSchema, verify, verifyInput } from './verification.ts';

export const settlementVerify = product({
  id: 'settlement-verify',
  title: 'Settlement verify',
  description:
    'Verifies on chain that a transaction is an x402-style USDC settlement (EIP-3009 authorization, Permit2 witness transfer, batch-settlement claim, or SPL transfer on Solana) and returns what it proves (payer, payee, amount, block, confirmations), checked against an expected recipient and amount, with a `verification_id` for later lookup.',
  price: '0.01',
  annotations: OPEN_WORLD,
  requires: ['evm:base'],
  input: verifyInput,
  inputExample: {
    "transaction": "0x0b36d0b5ce08a4c8d5413550470abdd7c047c83cf99560ad061f78cc05909a61",
    "network": "eip155:31337",
    "pay_to": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "amount": "10000"
  },
  output: verificationSchema,
  outputExample: {
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
  run: async (input, ctx) => {
    const records = desk(ctx).verifications;
    const verification = await verify(input, ctx);
    await records.save({ id: verification.verification_id, network: verification.network, transaction: verification.transaction, record: verification, verifiedAt: ctx.now });
    return verification;
  },
});
