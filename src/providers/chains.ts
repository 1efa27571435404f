/**
 * Chain providers: read-only JSON-RPC access to the EVM chains of the `chain` enum (viem) and to
 * Solana (@solana/kit), as products reach them through their context.
 *
 * - Each EVM chain has one or more endpoints, tried in order with viem's `fallback` transport: an
 *   endpoint that fails, times out or has spent its request budget hands the request to the next.
 * - Every endpoint has a request budget (a token bucket of `budgetPerSecond` requests per second,
 *   as large a burst) and every request a time limit, so one busy caller cannot exhaust an
 *   operator's RPC plan and no call waits on an RPC for long.
 * - Endpoint URLs often carry API keys: they live only inside the transports. Nothing here logs or
 *   returns them, and errors are handed on untouched for the kit to turn into a problem without
 *   their text (see products/kit/chains.ts).
 */
import { createDefaultRpcTransport, createSolanaRpcFromTransport, type Rpc, type RpcTransport, type SolanaRpcApi } from '@solana/kit';
import { createPublicClient, defineChain, fallback, http, type Address, type Chain, type PublicClient, type Transport } from 'viem';
import { arbitrum, base, mainnet, optimism, polygon } from 'viem/chains';

/** The EVM chains products name (the kit's `evmChain()` field). */
export const EVM_CHAIN_NAMES = ['ethereum', 'base', 'arbitrum', 'optimism', 'polygon'] as const;
export type EvmChainName = (typeof EVM_CHAIN_NAMES)[number];

/** Mainnet chain id and native USDC of each named chain. */
export const EVM_CHAIN_DEFAULTS: Record<EvmChainName, { chain: Chain; usdc: Address }> = {
  ethereum: { chain: mainnet, usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
  base: { chain: base, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
  arbitrum: { chain: arbitrum, usdc: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' },
  optimism: { chain: optimism, usdc: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85' },
  polygon: { chain: polygon, usdc: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
};

/** One EVM chain as products see it: its name, the network it really is, USDC there, a client. */
export interface EvmChainProvider {
  chain: EvmChainName;
  /** CAIP-2 id of the chain actually behind the name (the dev chain says `eip155:31337`). */
  network: `eip155:${number}`;
  chainId: number;
  /** The USDC contract on this chain. */
  usdc: Address;
  client: PublicClient;
}

/** Solana as products see it. */
export interface SolanaChainProvider {
  /** CAIP-2 id of the cluster (the dev VM answers as devnet; see devchain/solana.ts). */
  network: `solana:${string}`;
  /** USDC mint (classic SPL Token, 6 decimals). */
  usdcMint: string;
  rpc: Rpc<SolanaRpcApi>;
}

/** The chains this instance can read. */
export interface ChainProviders {
  /** The provider of a named EVM chain, when configured. */
  evm(chain: EvmChainName): EvmChainProvider | undefined;
  /** The EVM chains configured, in the enum's order. */
  readonly evmChains: readonly EvmChainName[];
  solana?: SolanaChainProvider;
}

/** Thrown when an endpoint's request budget is spent; the fallback transport moves on to the next endpoint. */
export class RpcBudgetError extends Error {
  override name = 'RpcBudgetError';
  /** A code of its own: viem neither retries it on the same endpoint nor stops the fallback on it. */
  readonly code = 4290;
  constructor() {
    super('the RPC request budget of this endpoint is spent for now');
  }
}

/** A token bucket: `perSecond` requests a second, bursts up to as many. */
export class RequestBudget {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = perSecond;
    this.last = now();
  }

  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export interface EvmChainSettings {
  chain: EvmChainName;
  /** Endpoints in order of preference. */
  urls: string[];
  /** The chain id behind the endpoints; default the named chain's mainnet id. */
  chainId?: number;
  /** Default the named chain's native USDC. */
  usdc?: Address;
  /** Default the settings' budget (a local dev chain takes more). */
  budgetPerSecond?: number;
}

export interface ChainSettings {
  evm: EvmChainSettings[];
  solana?: { url: string; network: `solana:${string}`; usdcMint: string; budgetPerSecond?: number };
  /** Requests per second each endpoint may receive from this instance. */
  budgetPerSecond: number;
  /** Time limit of one request to one endpoint. */
  timeoutMs: number;
}

/** An http transport that first takes a request from the endpoint's budget. */
function budgeted(url: string, budget: RequestBudget, timeoutMs: number): Transport {
  const inner = http(url, { timeout: timeoutMs, retryCount: 0 });
  return (params) => {
    const transport = inner(params);
    return {
      ...transport,
      request: (async (args: Parameters<typeof transport.request>[0]) => {
        if (!budget.take()) throw new RpcBudgetError();
        return transport.request(args);
      }) as typeof transport.request,
    };
  };
}

/** The viem chain of a named chain behind `chainId` (a dev chain gets a minimal definition of its own). */
function viemChain(name: EvmChainName, chainId: number): Chain {
  const known = EVM_CHAIN_DEFAULTS[name].chain;
  if (known.id === chainId) return known;
  return defineChain({ id: chainId, name: `${name} (chain ${chainId})`, nativeCurrency: known.nativeCurrency, rpcUrls: { default: { http: [] } } });
}

export function evmChainProvider(settings: EvmChainSettings, budgetPerSecond: number, timeoutMs: number): EvmChainProvider {
  if (settings.urls.length === 0) throw new Error(`${settings.chain}: no RPC endpoint`);
  const chainId = settings.chainId ?? EVM_CHAIN_DEFAULTS[settings.chain].chain.id;
  const transports = settings.urls.map((url) => budgeted(url, new RequestBudget(budgetPerSecond), timeoutMs));
  const client = createPublicClient({
    chain: viemChain(settings.chain, chainId),
    // One retry of the whole list; each endpoint is tried once per round.
    transport: fallback(transports, { retryCount: 1, retryDelay: 100 }),
    // No batching (viem's default): one request, one budget token, one time limit.
    cacheTime: 0,
  }) as PublicClient;
  return { chain: settings.chain, network: `eip155:${chainId}`, chainId, usdc: settings.usdc ?? EVM_CHAIN_DEFAULTS[settings.chain].usdc, client };
}

/** A Solana transport with the endpoint's budget and a time limit on every request. */
function budgetedSolanaTransport(url: string, budget: RequestBudget, timeoutMs: number): RpcTransport {
  const inner = createDefaultRpcTransport({ url: url as `http${string}` });
  return (<TResponse>(config: Parameters<RpcTransport>[0]) => {
    if (!budget.take()) return Promise.reject(new RpcBudgetError());
    const limit = AbortSignal.timeout(timeoutMs);
    return inner<TResponse>({ ...config, signal: config.signal ? AbortSignal.any([config.signal, limit]) : limit });
  }) as RpcTransport;
}

export function solanaChainProvider(settings: NonNullable<ChainSettings['solana']>, budgetPerSecond: number, timeoutMs: number): SolanaChainProvider {
  const rpc = createSolanaRpcFromTransport(budgetedSolanaTransport(settings.url, new RequestBudget(budgetPerSecond), timeoutMs)) as unknown as Rpc<SolanaRpcApi>;
  return { network: settings.network, usdcMint: settings.usdcMint, rpc };
}

/** The providers of every configured chain. */
export function createChainProviders(settings: ChainSettings): ChainProviders {
  const evm = new Map<EvmChainName, EvmChainProvider>();
  for (const chain of settings.evm) evm.set(chain.chain, evmChainProvider(chain, chain.budgetPerSecond ?? settings.budgetPerSecond, settings.timeoutMs));
  return {
    evm: (chain) => evm.get(chain),
    evmChains: EVM_CHAIN_NAMES.filter((name) => evm.has(name)),
    ...(settings.solana ? { solana: solanaChainProvider(settings.solana, settings.solana.budgetPerSecond ?? settings.budgetPerSecond, settings.timeoutMs) } : {}),
  };
}

/**
 * `EVM_RPC_URLS`: `base=https://a|https://b,ethereum=https://c`. Several endpoints of one chain are
 * separated by `|` and tried in that order. Throws a plain Error naming the entry (never its URL).
 */
export function parseEvmRpcUrls(text: string | undefined): Partial<Record<EvmChainName, string[]>> {
  const out: Partial<Record<EvmChainName, string[]>> = {};
  for (const [index, entry] of (text ?? '').split(',').map((e) => e.trim()).filter(Boolean).entries()) {
    const eq = entry.indexOf('=');
    const name = (eq > 0 ? entry.slice(0, eq) : '').trim().toLowerCase();
    if (!(EVM_CHAIN_NAMES as readonly string[]).includes(name)) {
      throw new Error(`entry ${index + 1}: expected <chain>=<url>[|<url>…] with chain one of ${EVM_CHAIN_NAMES.join(', ')}`);
    }
    const urls = entry.slice(eq + 1).split('|').map((u) => u.trim()).filter(Boolean);
    for (const url of urls) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        parsed = undefined;
      }
      if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw new Error(`${name}: every endpoint must be an http(s) URL`);
    }
    if (urls.length === 0) throw new Error(`${name}: no endpoint given`);
    out[name as EvmChainName] = [...(out[name as EvmChainName] ?? []), ...urls];
  }
  return out;
}
