/**
 * Settles like `work`, or rejects with `onTimeout()` once `ms` have passed, whichever comes first.
 * The work itself is not stopped (pass it an AbortSignal for that); a late failure is swallowed, as
 * nobody is left to hear it. The timer never keeps the process alive.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
