/**
 * A product context for unit tests: a pinned clock, no network unless a test gives one, no browser,
 * LLM or chain unless given (chains: `fakeChains` of `stubEvmChain` / `stubSolanaChain`, which answer
 * JSON-RPC from a table). Products reach the outside only through their context, so a product's logic
 * is tested here without a chain, a store or a payment.
 */
import { DEFAULT_POLICY, SafeFetchError, safeFetch, type FetchPolicy, type SafeRequest, type SafeResponse } from '../../providers/safe-fetch.ts';
import { createSolanaRpcFromTransport, type Rpc, type RpcTransport, type SolanaRpcApi } from '@solana/kit';
import { createPublicClient, custom, type Address, type PublicClient } from 'viem';
import {
  EVM_CHAIN_DEFAULTS,
  EVM_CHAIN_NAMES,
  type ChainProviders,
  type EvmChainName,
  type EvmChainProvider,
  type SolanaChainProvider,
} from '../../providers/chains.ts';
import type { ProductContext } from './types.ts';

/** The clock of every fake context unless a test sets `now`. */
export const FAKE_NOW = new Date('2025-06-01T12:00:00.000Z');

/**
 * A context with `overrides` applied. Its default `fetch` throws a plain error (not a
 * SafeFetchError): a product that fetches must have its fetch stubbed, or the test fails loudly.
 */
export function fakeContext(overrides: Partial<ProductContext> = {}): ProductContext {
  return {
    now: FAKE_NOW,
    signal: new AbortController().signal,
    tier: 'paid',
    catalogue: [],
    fetch: (url) => Promise.reject(new Error(`fakeContext: ctx.fetch(${url}) was called, but this test gave no fetch`)),
    ...overrides,
  };
}

/** A response as the safe fetcher returns it; `url` (the final URL) is the requested one unless set. */
export type StubResponse = Omit<SafeResponse, 'url'> & { url?: string };

export function response(body: string | object, init: { url?: string; status?: number; contentType?: string; headers?: Record<string, string> } = {}): StubResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = init.contentType ?? (typeof body === 'string' ? 'text/html' : 'application/json');
  return {
    ...(init.url ? { url: init.url } : {}),
    status: init.status ?? 200,
    headers: { 'content-type': contentType, ...init.headers },
    contentType,
    body: Buffer.from(text, 'utf8'),
    latencyMs: 1,
    redirects: 0,
  };
}

type Answer = StubResponse | SafeFetchError | ((request: SafeRequest) => StubResponse | SafeFetchError);

/**
 * A fetch answering from a table keyed by URL (each response's `url` defaults to its key); any
 * other URL is refused as unresolvable, as the safe fetcher refuses a name that does not resolve.
 * `requests` records every call, for tests that check what was sent.
 */
export function stubFetch(answers: Record<string, Answer>): ProductContext['fetch'] & { requests: { url: string; request: SafeRequest }[] } {
  const requests: { url: string; request: SafeRequest }[] = [];
  const fetch = async (url: string, request: SafeRequest = {}) => {
    requests.push({ url, request });
    const entry = answers[url];
    const answer = typeof entry === 'function' ? entry(request) : entry;
    if (answer === undefined) throw new SafeFetchError('unresolvable_host', `stubFetch: ${url} does not resolve`);
    if (answer instanceof SafeFetchError) throw answer;
    return { ...answer, url: answer.url ?? url };
  };
  return Object.assign(fetch, { requests });
}

/** The real safe fetcher with loopback allowed, for tests that serve pages on 127.0.0.1. */
export function loopbackFetch(policy: Partial<FetchPolicy> = {}): ProductContext['fetch'] {
  const effective: FetchPolicy = { ...DEFAULT_POLICY, allowLoopback: true, timeoutMs: 2_000, ...policy };
  return (url, request) => safeFetch(url, request, effective);
}

// ---- Chains ----

/** Answers one JSON-RPC method from its params; throw to make the endpoint fail. */
export type RpcAnswer = unknown | ((params: unknown[]) => unknown);

/** Records the JSON-RPC calls a stubbed chain received. */
export interface RpcLog {
  calls: { method: string; params: unknown[] }[];
}

function answer(answers: Record<string, RpcAnswer>, method: string, params: unknown[]): unknown {
  if (!Object.hasOwn(answers, method)) throw Object.assign(new Error(`stub RPC: method ${method} not stubbed`), { code: -32601 });
  const entry = answers[method];
  return typeof entry === 'function' ? (entry as (p: unknown[]) => unknown)(params) : entry;
}

/**
 * An EVM chain answering JSON-RPC from a table keyed by method (values as the wire has them: hex
 * quantities, `null` for "not found"). A method not in the table fails, as an RPC that lacks it.
 */
export function stubEvmChain(
  answers: Record<string, RpcAnswer>,
  options: { chain?: EvmChainName; chainId?: number; usdc?: Address } = {},
): EvmChainProvider & RpcLog {
  const calls: RpcLog['calls'] = [];
  const chain = options.chain ?? 'base';
  const chainId = options.chainId ?? EVM_CHAIN_DEFAULTS[chain].chain.id;
  const client = createPublicClient({
    transport: custom({ request: async ({ method, params }: { method: string; params?: unknown }) => {
      const list = Array.isArray(params) ? params : [];
      calls.push({ method, params: list });
      return answer(answers, method, list);
    } }, { retryCount: 0 }),
    cacheTime: 0,
  }) as PublicClient;
  return { chain, network: `eip155:${chainId}`, chainId, usdc: options.usdc ?? EVM_CHAIN_DEFAULTS[chain].usdc, client, calls };
}

/** Solana answering JSON-RPC from a table keyed by method (results as the wire has them). */
export function stubSolanaChain(
  answers: Record<string, RpcAnswer>,
  options: { network?: `solana:${string}`; usdcMint?: string } = {},
): SolanaChainProvider & RpcLog {
  const calls: RpcLog['calls'] = [];
  const transport = (async ({ payload }: { payload: unknown }) => {
    const { method, params, id } = payload as { method: string; params?: unknown; id: unknown };
    const list = Array.isArray(params) ? params : [];
    calls.push({ method, params: list });
    return { jsonrpc: '2.0', id, result: await answer(answers, method, list) };
  }) as RpcTransport;
  return {
    network: options.network ?? 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    usdcMint: options.usdcMint ?? 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    rpc: createSolanaRpcFromTransport(transport) as unknown as Rpc<SolanaRpcApi>,
    calls,
  };
}

/** The chains of a fake context: the given EVM chains (by their name) and Solana. */
export function fakeChains(chains: { evm?: EvmChainProvider[]; solana?: SolanaChainProvider }): ChainProviders {
  const evm = new Map((chains.evm ?? []).map((p) => [p.chain, p] as const));
  return {
    evm: (name) => evm.get(name),
    evmChains: EVM_CHAIN_NAMES.filter((name) => evm.has(name)),
    ...(chains.solana ? { solana: chains.solana } : {}),
  };
}
