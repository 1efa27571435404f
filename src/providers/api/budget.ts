/**
 * A provider's request budget: at most `perMinute` requests in any minute (a token bucket that
 * refills continuously, bursting up to a minute's worth). It protects the operator's provider bill
 * and quota from a flood of paid calls: a request over budget is refused here, before it is sent.
 */
export class MinuteBudget {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    /** The largest burst; a minute's worth unless a provider limits requests per second. */
    private readonly capacity = perMinute,
  ) {
    this.tokens = capacity;
    this.last = now();
  }

  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 60_000) * this.perMinute);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Seconds until one request fits again (0 when it fits now). */
  retryAfterSeconds(): number {
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.perMinute) * 60);
  }
}
