import { describeError, type Logger } from '../log.ts';
import type { Store } from './types.ts';

/**
 * Deletes expired state on a schedule (registrations past their 200 days, proof nonces, revocations,
 * used wallet-proof nonces, old rate-limit windows), so free routes that create state cannot grow
 * the store for good. Every instance may run it: the deletes are idempotent. Returns a stop function.
 */
export function startPurging(store: Store, intervalMs: number, log: Logger): () => void {
  const purge = async () => {
    try {
      const purged = await store.purgeExpired();
      if (Object.values(purged).some((n) => n > 0)) log.info({ purged }, 'expired state purged');
    } catch (error) {
      log.warn({ err: describeError(error) }, 'purging expired state failed; will retry');
    }
  };
  void purge();
  const timer = setInterval(() => void purge(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
