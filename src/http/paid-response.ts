import { EventStreamOutput } from '../products/event-stream.ts';

/**
 * The 200 of a paid call on any rail: the product's output as JSON, or as server-sent events when the
 * product streamed, with the rail's own receipt headers (`PAYMENT-RESPONSE` or `Payment-Receipt`).
 */
export function paidResponse(output: unknown, receiptHeaders: Record<string, string>): Response {
  const stream = output instanceof EventStreamOutput;
  const headers = new Headers(receiptHeaders);
  headers.set('content-type', stream ? 'text/event-stream' : 'application/json');
  return new Response(stream ? output.toEventStream() : JSON.stringify(output), { status: 200, headers });
}
