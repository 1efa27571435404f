import type { Catalogue } from '../catalogue/index.ts';
import type { AvailableProduct, ProductContext } from '../catalogue/types.ts';
import type { ChatUpstream } from '../providers/llm.ts';
import { BrowserPool } from '../providers/browser.ts';
import { safeFetch, type FetchPolicy } from '../providers/safe-fetch.ts';

/** A product may run this long at most; its signal aborts then. */
const PRODUCT_TIME_LIMIT_MS = 60_000;

/**
 * Runs products with their context: the clock, a time limit, the tier, the catalogue on sale and
 * the providers (the safe fetcher is the only way a product reaches a caller's URL). Every door,
 * paid or free, runs products through here.
 */
export class ProductRunner {
  readonly browser: BrowserPool;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly fetchPolicy: FetchPolicy,
    private readonly llm?: ChatUpstream,
  ) {
    this.browser = new BrowserPool(fetchPolicy);
  }

  run(
    product: AvailableProduct,
    input: unknown,
    tier: 'paid' | 'free',
    options: { now?: Date; metered?: ProductContext['metered']; caller?: string } = {},
  ): Promise<unknown> {
    const { now = new Date(), metered, caller } = options;
    return product.run(input, {
      now,
      caller,
      signal: AbortSignal.timeout(PRODUCT_TIME_LIMIT_MS),
      tier,
      catalogue: this.catalogue.available(),
      fetch: (url, request) => safeFetch(url, request, this.fetchPolicy),
      browser: this.browser,
      llm: this.llm,
      metered,
    });
  }
}
