/**
 * endpoint-task-evaluation: one bounded request to a target, never paid, judged against the
 * caller's assertions. The target's body is read to check it, never returned.
 *
 * Assertions (`task_assertions`, all optional, all must hold):
 * - `expect_status`: an HTTP status or a list of them (default: any 2xx, or 402);
 * - `expect_headers`: header name → exact value, or `/regex/` to match;
 * - `json_schema`: a JSON Schema (draft 2020-12) the JSON body must satisfy;
 * - `max_latency_ms`: upper bound on the time to the complete answer;
 * - `body_contains`: a string the body must contain.
 * `payment_required` is a 402 answer; `payment_accepted` says the 402 carries a well-formed payment
 * challenge a standard client could pay (x402 v2 `PAYMENT-REQUIRED`, an x402 v1 body with `accepts`,
 * or MPP `WWW-Authenticate: Payment`). The evaluation itself never pays.
 *
 * Charging: whatever the target answers, or its failing to answer, is the evaluation the caller
 * paid for (charged): an HTTP 500, a refused connection or a timeout on a name that resolves is
 * reported in `status` (0 without an answer) and `failure_reason`. A target that is malformed,
 * refused by the address policy or whose name does not resolve was never evaluated: 422 (field
 * `target_url`), not charged.
 */
import type { z } from 'zod';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ProductInputError, fetchFailure, isCallerTarget, type ProductContext } from '../../kit/index.ts';
import { SafeFetchError, type SafeResponse } from '../../../providers/safe-fetch.ts';
import type { evaluationInput, evaluationOutput } from './index.ts';

type EvaluationInput = z.output<typeof evaluationInput>;
type TaskAssertions = NonNullable<EvaluationInput['task_assertions']>;
type Evaluation = z.infer<typeof evaluationOutput>;

/** Headers that would pay, authenticate as us, or break the one bounded request: never forwarded. */
const DROPPED_HEADERS = new Set(['payment-signature', 'x-payment', 'host', 'content-length', 'connection', 'transfer-encoding', 'upgrade']);

export async function evaluateEndpoint(input: EvaluationInput, ctx: ProductContext): Promise<Evaluation> {
  const testedAt = ctx.now.toISOString();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    const lower = name.toLowerCase();
    if (DROPPED_HEADERS.has(lower) || (lower === 'authorization' && /^payment\s/i.test(value))) continue;
    headers[lower] = value;
  }
  const method = (input.method ?? 'GET').toUpperCase();
  let body: string | undefined;
  if (input.body !== undefined && method !== 'GET' && method !== 'HEAD') {
    body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    headers['content-type'] ??= 'application/json';
  }

  // A schema that does not compile is malformed input: refused before the target is called.
  const validate = input.task_assertions?.json_schema ? compileSchema(input.task_assertions.json_schema) : undefined;

  let response: SafeResponse;
  try {
    response = await ctx.fetch(input.target_url, { method, headers, body, followRedirects: false });
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    // A malformed, refused or unresolvable target is the caller's input; an unreachable one is a finding.
    if (isCallerTarget(error)) throw fetchFailure(error, 'target_url');
    return { status: 0, payment_required: false, payment_accepted: false, response_valid: false, latency_ms: 0, schema_errors: [], failure_reason: `${error.code}: ${error.message}`, tested_at: testedAt };
  }

  const paymentRequired = response.status === 402;
  const errors = checkAssertions(response, input.task_assertions ?? {}, validate);
  return {
    status: response.status,
    payment_required: paymentRequired,
    payment_accepted: paymentRequired && hasPayableChallenge(response),
    response_valid: errors.length === 0,
    latency_ms: response.latencyMs,
    schema_errors: errors,
    failure_reason: errors.length === 0 ? null : errors[0]!,
    tested_at: testedAt,
  };
}

function checkAssertions(response: SafeResponse, assertions: TaskAssertions, validate: ValidateFunction | undefined): string[] {
  const errors: string[] = [];
  const expected = assertions.expect_status === undefined ? undefined : [assertions.expect_status].flat();
  if (expected ? !expected.includes(response.status) : !(response.status >= 200 && response.status < 300) && response.status !== 402) {
    errors.push(`status ${response.status} is not ${expected ? expected.join(' or ') : '2xx or 402'}`);
  }
  for (const [name, want] of Object.entries(assertions.expect_headers ?? {})) {
    const got = response.headers[name.toLowerCase()];
    const regex = /^\/(.*)\/([a-z]*)$/.exec(want);
    const ok = got !== undefined && (regex ? safeRegex(regex[1]!, regex[2]!)?.test(got) === true : got === want);
    if (!ok) errors.push(`header ${name} is ${got === undefined ? 'missing' : JSON.stringify(got)}, expected ${want}`);
  }
  if (assertions.max_latency_ms !== undefined && response.latencyMs > assertions.max_latency_ms) {
    errors.push(`latency ${response.latencyMs} ms exceeds ${assertions.max_latency_ms} ms`);
  }
  const text = response.body.toString('utf8');
  if (assertions.body_contains !== undefined && !text.includes(assertions.body_contains)) errors.push(`body does not contain ${JSON.stringify(assertions.body_contains)}`);
  if (validate) errors.push(...schemaErrors(text, validate));
  return errors;
}

function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  try {
    return addFormats.default(new Ajv2020({ allErrors: true, strict: false, logger: false })).compile(schema);
  } catch (error) {
    throw new ProductInputError(`task_assertions.json_schema is not a valid JSON Schema: ${(error as Error).message}`, 400, 'task_assertions.json_schema');
  }
}

function schemaErrors(text: string, validate: ValidateFunction): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return ['body is not JSON'];
  }
  if (validate(json)) return [];
  return (validate.errors ?? []).map((e) => `body${e.instancePath || ''} ${e.message ?? 'is invalid'}`);
}

/** Regexes from callers are compiled defensively and kept short (no catastrophic patterns of any size). */
function safeRegex(source: string, flags: string): RegExp | undefined {
  if (source.length > 200) return undefined;
  try {
    return new RegExp(source, flags.replace(/[^imsu]/g, ''));
  } catch {
    return undefined;
  }
}

function hasPayableChallenge(response: SafeResponse): boolean {
  const header = response.headers['payment-required'];
  if (header) {
    try {
      const required = decodePaymentRequiredHeader(header);
      return Array.isArray(required.accepts) && required.accepts.length > 0;
    } catch {
      return false;
    }
  }
  if (/^\s*Payment\s/i.test(response.headers['www-authenticate'] ?? '')) return true;
  try {
    const body = JSON.parse(response.body.toString('utf8')) as { x402Version?: number; accepts?: unknown[] };
    return typeof body.x402Version === 'number' && Array.isArray(body.accepts) && body.accepts.length > 0;
  } catch {
    return false;
  }
}
