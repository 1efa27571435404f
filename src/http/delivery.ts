import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * Reports whether the response to this request reached the client: `delivered` once it was written in
 * full, `undelivered` when the connection closed while the call ran or before the whole response was
 * written. A paid response counts as delivered only then (see README, "What is charged"). Requests
 * served without the node adapter (`app.request` in a test) have no socket: delivered at once.
 */
export function watchDelivery(c: Context, report: { delivered(): void; undelivered(): void }): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.once !== 'function') return void report.delivered();
  if (outgoing.destroyed || outgoing.socket?.destroyed) return void report.undelivered();
  outgoing.once('close', () => (outgoing.writableFinished ? report.delivered() : report.undelivered()));
}

/** What the gate is told of one paid response's delivery. */
export function deliveryReport(gate: { delivered(key: string): Promise<void>; undelivered(key: string): Promise<void> }, paymentKey: string): { delivered(): void; undelivered(): void } {
  return { delivered: () => void gate.delivered(paymentKey), undelivered: () => void gate.undelivered(paymentKey) };
}
