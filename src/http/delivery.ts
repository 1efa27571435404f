import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * Calls `undelivered` when the response to this request does not reach the client: the connection
 * closed while the call ran, or closes before the whole response was written. A paid response counts
 * as delivered only once written in full (see README, "What is charged"). Requests served without
 * the node adapter (`app.request` in a test) have no socket and are not watched.
 */
export function watchDelivery(c: Context, undelivered: () => void): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.once !== 'function') return;
  if (outgoing.destroyed || outgoing.socket?.destroyed) return void undelivered();
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) undelivered();
  });
}
