import { SafeFetchError } from '../../providers/safe-fetch.ts';

/**
 * A product's run function failed because of what the caller asked for (bad target, unknown symbol…).
 * The gate answers with `status` as problem+json and settles nothing.
 */
export class ProductInputError extends Error {
  constructor(
    message: string,
    readonly status = 422,
    readonly field?: string,
    /** The problem's code; `input-rejected` unless set (e.g. `chain_not_configured`). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ProductInputError';
  }
}

/**
 * An upstream the product needed (a page, an API, an engine) gave no usable answer: 502, 504 when
 * it did not answer in time, 503 when our own budget of requests to it is spent for the moment. Not
 * the caller's fault and not ours to charge for: nothing is settled.
 */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status: 502 | 503 | 504 = 502,
    readonly field?: string,
    /** 503 only: seconds until trying again makes sense (the answer's Retry-After; default 1). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/**
 * A fetch that got no usable answer, as the problem the caller gets (nothing is settled): the
 * caller's target (malformed, refused, unresolvable, a redirect loop, too large) is 422; no answer
 * from a name that resolves is the upstream's failure, 504 on a timeout, else 502.
 */
export function fetchFailure(error: SafeFetchError, field = 'url'): ProductInputError | UpstreamError {
  if (error.code === 'timeout') return new UpstreamError(error.message, 504, field);
  if (error.code === 'network_error') return new UpstreamError(error.message, 502, field);
  return new ProductInputError(error.message, 422, field);
}

/** Whether a fetch failed because of the target the caller named (malformed, refused by policy, or a name that does not resolve). */
export function isCallerTarget(error: SafeFetchError): boolean {
  return error.code === 'invalid_url' || error.code === 'blocked_address' || error.code === 'unresolvable_host';
}
