/**
 * wallet-spy's heuristic risk score: 0–100, the sum of the points of the rules that fire, capped at
 * 100. Heuristics over what the index shows, not a verdict: each fired rule is listed with its
 * evidence so the caller can judge. The rules are published in the product's description.
 */
import { z } from 'zod';

export interface RiskFacts {
  /** Days since the wallet's first indexed activity; null when it has none. */
  ageDays: number | null;
  /** Whether the index reaches back far enough for the age to mean anything (genesis, or older than NEW_WALLET_DAYS). */
  ageKnown: boolean;
  sent: number;
  failed: number;
  /** Distinct recipients of its ERC-20 transfers in the window. */
  recipients: number;
  /** Tokens received in the window that it never sent in the window. */
  unsolicitedTokens: number;
  /** The most transactions it sent on one UTC day of the window. */
  busiestDay: number;
  /** Per token in the window: received and sent (smallest units) and transfer counts. */
  flows: { token: string; amountIn: bigint; amountOut: bigint; transfersIn: number; transfersOut: number }[];
}

export const NEW_WALLET_DAYS = 7;

interface Rule {
  id: string;
  points: number;
  /** What fires it, in words (the description publishes these). */
  when: string;
  /** The evidence when it fires, else undefined. */
  test(f: RiskFacts): string | undefined;
}

export const RISK_RULES: readonly Rule[] = [
  {
    id: 'new_wallet',
    points: 25,
    when: `first activity < ${NEW_WALLET_DAYS} days ago`,
    test: (f) => (f.ageKnown && f.ageDays !== null && f.ageDays < NEW_WALLET_DAYS ? `first seen ${f.ageDays.toFixed(1)} days ago` : undefined),
  },
  {
    id: 'pass_through',
    points: 20,
    when: 'a token with ≥2 transfers in and out and ≥90% of its inflow sent on',
    test: (f) => {
      const hit = f.flows.find((t) => t.transfersIn >= 2 && t.transfersOut >= 2 && t.amountIn > 0n && t.amountOut * 10n >= t.amountIn * 9n);
      return hit ? `token ${hit.token}: ${hit.amountOut} out of ${hit.amountIn} received was sent on` : undefined;
    },
  },
  {
    id: 'fan_out',
    points: 15,
    when: 'tokens sent to ≥20 addresses',
    test: (f) => (f.recipients >= 20 ? `sent tokens to ${f.recipients} distinct addresses` : undefined),
  },
  {
    id: 'failed_transactions',
    points: 15,
    when: '≥3 sent, ≥25% reverted',
    test: (f) => (f.sent >= 3 && f.failed * 4 >= f.sent ? `${f.failed} of ${f.sent} transactions reverted` : undefined),
  },
  {
    id: 'burst_activity',
    points: 15,
    when: '≥50 transactions sent on one UTC day',
    test: (f) => (f.busiestDay >= 50 ? `${f.busiestDay} transactions sent on one day` : undefined),
  },
  {
    id: 'unsolicited_tokens',
    points: 10,
    when: '≥5 tokens received, never sent',
    test: (f) => (f.unsolicitedTokens >= 5 ? `${f.unsolicitedTokens} tokens received and never sent` : undefined),
  },
];

/** The rules as one sentence each, for the product's description. */
export const RISK_RULES_TEXT = RISK_RULES.map((r) => `${r.id} +${r.points} (${r.when})`).join('; ');

export const riskFactorSchema = () =>
  z.object({
    rule: z.enum(RISK_RULES.map((r) => r.id) as [string, ...string[]]).describe('Rule'),
    points: z.int().min(1).describe('Points'),
    detail: z.string().describe('Evidence'),
  });

export function riskScore(facts: RiskFacts): { score: number; level: 'low' | 'medium' | 'high'; factors: { rule: string; points: number; detail: string }[] } {
  const factors = RISK_RULES.flatMap((rule) => {
    const detail = rule.test(facts);
    return detail === undefined ? [] : [{ rule: rule.id, points: rule.points, detail }];
  });
  const score = Math.min(100, factors.reduce((sum, f) => sum + f.points, 0));
  return { score, level: score >= 60 ? 'high' : score >= 25 ? 'medium' : 'low', factors };
}
