import { SafeFetchError, type SafeResponse } from '../../providers/safe-fetch.ts';
import { ProductInputError, UpstreamError, fetchFailure } from './errors.ts';
import type { ProductContext } from './types.ts';

/**
 * Fetches a page through the safe fetcher. Only a page with content is charged: a target that is
 * malformed, refused, unresolvable or missing (an HTTP 4xx answer) is the caller's input (422); a
 * site that fails, is unreachable or times out (HTTP 5xx, 408, 429, no answer) is the upstream's
 * failure (502/504). Either way nothing is settled.
 */
export async function fetchPage(url: string, ctx: ProductContext, field = 'url'): Promise<SafeResponse> {
  let response: SafeResponse;
  try {
    response = await ctx.fetch(url, { headers: { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8' } });
  } catch (error) {
    if (error instanceof SafeFetchError) throw fetchFailure(error, field);
    throw error;
  }
  if (response.status >= 400) {
    const upstream = response.status >= 500 || response.status === 408 || response.status === 429;
    if (upstream) throw new UpstreamError(`the page answered HTTP ${response.status}`, 502, field);
    throw new ProductInputError(`the page answered HTTP ${response.status}`, 422, field);
  }
  return response;
}
