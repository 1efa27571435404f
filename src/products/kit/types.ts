import type { z } from 'zod';
import type { BrowserPool } from '../../providers/browser.ts';
import type { ChainProviders } from '../../providers/chains.ts';
import type { ChatUpstream } from '../../providers/llm.ts';
import type { DataKind, DataProviders } from '../../providers/data.ts';
import type { PythonRunner } from './python-runner.ts';
import type { ChainIndex } from './chain-index.ts';
import type { BazaarMarket } from './bazaar-market.ts';
import type { PaymentsDesk } from './payments-desk.ts';
import type { OperatorWallet } from './operator-wallet.ts';
import type { SafeRequest, SafeResponse } from '../../providers/safe-fetch.ts';

/** Where a product is sold: as an HTTP route under /api/v1, or as an MCP tool at /mcp. */
export type Surface = 'http' | 'mcp';

/** Payment networks, by family. The concrete CAIP-2 ids come from config (dev chain or mainnet). */
export type NetworkFamily = 'evm' | 'solana';

/** A product's category; the kit's default is the domain (folder) the product lives in. */
export type ProductCategory =
  | 'utility'
  | 'web'
  | 'chain'
  | 'bazaar'
  | 'text'
  | 'research'
  | 'inference'
  | 'agent'
  | 'payments'
  | 'people'
  | 'market';

/**
 * How the price is charged. `fixed`: the quoted amount is the charge.
 * `upto`: the caller authorizes up to `maximumAuthorization` (USD) and is charged the actual amount, `price` by default.
 */
export type PriceMode = { kind: 'fixed' } | { kind: 'upto'; maximumAuthorization: string };

export interface HttpSurface {
  method: 'GET' | 'POST';
  /** Full path, e.g. `/api/v1/paid/time`. */
  path: string;
  /** USD per call as a decimal string with at most 6 decimals, e.g. "0.01". */
  price: string;
  /** A POST route that also takes GET with the same fields as query parameters (all strings). */
  queryToo?: true;
}

/** MCP tool annotations; set only the hints that are true for the tool. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  destructiveHint?: boolean;
}

export interface McpSurface {
  tool: string;
  /** USD per call as a decimal string with at most 6 decimals. */
  price: string;
  annotations?: ToolAnnotations;
}

/** Rails a product accepts. x402 on the listed network families; MPP as a third rail where true. */
export interface Rails {
  x402: NetworkFamily[];
  mpp: boolean;
}

export interface ProductContext {
  /** Absolute time the call started; products read the clock through this so tests can pin it. */
  now: Date;
  signal: AbortSignal;
  /** `free`: a free-tier call (a wallet proved itself, no payment); products may answer less. */
  tier: 'paid' | 'free';
  /** The products on sale, for products that recommend other products. */
  catalogue: readonly AvailableProduct[];
  /** The safe fetcher: the only way a product reaches a URL a caller supplied. */
  fetch(url: string, request?: SafeRequest): Promise<SafeResponse>;
  /**
   * Who is calling, for per-caller limits on shared engines: the payer's address on a paid call,
   * the proven wallet on a free-tier call; undefined when unknown.
   */
  caller?: string;
  /** The headless browser pool, whose pages also fetch through the safe fetcher. */
  browser?: BrowserPool;
  /** The operator's inference upstream, when configured (products that `require` it run only then). */
  llm?: ChatUpstream;
  /** The chains this instance reads over JSON-RPC (EVM_RPC_URLS, SOLANA_RPC_URL; the dev chains in dev mode). */
  chains?: ChainProviders;
  /** The block index (DuckDB over the indexed chains; products that `require` `index` run only with it). */
  index?: ChainIndex;
  /** Third-party data providers the operator configured (providers/data.ts; products `require` their kind). */
  data?: DataProviders;
  /** The Python sandbox (src/sandbox/; products that `require` `python` run only with it). */
  python?: PythonRunner;
  /** The Bazaar discovery snapshots (src/bazaar/; products that `require` `bazaar` run only with them). */
  bazaar?: BazaarMarket;
  /** Settlement verifications in the shared store and this instance's payment facts (kit/payments-desk.ts). */
  payments?: PaymentsDesk;
  /** The operator's wallet for paying upstream x402 sellers (products that `require` `operator` run only with it). */
  operator?: OperatorWallet;
  /**
   * The caller's payment on a paid call: its replay key (an upstream payment made for the call is
   * linked to it in the ledger) and the atomic amount it authorizes. Undefined on a free-tier call.
   */
  payment?: { key: string; amount: bigint };
  /**
   * Present when the call is paid with `upto`: the product may report its actual charge in atomic
   * USDC (default `base`, the price); the gate never settles more than `maximum`, the authorization.
   */
  metered?: { base: bigint; maximum: bigint; charge(atomic: bigint): void };
}

/**
 * Upstreams an operator configures; a product that needs a missing one is not on sale. `browser`: a
 * headless Chromium that can be started in its own empty network namespace (see providers/browser.ts).
 * Chains (providers/chains.ts): `evm:base` a Base JSON-RPC; `evm` at least one EVM chain (a product
 * taking a `chain` field is then sold for the configured chains only: another is refused before
 * payment, 422 `chain_not_configured`); `solana` a Solana JSON-RPC. `index`: the block index
 * (src/index/, INDEX_CHAINS). Third-party data (providers/data.ts): `web-search`, `x-search`, `lei`,
 * `crypto-prices`… each on sale where its provider is configured (README, "Data providers").
 * `bazaar`: the Bazaar discovery snapshots (src/bazaar/, BAZAAR_DISCOVERY_URLS).
 * `python`: the Python sandbox (src/sandbox/: bubblewrap and Debian's python3 with numpy, pandas, requests).
 * `operator`: the operator's wallet paying upstream x402 sellers (OPERATOR_PAYER_PRIVATE_KEY; dev: a
 * funded dev-chain account); `gateway`: that wallet and the gateway's allowlist (GATEWAY_SELLERS; dev:
 * this instance itself).
 */
export type UpstreamProvider = 'llm' | 'browser' | 'evm' | 'evm:base' | 'solana' | 'index' | 'bazaar' | 'python' | 'operator' | 'gateway' | DataKind;

/** Free-of-charge doors or quotas attached to a paid product (see the service description). */
export interface FreeTier {
  /** Free calls per wallet per UTC day; unlimited (but still per proven wallet) when absent. */
  perWalletPerDay?: number;
  /** How many results a free call returns, for products that return a ranked list. */
  resultLimit?: number;
  /** Plain-language note on what the free door returns, e.g. "top-1 result only". */
  note: string;
}

export interface ProductDeclaration {
  /** Stable id, kebab-case; telemetry keys and logs use it. */
  id: string;
  title: string;
  /** One or two sentences an agent reads to decide whether to call the product. */
  description: string;
  category: ProductCategory;
  http?: HttpSurface;
  mcp?: McpSurface;
  mode: PriceMode;
  rails: Rails;
  /**
   * Input schema. For GET routes it describes the query parameters (all strings on the wire);
   * for POST routes the JSON body. The same schema is the MCP tool's input schema.
   */
  input: z.ZodType;
  /** Example of a valid input, published in discovery documents. */
  inputExample?: Record<string, unknown>;
  /** What a successful call returns, as zod; `outputSchema` is its JSON Schema where it is published. */
  output?: z.ZodType;
  /** Example of a successful output, published in the 402 bazaar block and OpenAPI. */
  outputExample?: unknown;
  /** JSON Schema of the output, as published (MCP tools, OpenAPI, x402.json, the 402 bazaar block). */
  outputSchema?: Record<string, unknown>;
  freeTier?: FreeTier;
  /** The route also needs a route-scoped proof (PROOF-REQUEST, 401) besides payment. */
  requiresProof?: boolean;
  /** Upstreams the product needs; without them it is unavailable on this instance (501, not listed). */
  requires?: UpstreamProvider[];
  /** Free documentation/preview doors attached to the product (paths, methods as stated). */
  freeDoors?: { method: 'GET' | 'POST'; path: string; note: string }[];
  /** The largest request body (HTTP JSON body, MCP request) the product takes; MAX_BODY_BYTES when unset. */
  maxInputBytes?: number;
  /**
   * A price that depends on the input (kit/price-by-input.ts): a call whose `field` has one of the
   * keys of `prices` pays that price (per surface), any other call the declared price.
   */
  priceByInput?: { field: string; prices: Record<string, { http: string; mcp: string }> };
  /** Set on a priced variant only: the value of `priceByInput.field` it is priced for. */
  priceTier?: string;
}

/** What a price that depends on the world reads (see AvailableProduct.dynamicPrice): nothing is paid yet. */
export type QuoteContext = Pick<ProductContext, 'now' | 'signal' | 'fetch' | 'operator'>;

/** What a precheck reads: the providers, not the call (nothing is paid yet). */
export type PrecheckContext = Pick<ProductContext, 'now' | 'chains' | 'index' | 'llm' | 'data' | 'bazaar'>;

export interface AvailableProduct extends ProductDeclaration {
  status: 'available';
  run(input: unknown, ctx: ProductContext): Promise<unknown>;
  /**
   * A check of valid input that needs this instance's providers (the index parses a SQL statement),
   * run before payment so the unpaid 402 already names the problem: it throws a ProductInputError to
   * refuse. Anything else it throws means "not known now", and the paid call decides.
   */
  precheck?(input: unknown, ctx: PrecheckContext): Promise<void>;
  /**
   * A price that depends on the input and on the world now (an upstream's current price), as a USD
   * decimal string: asked for every call with valid input, unpaid (the 402 quotes it) and paid (the
   * payment must match it again, or it gets the new terms). It throws a ProductInputError to refuse
   * the input, an UpstreamError when no price can be had (nothing to sign). Calls without valid
   * input are quoted the declared price.
   */
  dynamicPrice?(input: unknown, ctx: QuoteContext): Promise<string>;
}

export interface UnavailableProduct extends ProductDeclaration {
  status: 'unavailable';
  /** Why it is not sold yet, shown in the 501 problem. */
  reason: string;
}

export type Product = AvailableProduct | UnavailableProduct;
