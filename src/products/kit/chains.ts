/**
 * Chains as products reach them: the provider of a chain the caller named (or a 422
 * `chain_not_configured`), and RPC reads whose failures become problems that are never charged and
 * never carry an endpoint's URL or text.
 */
import { RpcBudgetError, type EvmChainName, type EvmChainProvider, type SolanaChainProvider } from '../../providers/chains.ts';
import { ProductInputError, UpstreamError } from './errors.ts';
import type { ProductContext } from './types.ts';

/** The problem code of a chain this instance does not read. */
export const CHAIN_NOT_CONFIGURED = 'chain_not_configured';

/** The provider of `chain`, or a 422 `chain_not_configured` naming the field. */
export function evmChainOf(ctx: ProductContext, chain: EvmChainName, field = 'chain'): EvmChainProvider {
  const provider = ctx.chains?.evm(chain);
  if (provider) return provider;
  const configured = ctx.chains?.evmChains ?? [];
  const which = configured.length > 0 ? `configured here: ${configured.join(', ')}` : 'no EVM chain is configured here';
  throw new ProductInputError(`chain ${chain} is not configured on this instance (${which})`, 422, field, CHAIN_NOT_CONFIGURED);
}

/** The Solana provider, or a 422 `chain_not_configured`. */
export function solanaOf(ctx: ProductContext): SolanaChainProvider {
  if (ctx.chains?.solana) return ctx.chains.solana;
  throw new ProductInputError('Solana is not configured on this instance', 422, undefined, CHAIN_NOT_CONFIGURED);
}

/** Errors and their causes, outermost first (viem and @solana/kit wrap what the transport threw). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/**
 * An RPC failure as the caller's problem: 503 when this instance's request budget of the chain's
 * endpoints is spent, 504 when no endpoint answered in time, else 502. The endpoint's own error text
 * is left out (it may name the URL, which may carry an API key).
 */
export function rpcFailure(chain: string, what: string, error: unknown): Error {
  if (error instanceof ProductInputError || error instanceof UpstreamError) return error;
  const all = causes(error);
  if (all.some((e) => e instanceof RpcBudgetError)) {
    return new UpstreamError(`the ${chain} RPC request budget of this instance is spent for the moment (${what}); retry in a second`, 503);
  }
  const timedOut = all.some((e) => {
    const name = (e as { name?: unknown }).name;
    return name === 'TimeoutError' || name === 'AbortError';
  });
  if (timedOut) return new UpstreamError(`the ${chain} RPC did not answer in time (${what})`, 504);
  return new UpstreamError(`the ${chain} RPC gave no usable answer (${what})`, 502);
}

/** One RPC read; its failure becomes a problem (see rpcFailure). */
export async function rpcRead<T>(chain: string, what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw rpcFailure(chain, what, error);
  }
}
