import { ProductInputError, UpstreamError, type Product } from '../catalogue/types.ts';
import { describeError, type Logger } from '../log.ts';
import type { GateResult } from '../payments/gate.ts';
import { ProductTimeoutError } from '../products/runner.ts';
import { problems, type Problem } from './problems.ts';
import type { ProblemResult } from './types.ts';

/** A problem answer; the plain sentence defaults to the problem's detail. */
export function problemResult(problem: Problem, extra: { message?: string; retryAfter?: number; allow?: readonly string[] } = {}): ProblemResult {
  return {
    kind: 'problem',
    problem,
    message: extra.message ?? problem.detail ?? problem.title,
    ...(extra.retryAfter !== undefined ? { retryAfter: extra.retryAfter } : {}),
    ...(extra.allow ? { allow: extra.allow } : {}),
  };
}

/** Over a per-client limit: 429 with the seconds until the window resets. */
export function rateLimited(bucket: 'proof' | 'free', limited: { problem: Problem; retryAfter: number }): ProblemResult {
  const what = bucket === 'free' ? 'free calls' : 'proof requests';
  return problemResult(limited.problem, { retryAfter: limited.retryAfter, message: `too many ${what} from this client; retry after ${limited.retryAfter} s` });
}

/**
 * A product that did not answer, on a paid or a free call (nothing charged either way): the caller's
 * input (4xx naming the field), its time limit (503), or our or an upstream's failure (502).
 * `label` names the product as the door knows it (its id, or its tool name).
 */
export function productFailure(product: Product, label: string, error: unknown, log: Logger): ProblemResult {
  if (error instanceof ProductInputError) {
    const problem: Problem = {
      status: error.status,
      code: error.code ?? 'input-rejected',
      title: 'The product rejected the input',
      detail: `${error.message}. The payment was not settled, nothing was charged`,
      ...(error.field ? { errors: [{ field: error.field, message: error.message }] } : {}),
    };
    return problemResult(problem, { message: `${error.message}. Nothing was charged` });
  }
  if (error instanceof UpstreamError) {
    log.warn({ product: product.id, status: error.status }, 'upstream failed');
    const problem: Problem = {
      status: error.status,
      code: 'upstream-failed',
      title: error.status === 504 ? 'An upstream did not answer in time' : error.status === 503 ? 'An upstream is busy' : 'An upstream gave no usable answer',
      detail: `${error.message}. The payment was not settled, nothing was charged`,
      ...(error.field ? { errors: [{ field: error.field, message: error.message }] } : {}),
    };
    return problemResult(problem, { message: `${error.message}. Nothing was charged`, ...(error.status === 503 ? { retryAfter: error.retryAfterSeconds ?? 1 } : {}) });
  }
  if (error instanceof ProductTimeoutError) {
    log.warn({ product: product.id }, 'product over its time limit');
    return problemResult(problems.serviceUnavailable(`${error.message}; nothing was charged`), { retryAfter: 30 });
  }
  log.error({ product: product.id, err: describeError(error) }, 'product failed');
  return problemResult(problems.productFailed(product.id), { message: `${label} failed; nothing was charged` });
}

/** What the gate said when it neither served nor refused the payment: every rail answers these alike. */
export function gateProblem(result: Exclude<GateResult, { status: 'served' | 'payment_failed' }>, product: Product, label: string, log: Logger): ProblemResult {
  switch (result.status) {
    case 'product_failed':
      return productFailure(product, label, result.error, log);
    case 'unavailable':
      return problemResult(problems.serviceUnavailable(result.detail), { retryAfter: 5 });
    case 'pending':
      return problemResult(problems.settlementPending(), {
        retryAfter: 30,
        message: 'the settlement was submitted but not confirmed in time; no result was released. Retry the same payment later to collect the result once it is confirmed',
      });
    case 'conflict':
      return problemResult(problems.idempotencyConflict(result.detail), {
        ...(result.inProgress ? { retryAfter: 5 } : {}),
        message: `idempotency conflict: ${result.detail}; nothing was charged`,
      });
  }
}
