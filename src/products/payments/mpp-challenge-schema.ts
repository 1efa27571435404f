import { z } from 'zod';

/** An MPP Payment challenge as b402_preflight and mpp_admission_gate report it (payment-terms.ts checks it). */
export const mppChallengeSchema = z.object({
  id: z.string().nullable().describe('Challenge id (null when missing)'),
  method: z.string().nullable().describe('Payment method, e.g. evm, tempo'),
  intent: z.string().nullable().describe('charge (one payment) or session'),
  realm: z.string().nullable().describe('Protection space the challenge is for'),
  expires: z.string().nullable().describe('When the challenge lapses (RFC 3339)'),
  amount_atomic: z.string().nullable().describe('request.amount: atomic units of the currency'),
  currency: z.string().nullable().describe('request.currency: token contract or asset'),
  recipient: z.string().nullable().describe('request.recipient'),
  chain_id: z.int().nullable().describe('request.methodDetails.chainId, when the method names one'),
  valid: z.boolean().describe('Whether the challenge satisfies the MPP spec checks (id, realm, intent, method, unexpired expires, digest format, amount, recipient)'),
  problems: z.array(z.string()).describe('What fails (empty when valid)'),
});
