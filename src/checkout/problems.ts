/*
 * Problems (RFC 9457 documents) as data: every door sends the same code, status and fields, HTTP as
 * problem+json (http/problem.ts), MCP beside its tool error.
 */

/** One invalid field, named by its path (`messages.0.role`; `body` for the body as a whole). */
export interface FieldError {
  field: string;
  message: string;
}

export interface Problem {
  status: number;
  /** Short stable code; the problem `type` is derived from it. */
  code: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** RFC 9457 problem document. */
export function problemBody(problem: Problem): Record<string, unknown> {
  const { code, ...rest } = problem;
  return { type: `urn:percall:problem:${code}`, code, ...rest };
}

export const problems = {
  badRequest: (detail: string): Problem => ({ status: 400, code: 'bad-request', title: 'Bad Request', detail }),
  notFound: (path: string): Problem => ({ status: 404, code: 'not-found', title: 'Not Found', detail: `no resource at ${path}` }),
  methodNotAllowed: (method: string, allowed: string[]): Problem => ({
    status: 405,
    code: 'method-not-allowed',
    title: 'Method Not Allowed',
    detail: `${method} is not supported here; use ${allowed.join(' or ')}`,
  }),
  invalidInput: (errors: FieldError[]): Problem => ({
    status: 400,
    code: 'invalid-input',
    title: 'Invalid request input',
    detail: errors.map((e) => `${e.field}: ${e.message}`).join('; '),
    errors,
  }),
  /** Valid input this instance cannot serve (e.g. `chain_not_configured`): 422, checked before payment. */
  refusedInput: (code: string, errors: FieldError[]): Problem => ({
    status: 422,
    code,
    title: 'Input not served by this instance',
    detail: `${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}. Nothing was charged`,
    errors,
  }),
  tooLarge: (limit: number): Problem => ({
    status: 413,
    code: 'payload-too-large',
    title: 'Payload Too Large',
    detail: `the request body exceeds ${limit} bytes`,
    errors: [{ field: 'body', message: `larger than ${limit} bytes` }],
  }),
  notImplemented: (id: string, reason: string): Problem => ({
    status: 501,
    code: 'product-unavailable',
    title: 'Product not available yet',
    detail: `${id}: ${reason}. Nothing was charged.`,
  }),
  facilitatorUnavailable: (detail: string): Problem => ({
    status: 503,
    code: 'payment-facilitator-unavailable',
    title: 'Payment facilitator unavailable',
    detail: `${detail}. Nothing was charged; retry later.`,
  }),
  storeUnavailable: (): Problem => ({
    status: 503,
    code: 'payment-database-unavailable',
    title: 'Payment database unavailable',
    detail: 'payments cannot be recorded right now. Nothing was charged; retry later.',
  }),
  serviceUnavailable: (detail: string): Problem => ({
    status: 503,
    code: 'payment-service-unavailable',
    title: 'Payment service unavailable',
    detail: `${detail}. Nothing was charged; retry later.`,
  }),
  settlementPending: (): Problem => ({
    status: 503,
    code: 'settlement-pending',
    title: 'Settlement outcome unknown',
    detail: 'the settlement was submitted but not confirmed in time; no result was released and the payment is being reconciled',
  }),
  productFailed: (id: string): Problem => ({
    status: 502,
    code: 'product-failed',
    title: 'The product could not produce a result',
    detail: `${id} failed; the payment was not settled, nothing was charged`,
  }),
  /** A request addressed to a Host, or sent from a browser Origin, that is not a name of this service (DNS rebinding, cross-site). */
  forbiddenSource: (what: 'host' | 'origin', value: string): Problem => ({
    status: 403,
    code: `forbidden-${what}`,
    title: what === 'host' ? 'Forbidden Host' : 'Forbidden Origin',
    detail: `${what === 'host' ? 'Host' : 'Origin'} ${JSON.stringify(value.slice(0, 100))} is not a name of this service; nothing was served or charged`,
  }),
  idempotencyConflict: (detail: string): Problem => ({
    status: 409,
    code: 'idempotency-conflict',
    title: 'Idempotency key conflict',
    detail: `${detail}; nothing was charged`,
  }),
  rateLimited: (bucket: string, limit: number, windowSeconds: number): Problem => ({
    status: 429,
    code: 'rate-limited',
    title: 'Too Many Requests',
    detail: `at most ${limit} ${bucket} requests per ${windowSeconds} s from one client; retry after the time in Retry-After`,
  }),
  internal: (): Problem => ({ status: 500, code: 'internal-error', title: 'Internal Server Error', detail: 'nothing was charged' }),
};
