import { withDeadline } from '../deadline.ts';
import { ProductInputError, type AvailableProduct, type ChainIndex, type ProductContext } from './kit/index.ts';
import type { ChatUpstream } from '../providers/llm.ts';
import type { ChainProviders } from '../providers/chains.ts';
import type { DataProviders } from '../providers/data.ts';
import type { BazaarMarket } from './kit/bazaar-market.ts';
import type { PaymentsDesk } from './kit/payments-desk.ts';
import type { OperatorWallet } from './kit/operator-wallet.ts';
import type { PythonRunner } from '../sandbox/python-sandbox.ts';
import { BrowserPool, type PageTimeLimits } from '../providers/browser.ts';
import { safeFetch, type FetchPolicy } from '../providers/safe-fetch.ts';

/** A product may run this long at most; its signal aborts then, and the call ends without it. */
const PRODUCT_TIME_LIMIT_MS = 60_000;

/** A precheck that takes longer is given up: the paid call decides. */
const PRECHECK_TIME_LIMIT_MS = 3_000;

/** A product did not finish within its time limit: our failure, answered 503 and never charged. */
export class ProductTimeoutError extends Error {
  override name = 'ProductTimeoutError';
}

/**
 * Runs products with their context: the clock, a time limit, the tier, the catalogue on sale and
 * the providers (the safe fetcher is the only way a product reaches a caller's URL). Every door,
 * paid or free, runs products through here.
 */
export class ProductRunner {
  readonly browser: BrowserPool;

  constructor(
    /** The catalogue (structurally: products never import it), for the products on sale. */
    private readonly catalogue: { available(): AvailableProduct[] },
    private readonly fetchPolicy: FetchPolicy,
    private readonly llm?: ChatUpstream,
    private readonly timeLimitMs = PRODUCT_TIME_LIMIT_MS,
    pageTimeLimits?: PageTimeLimits,
    /** The chains this instance reads (see providers/chains.ts). */
    private readonly chains?: ChainProviders,
    /** The block index (src/index/), when this instance runs one. */
    private readonly index?: ChainIndex,
    /** Third-party data providers (providers/data.ts). */
    private readonly data?: DataProviders,
    /** The Bazaar discovery snapshots (src/bazaar/). */
    private readonly bazaar?: BazaarMarket,
    /** Settlement verifications and this instance's payment facts (kit/payments-desk.ts). */
    private readonly payments?: PaymentsDesk,
    /** The Python sandbox (src/sandbox/), where it can run here. */
    private readonly python?: PythonRunner,
    /** The operator's wallet for paying upstream x402 sellers (src/payments/operator/), when configured. */
    private readonly operator?: OperatorWallet,
  ) {
    this.browser = new BrowserPool(fetchPolicy, undefined, pageTimeLimits);
  }

  run(
    product: AvailableProduct,
    input: unknown,
    tier: 'paid' | 'free',
    options: { now?: Date; metered?: ProductContext['metered']; caller?: string; payment?: ProductContext['payment'] } = {},
  ): Promise<unknown> {
    const { now = new Date(), metered, caller, payment } = options;
    const signal = AbortSignal.timeout(this.timeLimitMs);
    const running = product.run(input, {
      now,
      caller,
      signal,
      tier,
      catalogue: this.catalogue.available(),
      fetch: (url, request) => safeFetch(url, request, this.fetchPolicy),
      browser: this.browser,
      llm: this.llm,
      ...(this.chains ? { chains: this.chains } : {}),
      ...(this.index ? { index: this.index } : {}),
      ...(this.data ? { data: this.data } : {}),
      ...(this.bazaar ? { bazaar: this.bazaar } : {}),
      ...(this.payments ? { payments: this.payments } : {}),
      ...(this.python ? { python: this.python } : {}),
      ...(this.operator ? { operator: this.operator } : {}),
      ...(payment ? { payment } : {}),
      metered,
    });
    // The limit holds even for a product that ignores its signal: the call ends, the late result is dropped.
    return withDeadline(running, this.timeLimitMs, () => new ProductTimeoutError(`${product.id} did not finish within ${this.timeLimitMs} ms`));
  }

  /** The price of valid input now, for a product whose price depends on the world (see AvailableProduct.dynamicPrice); throws as it does. */
  dynamicPrice(product: AvailableProduct, input: unknown): Promise<string> {
    if (!product.dynamicPrice) throw new Error(`${product.id} has no dynamic price`);
    const signal = AbortSignal.timeout(PRECHECK_TIME_LIMIT_MS * 3);
    const pricing = product.dynamicPrice(input, { now: new Date(), signal, fetch: (url, request) => safeFetch(url, request, this.fetchPolicy), ...(this.operator ? { operator: this.operator } : {}) });
    return withDeadline(pricing, PRECHECK_TIME_LIMIT_MS * 3, () => new ProductTimeoutError(`${product.id}: no price within ${PRECHECK_TIME_LIMIT_MS * 3} ms`));
  }

  /** The product's refusal of valid input before payment (see AvailableProduct.precheck); undefined when it passes or cannot tell now. */
  async precheck(product: AvailableProduct, input: unknown): Promise<ProductInputError | undefined> {
    if (!product.precheck) return undefined;
    const checking = product.precheck(input, { now: new Date(), ...(this.chains ? { chains: this.chains } : {}), ...(this.index ? { index: this.index } : {}), ...(this.llm ? { llm: this.llm } : {}), ...(this.data ? { data: this.data } : {}), ...(this.bazaar ? { bazaar: this.bazaar } : {}) });
    try {
      await withDeadline(checking, PRECHECK_TIME_LIMIT_MS, () => new ProductTimeoutError(`${product.id}: precheck timed out`));
      return undefined;
    } catch (error) {
      return error instanceof ProductInputError ? error : undefined;
    }
  }
}
