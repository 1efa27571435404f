import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { withRequestId } from '../log.ts';

/** What an inbound `X-Request-Id` may be to be kept (anything else is replaced: it reaches logs). */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is a plain token), tags every log
 * line written while it is handled with it, and returns it in `X-Request-Id` so a caller can quote it.
 */
export function requestIds(): MiddlewareHandler {
  return async (c, next) => {
    const inbound = c.req.header('x-request-id');
    const id = inbound && SAFE_ID.test(inbound) ? inbound : randomUUID();
    await withRequestId(id, next);
    try {
      c.res.headers.set('x-request-id', id);
    } catch {
      // A response with immutable headers (passed through from fetch) goes without it.
    }
  };
}
