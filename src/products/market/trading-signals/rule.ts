/**
 * The published signal rule: four inputs, each voting +1, 0 or −1; their sum is the score
 * (−4..+4); 2 or more is `bullish`, −2 or less `bearish`, anything between `neutral`. An input that
 * is missing (no price on CoinGecko, no DEX volume in the window) votes 0 and says so.
 */

export const THRESHOLDS = {
  change24hPct: 2,
  change7dPct: 5,
  buyShareHigh: 0.55,
  buyShareLow: 0.45,
  score: 2,
} as const;

export const RULE_TEXT =
  `score = sum of four votes (+1, 0, −1): 24-hour price change ≥ +${THRESHOLDS.change24hPct}% (+1) or ≤ −${THRESHOLDS.change24hPct}% (−1); ` +
  `7-day price change ≥ +${THRESHOLDS.change7dPct}% (+1) or ≤ −${THRESHOLDS.change7dPct}% (−1); ` +
  `DEX buy share of the 24-hour swap volume ≥ ${THRESHOLDS.buyShareHigh} (+1) or ≤ ${THRESHOLDS.buyShareLow} (−1); ` +
  `whales' net flow out of DEX pools in 24 hours > 0 (+1) or < 0 (−1); a missing input votes 0. ` +
  `signal: bullish when score ≥ ${THRESHOLDS.score}, bearish when ≤ −${THRESHOLDS.score}, else neutral`;

export type Vote = -1 | 0 | 1;
export type SignalName = 'bullish' | 'neutral' | 'bearish';

export interface RuleInputs {
  change24hPct: number | null;
  change7dPct: number | null;
  /** bought / (bought + sold) of the token on DEX pools in the window (6 decimals, rounded down); null without volume. */
  buyShare: number | null;
  /** Whale transfers out of DEX pools minus into them, smallest unit; null without a whale threshold. */
  whaleNetFromVenues: bigint | null;
}

export interface Component {
  rule: 'price_change_24h' | 'price_change_7d' | 'dex_buy_share' | 'whale_net_flow';
  /** The input as read (a number, a decimal string for an amount), or null when missing. */
  input: number | string | null;
  vote: Vote;
  /** Where the input comes from. */
  evidence: string;
}

/** +1 at or above `high`, −1 at or below `low`, else (or missing) 0. */
const band = (value: number | null, high: number, low: number): Vote => (value === null ? 0 : value >= high ? 1 : value <= low ? -1 : 0);

export function applyRule(inputs: RuleInputs, evidence: Record<Component['rule'], string>): { signal: SignalName; score: number; components: Component[] } {
  const net = inputs.whaleNetFromVenues;
  const components: Component[] = [
    { rule: 'price_change_24h', input: inputs.change24hPct, vote: band(inputs.change24hPct, THRESHOLDS.change24hPct, -THRESHOLDS.change24hPct), evidence: evidence.price_change_24h },
    { rule: 'price_change_7d', input: inputs.change7dPct, vote: band(inputs.change7dPct, THRESHOLDS.change7dPct, -THRESHOLDS.change7dPct), evidence: evidence.price_change_7d },
    { rule: 'dex_buy_share', input: inputs.buyShare, vote: band(inputs.buyShare, THRESHOLDS.buyShareHigh, THRESHOLDS.buyShareLow), evidence: evidence.dex_buy_share },
    { rule: 'whale_net_flow', input: net === null ? null : net.toString(), vote: net === null || net === 0n ? 0 : net > 0n ? 1 : -1, evidence: evidence.whale_net_flow },
  ];
  const score = components.reduce((sum, c) => sum + c.vote, 0);
  const signal: SignalName = score >= THRESHOLDS.score ? 'bullish' : score <= -THRESHOLDS.score ? 'bearish' : 'neutral';
  return { signal, score, components };
}
