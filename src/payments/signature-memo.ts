/**
 * Remembers which typed-data signatures were found valid, so the same check asked again (the x402
 * facilitator verifies a payment, then verifies it once more inside settle) costs a lookup instead of
 * a second secp256k1 recovery, about a tenth of a paid call's CPU here. Only `true` answers of the
 * pure, local check are kept: the answer is a function of the arguments alone, so a remembered one is
 * exactly what the check would say again. Anything else is asked every time.
 */
export function rememberValidSignatures<A>(check: (args: A) => Promise<boolean>, options: { ttlMs?: number; max?: number } = {}): (args: A) => Promise<boolean> {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const max = options.max ?? 10_000;
  const valid = new Map<string, number>();
  return async (args) => {
    const key = JSON.stringify(args, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
    const now = performance.now();
    const at = valid.get(key);
    if (at !== undefined && now - at < ttlMs) return true;
    const ok = await check(args);
    if (ok) {
      if (valid.size >= max) valid.delete(valid.keys().next().value!);
      valid.set(key, now);
    }
    return ok;
  };
}
