/**
 * payer_profile's classes: ordered rules over a Base address's x402 payment history (USDC
 * transfers it authorised with EIP-3009, as the block index holds them); the first rule that holds
 * names the class. Published as they are at GET /api/v1/payer-profile/classes.
 */
export interface PaymentHistory {
  payments: number;
  /** Days since the first and since the last payment, at the answer's time (null without payments). */
  daysSinceFirst: number | null;
  daysSinceLast: number | null;
  last7: number;
  last30: number;
  activeDays30: number;
  sellers30: number;
  /** Median seconds between consecutive payments (null with fewer than two). */
  medianIntervalSeconds: number | null;
}

export const PAYER_CLASSES = [
  { class: 'none', rule: 'no x402 payment in the indexed history', holds: (h: PaymentHistory) => h.payments === 0 },
  { class: 'dormant', rule: 'paid before, but not in the last 30 days', holds: (h: PaymentHistory) => h.last30 === 0 },
  { class: 'new', rule: 'first payment within the last 7 days', holds: (h: PaymentHistory) => (h.daysSinceFirst ?? Infinity) < 7 },
  {
    class: 'automated',
    rule: 'at least 100 payments in the last 30 days with a median interval under 10 minutes (an agent or a program paying per call)',
    holds: (h: PaymentHistory) => h.last30 >= 100 && h.medianIntervalSeconds !== null && h.medianIntervalSeconds < 600,
  },
  { class: 'regular', rule: 'at least 10 payments in the last 30 days, on at least 5 distinct UTC days', holds: (h: PaymentHistory) => h.last30 >= 10 && h.activeDays30 >= 5 },
  { class: 'occasional', rule: 'any other payer with a payment in the last 30 days', holds: () => true },
] as const;

export type PayerClass = (typeof PAYER_CLASSES)[number]['class'];

export function classify(history: PaymentHistory): { class: PayerClass; rule: string } {
  const match = PAYER_CLASSES.find((c) => c.holds(history))!;
  return { class: match.class, rule: match.rule };
}
