/** USDC has 6 decimals: 1 USD = 1,000,000 atomic units. Prices are decimal strings, never floats. */
export const USDC_DECIMALS = 6;
const USD_PATTERN = /^(\d+)(?:\.(\d{1,6}))?$/;

/** "0.01" → 10000n. Throws on anything that is not a non-negative decimal with at most 6 decimals. */
export function usdToAtomic(usd: string): bigint {
  const match = USD_PATTERN.exec(usd);
  if (!match) throw new Error(`invalid USD amount ${JSON.stringify(usd)}: expected a decimal with at most 6 decimals`);
  const whole = BigInt(match[1]!);
  const fraction = BigInt((match[2] ?? '').padEnd(USDC_DECIMALS, '0'));
  return whole * 10n ** BigInt(USDC_DECIMALS) + fraction;
}

/** 10000n → "0.01" (trailing zeros trimmed, at least two decimals). */
export function atomicToUsd(atomic: bigint | string): string {
  const value = BigInt(atomic);
  const scale = 10n ** BigInt(USDC_DECIMALS);
  const whole = value / scale;
  let fraction = (value % scale).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${whole}.${fraction}`;
}

/** Atomic units as a JSON number in USD, for reports (exact for amounts below 2^53 atomic units). */
export function atomicToUsdNumber(atomic: bigint | string): number {
  return Number(atomicToUsd(atomic));
}
