/**
 * A bounded pool of concurrent sandbox runs: `concurrency` at once, up to `queueLimit` waiting (each
 * at most `queueWaitMs`). Beyond the queue, or after the wait, the caller is told to come back
 * (PoolBusyError, answered 503 with Retry-After and never charged).
 */
export class PoolBusyError extends Error {
  override name = 'PoolBusyError';
  constructor(
    message: string,
    /** Seconds after which a retry has a fair chance. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export interface PoolLimits {
  concurrency: number;
  queueLimit: number;
  queueWaitMs: number;
  /** Suggested Retry-After when refused. */
  retryAfterSeconds: number;
}

interface Waiter {
  grant(release: () => void): void;
  refuse(error: Error): void;
}

export class RunPool {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly limits: PoolLimits) {}

  /** Runs `task` in a slot, waiting in the queue if needed. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  get stats(): { active: number; queued: number } {
    return { active: this.active, queued: this.waiting.length };
  }

  private acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.limits.concurrency) return Promise.resolve(this.slot());
    if (this.waiting.length >= this.limits.queueLimit) {
      return Promise.reject(new PoolBusyError(`all ${this.limits.concurrency} sandboxes are busy and ${this.limits.queueLimit} runs are waiting`, this.limits.retryAfterSeconds));
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        grant: (release) => {
          leave();
          resolve(release);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const timer = setTimeout(() => waiter.refuse(new PoolBusyError(`no sandbox became free within ${this.limits.queueWaitMs} ms`, this.limits.retryAfterSeconds)), this.limits.queueWaitMs);
      const aborted = () => waiter.refuse(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', aborted, { once: true });
      this.waiting.push(waiter);
    });
  }

  private slot(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      // Hand the slot straight to the first waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting[0];
      if (next) next.grant(this.slot());
    };
  }
}
