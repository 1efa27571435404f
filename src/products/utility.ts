/**
 * Run functions of the utility products that are sold today: `time` (tool `server_time`) and `echo`.
 * Pure: no HTTP or payment concerns; the clock is read from `ctx.now`.
 */
import type { ProductContext } from '../catalogue/types.ts';

export interface TimeResult {
  /** ISO 8601 UTC timestamp, e.g. "2025-01-01T00:00:00.000Z". */
  time: string;
  /** Unix epoch, whole seconds. */
  unix: number;
}

export interface EchoResult {
  /** The input parameters serialised as a URL query string, in their given order, e.g. "a=1&b=x". */
  echo: string;
  /** ISO 8601 UTC timestamp of the call. */
  timestamp: string;
}

export async function serverTime(_input: unknown, ctx: ProductContext): Promise<TimeResult> {
  return { time: ctx.now.toISOString(), unix: Math.floor(ctx.now.getTime() / 1000) };
}

export async function echo(input: Record<string, string>, ctx: ProductContext): Promise<EchoResult> {
  return { echo: new URLSearchParams(Object.entries(input)).toString(), timestamp: ctx.now.toISOString() };
}
