import type { z } from 'zod';
import { withinDepth } from '../json-depth.ts';
import type { FieldError } from './problems.ts';

/** A product's input after parsing and validation: the value, or the fields that are wrong. */
export type InputResult =
  | { ok: true; value: unknown }
  /** `code`: a check of this instance refused it (422, e.g. `chain_not_configured`) rather than the schema. */
  | { ok: false; status: 400 | 413 | 422; errors: FieldError[]; code?: string };

/** Parses a JSON body text; an empty body is an empty object. */
export function parseJsonBody(text: string): InputResult {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, status: 400, errors: [{ field: 'body', message: `malformed JSON (${(error as Error).message})` }] };
  }
  return withinDepth(value, MAX_INPUT_DEPTH) ? { ok: true, value } : TOO_DEEP;
}

/**
 * How deeply an input may nest. JSON.parse takes any depth, but what reads an input later recurses
 * (canonical JSON of request digests and proof hashes, JSON.stringify, schema validators) and
 * overflows the stack a few thousand levels down; genuine inputs (JSON Schemas included) nest a few levels.
 */
export const MAX_INPUT_DEPTH = 64;

const TOO_DEEP: InputResult = { ok: false, status: 400, errors: [{ field: 'body', message: `nested deeper than ${MAX_INPUT_DEPTH} levels` }] };

/** Query parameters as a flat record in their order (repeated keys keep the last value). */
export function queryInput(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  url.searchParams.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

export function validate(schema: z.ZodType, value: unknown): InputResult {
  // Inputs that did not come through parseJsonBody (MCP arguments, an order's input) are bounded here.
  if (!withinDepth(value, MAX_INPUT_DEPTH)) return TOO_DEEP;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const errors = parsed.error.issues.map((issue) => ({ field: issue.path.length ? issue.path.join('.') : 'body', message: issue.message }));
  // A custom issue may say it is not a schema error but this instance's refusal (see catalogue withUpstreams).
  const params = parsed.error.issues.map((issue) => (issue.code === 'custom' ? (issue.params as { status?: unknown; code?: unknown } | undefined) : undefined)).find((p) => p?.status === 422);
  if (params && typeof params.code === 'string') return { ok: false, status: 422, code: params.code, errors };
  return { ok: false, status: 400, errors };
}
