import type { Context } from 'hono';
import { readTextLimited } from '../read-limited.ts';

export { MAX_INPUT_DEPTH, parseJsonBody, queryInput, validate, type InputResult } from '../checkout/input.ts';

/** Reads the request body up to `limit` bytes; never buffers more than that. */
export async function readBodyLimited(c: Context, limit: number): Promise<{ ok: true; text: string } | { ok: false }> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) return { ok: false };
  const text = await readTextLimited(c.req.raw.body, limit);
  return text === undefined ? { ok: false } : { ok: true, text };
}
