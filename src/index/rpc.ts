/**
 * The indexer's JSON-RPC client: plain fetch, so the worker process loads neither viem nor its chain
 * list. Like the chain products' client (providers/chains.ts): several endpoints tried in order, a
 * request budget per endpoint (a token bucket) and a time limit per request; URLs never appear in
 * its errors (they may carry API keys).
 */

/** An error the endpoint answered (a JSON-RPC error object), with its code. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

class Budget {
  private tokens: number;
  private last = Date.now();
  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }
  /** Milliseconds to wait for a token (0: take it now). */
  take(): number {
    const now = Date.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }
}

export type RpcRequest = (args: { method: string; params: unknown[] }) => Promise<unknown>;

/**
 * A request function over `urls`. A spent budget waits for its next token (the indexer is
 * background work: it slows down rather than fail); a failed or timed-out endpoint hands the request
 * to the next one; an error the endpoint answered in JSON-RPC is final.
 */
export function jsonRpc(urls: readonly string[], options: { budgetPerSecond: number; timeoutMs: number }): RpcRequest {
  if (urls.length === 0) throw new Error('no RPC endpoint');
  const endpoints = urls.map((url) => ({ url, budget: new Budget(options.budgetPerSecond) }));
  let id = 0;
  return async ({ method, params }) => {
    let last: unknown;
    for (const [i, endpoint] of endpoints.entries()) {
      const wait = endpoint.budget.take();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        const response = await fetch(endpoint.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        if (!response.ok) throw new Error(`endpoint ${i + 1} answered HTTP ${response.status}`);
        const body = (await response.json()) as { result?: unknown; error?: { code?: number; message?: string } };
        if (body.error) throw new RpcError(`${method}: ${String(body.error.message ?? 'error').slice(0, 200)}`, body.error.code);
        return body.result;
      } catch (error) {
        if (error instanceof RpcError) throw error;
        const name = (error as Error).name;
        last = new Error(`${method}: endpoint ${i + 1} ${name === 'TimeoutError' ? 'did not answer in time' : name === 'AbortError' ? 'was aborted' : `failed (${(error as Error).message.replace(/\b(https?):\/\/\S+/g, '<rpc>').slice(0, 120)})`}`);
      }
    }
    throw last;
  };
}
