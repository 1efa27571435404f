import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Product } from '../products/kit/index.ts';
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
export function boundedBodies(limit: number, larger: ReadonlyMap<string, number> = new Map()): MiddlewareHandler {
  const bounded = (maxSize: number) => bodyLimit({ maxSize, onError: () => problemResponse(problems.tooLarge(maxSize), { connection: 'close' }) });
  const byPath = new Map([...larger].map(([path, maxSize]) => [path, bounded(maxSize)] as const));
  const fallback = bounded(limit);
  return (c, next) => (c.req.header('content-length') === undefined && c.req.header('transfer-encoding') === undefined ? next() : (byPath.get(c.req.path) ?? fallback)(c, next));
}

/**
 * Paths whose bodies may be larger than MAX_BODY_BYTES: the routes of products declaring
 * `maxInputBytes` (input files), and the MCP endpoint as much as its largest tool's.
 */
export function largerBodies(products: readonly Pick<Product, 'http' | 'mcp' | 'maxInputBytes'>[], limit: number, mcpPath = '/mcp'): Map<string, number> {
  const larger = new Map<string, number>();
  for (const product of products) {
    const size = product.maxInputBytes;
    if (size === undefined || size <= limit) continue;
    if (product.http) larger.set(product.http.path, size);
    if (product.mcp) larger.set(mcpPath, Math.max(larger.get(mcpPath) ?? 0, size));
  }
  return larger;
}
