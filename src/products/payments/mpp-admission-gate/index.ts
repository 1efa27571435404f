/**
 * mpp_admission_gate: would this payer be admitted to a paid resource, and how? One unpaid request
 * (never paying); its MPP challenges (`WWW-Authenticate: Payment`) checked against the MPP spec
 * (payment-terms.ts), and its x402 options as a second rail. A payer is admitted on the first
 * option that is valid, payable by the payer's kind of identity (an EVM address for the `evm` and
 * `tempo` methods and x402 on eip155 networks; a Solana address for `solana` and x402 on solana
 * networks; a card method such as `stripe` admits no wallet) and, with `max_amount`, costs at most
 * that. MPP challenges are preferred, x402 follows. Charged for any HTTP answer; a target that gives
 * none is 422 (the caller's) or 502/504, not charged.
 */
import { z } from 'zod';
import { isAddress } from 'viem';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { OPEN_WORLD, fetchableUrl, product, usdAmount } from '../../kit/index.ts';
import { usdToAtomic } from '../../../money.ts';
import { judgeChallenge } from '../x402-endpoint-verify/judge.ts';
import { mppChallenges, probeUnpaid, type MppChallengeCheck } from '../payment-terms.ts';
import { mppChallengeSchema } from '../mpp-challenge-schema.ts';

/** What kind of payer an identity is: an EVM address (also as did:pkh:eip155), a Solana address, or neither. */
function payerKind(payer: string): { kind: 'evm' | 'solana' | 'unknown'; address: string } {
  const pkh = /^did:pkh:(eip155|solana):[^:]+:(.+)$/.exec(payer);
  const address = pkh ? pkh[2]! : payer;
  if (isAddress(address)) return { kind: 'evm', address };
  if (isSolanaAddress(address)) return { kind: 'solana', address };
  return { kind: 'unknown', address };
}

const EVM_METHODS = new Set(['evm', 'tempo']);
const NEEDS = { evm: 'an EVM address', solana: 'a Solana address', unknown: 'a kind of payer this gate does not know' } as const;

export const mppAdmissionGate = product({
  id: 'mpp-admission-gate',
  title: 'MPP admission gate',
  description:
    "Decides whether a payer would be admitted to a paid resource under its payment terms (MPP challenges checked against the MPP spec, or x402) without paying it: returns admit or deny, the reasons, and the matching challenge or requirement to pay with.",
  price: '0.005',
  mpp: true,
  annotations: OPEN_WORLD,
  input: z.object({
    resource_url: fetchableUrl().describe('The paid resource'),
    payer: z.string().min(1).describe('Payer address or MPP identity'),
    max_amount: usdAmount().optional().describe('Most USD the payer will authorize, as a decimal string'),
  }),
  inputExample: {
    resource_url: 'https://api.example.com/api/v1/paid/time',
    payer: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
    max_amount: '0.05',
  },
  output: z.object({
    resource_url: z.string().describe('The probed URL (after redirects)'),
    http_status: z.int().describe('HTTP status of the unpaid answer'),
    admitted: z.boolean().describe('Whether the payer could pay one of the offered options within max_amount'),
    rail: z.enum(['mpp', 'x402']).nullable().describe('The rail of the matching option; null when denied'),
    method: z.string().nullable().describe('MPP method (evm, tempo…) or x402 scheme@network of the matching option'),
    matching_challenge: mppChallengeSchema.nullable().describe('The MPP challenge to pay with, when the match is MPP'),
    matching_requirement: z
      .object({ scheme: z.string(), network: z.string(), amount: z.string(), asset: z.string(), pay_to: z.string() })
      .nullable()
      .describe('The x402 requirement to pay with, when the match is x402'),
    payer_kind: z.enum(['evm', 'solana', 'unknown']).describe('What the payer identity is'),
    reasons: z.array(z.string()).describe('Why each option does not admit the payer (all of them when denied)'),
    challenges: z.array(mppChallengeSchema).describe('Every MPP challenge, checked against the spec'),
    checked_at: z.iso.datetime().describe('When the probe was made'),
  }),
  outputExample: {
    "resource_url": "http://127.0.0.1:33467/api/v1/paid/endpoint-task-evaluation",
    "http_status": 402,
    "admitted": true,
    "rail": "mpp",
    "method": "evm",
    "matching_challenge": {
      "id": "tlhTBWjeQ3q3PtRhilRMYlC6LKEViOUu4XMOXNsiaFY",
      "method": "evm",
      "intent": "charge",
      "realm": "127.0.0.1:33467",
      "expires": "2026-11-24T00:14:58.496Z",
      "amount_atomic": "10000",
      "currency": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "recipient": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      "chain_id": 31337,
      "valid": true,
      "problems": []
    },
    "matching_requirement": null,
    "payer_kind": "evm",
    "reasons": [],
    "challenges": [
      {
        "id": "tlhTBWjeQ3q3PtRhilRMYlC6LKEViOUu4XMOXNsiaFY",
        "method": "evm",
        "intent": "charge",
        "realm": "127.0.0.1:33467",
        "expires": "2026-11-24T00:14:58.496Z",
        "amount_atomic": "10000",
        "currency": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "recipient": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "chain_id": 31337,
        "valid": true,
        "problems": []
      }
    ],
    "checked_at": "2026-11-24T00:09:58.494Z"
  },
  run: async (input, ctx) => {
    const response = await probeUnpaid(input.resource_url, 'GET', ctx, 'resource_url');
    const payer = payerKind(input.payer);
    const max = input.max_amount === undefined ? undefined : usdToAtomic(input.max_amount);
    const challenges = await mppChallenges(response, ctx.now);
    const reasons: string[] = [];
    const admits = (c: MppChallengeCheck): boolean => {
      const why = [...c.problems];
      if (c.method && EVM_METHODS.has(c.method) && payer.kind !== 'evm') why.push(`method ${c.method} needs an EVM address`);
      else if (c.method === 'solana' && payer.kind !== 'solana') why.push('method solana needs a Solana address');
      else if (c.method && !EVM_METHODS.has(c.method) && c.method !== 'solana') why.push(`method ${c.method} is not paid from a wallet address`);
      if (max !== undefined && c.amount_atomic && /^\d+$/.test(c.amount_atomic)) {
        // MPP stablecoin charges are in 6-decimal units (USDC, and Tempo's USD tokens).
        if (BigInt(c.amount_atomic) > max) why.push(`costs ${c.amount_atomic} atomic units, over max_amount ${input.max_amount}`);
      }
      reasons.push(...why.map((w) => `mpp ${c.method ?? '?'}/${c.intent ?? '?'}: ${w}`));
      return why.length === 0;
    };
    const mppMatch = challenges.find(admits);
    const verdict = judgeChallenge(response);
    const x402Match = mppMatch
      ? undefined
      : verdict.accepts.find((a) => {
          const why: string[] = [];
          const family = a.network.startsWith('eip155:') || ['base', 'base-sepolia', 'polygon', 'bsc'].includes(a.network) ? 'evm' : a.network.startsWith('solana') ? 'solana' : 'unknown';
          if (family !== payer.kind) why.push(`network ${a.network} needs ${NEEDS[family]}`);
          if (!/^[1-9]\d*$/.test(a.amount)) why.push(`amount ${a.amount} is not a positive integer`);
          else if (max !== undefined && BigInt(a.amount) > max) why.push(`costs ${a.amount} atomic units, over max_amount ${input.max_amount}`);
          reasons.push(...why.map((w) => `x402 ${a.scheme}@${a.network}: ${w}`));
          return why.length === 0;
        });
    if (response.status !== 402) reasons.push(`the resource answered ${response.status}, not 402`);
    else if (challenges.length === 0 && verdict.accepts.length === 0) reasons.push('the 402 carries no MPP challenge and no x402 requirement');
    const admitted = mppMatch !== undefined || x402Match !== undefined;
    return {
      resource_url: response.url,
      http_status: response.status,
      admitted,
      rail: mppMatch ? ('mpp' as const) : x402Match ? ('x402' as const) : null,
      method: mppMatch ? mppMatch.method : x402Match ? `${x402Match.scheme}@${x402Match.network}` : null,
      matching_challenge: mppMatch ?? null,
      matching_requirement: x402Match ?? null,
      payer_kind: payer.kind,
      reasons: admitted ? [] : reasons,
      challenges,
      checked_at: ctx.now.toISOString(),
    };
  },
});
