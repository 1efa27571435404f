import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { problemResponse, problems } from './problem.ts';

/**
 * Every request body of every route is bounded here, before any route reads it: a declared
 * Content-Length above `limit` is refused unread; a streamed (chunked) body is counted while it is
 * read and refused as soon as it passes the limit, so at most `limit` bytes are ever held. Routes
 * then read the body as usual (`c.req.json()`, the MCP transport, the paid routes).
 *
 * A request without Content-Length and Transfer-Encoding has no body (RFC 9112 §6.3) and passes
 * untouched: asking it for its body would build a full fetch Request under @hono/node-server.
 */
export function boundedBodies(limit: number): MiddlewareHandler {
  const bounded = bodyLimit({ maxSize: limit, onError: () => problemResponse(problems.tooLarge(limit), { connection: 'close' }) });
  return (c, next) => (c.req.header('content-length') === undefined && c.req.header('transfer-encoding') === undefined ? next() : bounded(c, next));
}
