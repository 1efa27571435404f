import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { usdToAtomic } from './money.ts';
import { tempoConfigFromEnv, type TempoRailConfig } from './payments/mpp/tempo-config.ts';
import { policyFromEnv, type FetchPolicy } from './providers/safe-fetch.ts';
import { parseRateLimits, type RateLimits } from './http/rate-limit.ts';
import { HOST_ENTRY } from './http/host-guard.ts';
import { parseEvmRpcUrls, type EvmChainName } from './providers/chains.ts';
import { indexSettingsFromEnv, type IndexSettings } from './index/settings.ts';
import { bazaarSettingsFromEnv, type BazaarSettings } from './bazaar/settings.ts';
import { runPythonSettingsFromEnv, type RunPythonSettings } from './sandbox/settings.ts';
import { operatorSettingsFromEnv, type OperatorSettings } from './payments/operator/settings.ts';
import { dataProviderSettingsFromEnv, type DataProviderSettings } from './providers/api/settings.ts';

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected 0x + 40 hex characters');

/** USDC on Base mainnet, the production default asset. */
export const BASE_MAINNET = {
  network: 'eip155:8453',
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
} as const;

/** USDC on Solana mainnet, the production default for the Solana leg. */
export const SOLANA_MAINNET = {
  network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
} as const;

const solanaAddress = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 Solana address');
const usdAmount = z.string().regex(/^\d+(\.\d{1,6})?$/, 'expected a USD amount with at most 6 decimals');

const EnvSchema = z.object({
  PERCALL_MODE: z.enum(['dev', 'production']).default('dev'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4021),
  HOST: z.string().optional(),
  PERCALL_DATA_DIR: z.string().default('.percall'),
  PUBLIC_BASE_URL: z.url().optional(),
  SITE_URL: z.url().optional(),
  /** More names (Host, browser Origin) the service answers to: comma-separated `host` (any port) or `host:port`. */
  ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().regex(HOST_ENTRY, 'expected host or host:port'))),
  SERVICE_NAME: z.string().default('percall'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(64 * 1024),
  FACILITATOR_URL: z.url().optional(),
  /**
   * Production alternative to FACILITATOR_URL: settle with the built-in facilitator, this gas wallet
   * and RPC. In dev mode it replaces the default gas wallet (one per instance sharing a chain).
   */
  FACILITATOR_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x + 64 hex characters').optional(),
  EVM_RPC_URL: z.url().optional(),
  /** Chain products: `base=https://…|https://…,ethereum=https://…` (several endpoints of a chain tried in order). */
  EVM_RPC_URLS: z.string().optional(),
  /** Requests per second this instance sends to each chain RPC endpoint at most (its plan's budget). */
  RPC_BUDGET_PER_SECOND: z.coerce.number().positive().max(100_000).default(25),
  /** Time limit of one request to one chain RPC endpoint. */
  RPC_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(5_000),
  FACILITATOR_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** On SIGTERM: how long in-flight calls may take to finish before their connections are cut. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().default(30_000),
  /** batch-settlement: the receiver authorizer's key (dev: a key of the public test mnemonic); without it in production, not offered. */
  BATCH_AUTHORIZER_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x + 64 hex characters').optional(),
  BATCH_WITHDRAW_DELAY_SECS: z.coerce.number().int().min(900).max(2_592_000).default(900),
  BATCH_CLAIM_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  BATCH_REFUND_IDLE_SECS: z.coerce.number().int().positive().default(86_400),
  BROWSER_LOAD_TIMEOUT_MS: z.coerce.number().int().positive().max(15_000).default(10_000),
  BROWSER_ACTION_TIMEOUT_MS: z.coerce.number().int().positive().max(7_500).default(5_000),
  PAY_TO: evmAddress.optional(),
  EVM_NETWORK: z.string().regex(/^eip155:\d+$/).default(BASE_MAINNET.network),
  USDC_ADDRESS: evmAddress.default(BASE_MAINNET.usdc),
  USDC_NAME: z.string().default('USD Coin'),
  USDC_VERSION: z.string().default('2'),
  SOLANA_NETWORK: z.string().regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/).default(SOLANA_MAINNET.network),
  SOLANA_USDC_MINT: solanaAddress.default(SOLANA_MAINNET.usdc),
  /** Receives USDC on Solana (its associated token account must exist); without it Solana is not offered. */
  SOLANA_PAY_TO: solanaAddress.optional(),
  /** Built-in facilitator on Solana: RPC and the fee payer's base58 secret key (never logged). */
  SOLANA_RPC_URL: z.url().optional(),
  SOLANA_FEE_PAYER_KEY: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/, 'expected a base58 64-byte secret key').optional(),
  /** Dev mode: `off` leaves out the in-process Solana leg (it is also left out when joining another process's chain). */
  DEV_SOLANA: z.enum(['on', 'off']).default('on'),
  /**
   * The smallest payment the facilitator settles, per network family, in USD. Routes priced below
   * it do not offer that network. Defaults: none for the built-in facilitator; 0.001 (EVM) and
   * 0.01 (Solana) with a remote one, the floors some hosted facilitators enforce.
   */
  FACILITATOR_MIN_USD_EVM: usdAmount.optional(),
  FACILITATOR_MIN_USD_SOLANA: usdAmount.optional(),
  /** OpenAI-compatible chat-completions upstream of the inference products; they are on sale only with a key. */
  INFERENCE_API_URL: z.url().default('https://openrouter.ai/api/v1'),
  INFERENCE_API_KEY: z.string().min(1).optional(),
  INFERENCE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Meter `upto` inference by tokens at this USD price per 1,000 tokens (never above the authorization); flat price when unset. */
  INFERENCE_USD_PER_1K_TOKENS: usdAmount.optional(),
  /** Text products' LLM modes (classify, extract_json, rewrite, abstractive summaries, sentiment reasons): the upstream model id they use. */
  INFERENCE_TEXT_MODEL: z.string().min(1).max(200).default('openai/gpt-4.1-mini'),
  /**
   * MPP (`Authorization: Payment`): HMAC key of challenge ids, at least 32 bytes, the same on every
   * instance. Dev mode generates one in the data directory; production offers MPP only with it.
   */
  MPP_SECRET_KEY: z.string().min(32, 'at least 32 characters').optional(),
  /** MPP realm (protection space); the public API host by default. */
  MPP_REALM: z.string().min(1).optional(),
  /** Seconds a signed payment stays valid after the quote (x402 `maxTimeoutSeconds`). */
  PAYMENT_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(300),
  /** Dev mode only: join this running chain (its test USDC already deployed) instead of starting anvil. */
  DEV_RPC_URL: z.url().optional(),
  /** PostgreSQL shared by several instances; the embedded store under PERCALL_DATA_DIR when unset. */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'expected postgres://…').optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Names this process in the shared store; a fresh random id per start by default. */
  INSTANCE_ID: z.string().min(1).max(100).optional(),
  IDENTITY_KEY_ROTATION_DAYS: z.coerce.number().positive().default(90),
  /** A header set by the operator's own proxy carrying the client address (e.g. x-forwarded-for). */
  TRUSTED_PROXY_HEADER: z.string().toLowerCase().optional(),
  /** The operator's own paying wallets: their calls are self-tests, counted apart. Comma-separated. */
  SELF_TEST_WALLETS: z.string().default(''),
  /** Where the public telemetry report is served. */
  OBSERVATORY_REPORT_PATH: z.string().startsWith('/').default('/observatory/report.json'),
  /** Bearer secret for /metrics and the operator API; without it they answer 404. */
  ADMIN_TOKEN: z.string().min(16).optional(),
  /** `off` stops counting (the observatory then reports nothing new); for measuring its cost. */
  TELEMETRY: z.enum(['on', 'off']).default('on'),
  TELEMETRY_FLUSH_MS: z.coerce.number().int().positive().default(2_000),
  RECONCILE_INTERVAL_MS: z.coerce.number().int().positive().default(15_000),
  /** An instance silent for this long is dead: the reconciler takes over its unfinished payments. */
  OWNER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Per-client limits of the free routes that create state (see src/http/rate-limit.ts), e.g. `registration=10/h`. */
  RATE_LIMITS: z.string().optional(),
  /** How often expired registrations, nonces, revocations and rate-limit windows are deleted. */
  PURGE_INTERVAL_MS: z.coerce.number().int().positive().default(3_600_000),
  /** How long a paid result that did not reach its caller can be collected with the same payment. */
  REDEEM_WINDOW_SECONDS: z.coerce.number().int().positive().default(86_400),
});

export interface Config {
  mode: 'dev' | 'production';
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL; when unset it is derived from the listening address once the server is up. */
  publicBaseUrl?: string;
  siteUrl?: string;
  /** ALLOWED_HOSTS: names accepted in Host and Origin besides the public URLs (see src/http/host-guard.ts). */
  allowedHosts: string[];
  serviceName: string;
  logLevel: string;
  maxBodyBytes: number;
  rateLimits: RateLimits;
  purgeIntervalMs: number;
  redeemWindowMs: number;
  facilitatorUrl?: string;
  /** Built-in facilitator in production: gas wallet key (never logged) and the chain's RPC. */
  facilitatorKey?: `0x${string}`;
  evmRpcUrl?: string;
  /** What chain products read (see providers/chains.ts); the URLs are never logged. */
  chains: { evmRpcUrls: Partial<Record<EvmChainName, string[]>>; budgetPerSecond: number; timeoutMs: number };
  /** The block index and analytics-query (see src/index/settings.ts: INDEX_*, ANALYTICS_*). */
  index: IndexSettings;
  /** Third-party data providers (see src/providers/api/settings.ts: GLEIF_*, COINGECKO_*, SEARXNG_*, BRAVE_SEARCH_*, X_*…); keys never logged. */
  dataProviders: DataProviderSettings;
  /** Bazaar discovery snapshots (see src/bazaar/settings.ts: BAZAAR_*). */
  bazaar: BazaarSettings;
  /** run_python's sandbox (see src/sandbox/settings.ts: RUN_PYTHON_*). */
  runPython: RunPythonSettings;
  /** The operator's wallet paying upstream x402 sellers (see src/payments/operator/settings.ts: OPERATOR_*, GATEWAY_SELLERS, FETCH_X402_MAX_PRICE_USD); the key is never logged. */
  operator: OperatorSettings;
  facilitatorTimeoutMs: number;
  shutdownGraceMs: number;
  /** x402 batch-settlement channels (see src/payments/batch). */
  batch: { authorizerKey?: `0x${string}`; withdrawDelaySeconds: number; claimIntervalMs: number; refundIdleSeconds: number };
  /** evidence/browser: how long a page's load, and an action with the navigations it starts, are awaited. */
  browserTimeLimits: { loadMs: number; actionMs: number };
  paymentTimeoutSeconds: number;
  payTo?: `0x${string}`;
  evm: { network: `eip155:${number}`; usdc: `0x${string}`; usdcName: string; usdcVersion: string };
  solana: { network: `solana:${string}`; usdc: string; payTo?: string; rpcUrl?: string; feePayerKey?: string; dev: boolean };
  /** MPP: challenge key, realm, and the optional `tempo` method (from the MPP_TEMPO_* variables). */
  mpp: { secretKey?: string; realm?: string; tempo?: TempoRailConfig };
  /** The inference upstream (its key is never logged). */
  inference?: { baseUrl: string; apiKey: string; timeoutMs: number; atomicPerThousandTokens?: bigint; textModel: string };
  /** Smallest settled payment per network family, atomic units. */
  minimumAmount: { evm: bigint; solana: bigint };
  devRpcUrl?: string;
  databaseUrl?: string;
  databasePoolSize: number;
  databaseStatementTimeoutMs: number;
  instanceId: string;
  telemetryFlushMs: number;
  telemetryEnabled: boolean;
  trustedProxyHeader?: string;
  selfTestWallets: Set<string>;
  reportPath: string;
  adminToken?: string;
  keyRotationMs: number;
  reconcileIntervalMs: number;
  ownerTimeoutMs: number;
  /** How products fetch callers' URLs (loopback only with PERCALL_FETCH_ALLOW_LOOPBACK=1). */
  fetchPolicy: FetchPolicy;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function tempoFromEnv(env: NodeJS.ProcessEnv): TempoRailConfig | undefined {
  try {
    return tempoConfigFromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
}

function evmRpcUrlsFrom(text: string | undefined): Partial<Record<EvmChainName, string[]>> {
  try {
    return parseEvmRpcUrls(text);
  } catch (error) {
    throw new ConfigError(`invalid configuration: EVM_RPC_URLS: ${(error as Error).message}`);
  }
}

function dataProvidersFrom(env: NodeJS.ProcessEnv): DataProviderSettings {
  try {
    return dataProviderSettingsFromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
}

function indexFrom(env: NodeJS.ProcessEnv, mode: 'dev' | 'production'): IndexSettings {
  try {
    return indexSettingsFromEnv(env, mode);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
}

// ---- run_python's sandbox (src/sandbox/settings.ts) ----
function runPythonFrom(env: NodeJS.ProcessEnv): RunPythonSettings {
  try {
    return runPythonSettingsFromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
}

function operatorFrom(env: NodeJS.ProcessEnv, mode: 'dev' | 'production'): OperatorSettings {
  try {
    return operatorSettingsFromEnv(env, mode);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
}

function bazaarFrom(env: NodeJS.ProcessEnv, mode: 'dev' | 'production'): BazaarSettings {
  try {
    return bazaarSettingsFromEnv(env, mode);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
}

/** Reads the typed config from the environment; every setting has an embedded default for dev mode. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${issues}`);
  }
  const e = parsed.data;
  const remoteFacilitator = e.PERCALL_MODE === 'production' && e.FACILITATOR_URL !== undefined;
  const config: Config = {
    mode: e.PERCALL_MODE,
    port: e.PORT,
    host: e.HOST ?? (e.PERCALL_MODE === 'dev' ? '127.0.0.1' : '0.0.0.0'),
    dataDir: resolve(e.PERCALL_DATA_DIR),
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    siteUrl: e.SITE_URL?.replace(/\/$/, ''),
    allowedHosts: e.ALLOWED_HOSTS,
    serviceName: e.SERVICE_NAME,
    logLevel: e.LOG_LEVEL,
    maxBodyBytes: e.MAX_BODY_BYTES,
    rateLimits: parseRateLimits(e.RATE_LIMITS),
    purgeIntervalMs: e.PURGE_INTERVAL_MS,
    redeemWindowMs: e.REDEEM_WINDOW_SECONDS * 1000,
    facilitatorUrl: e.FACILITATOR_URL,
    facilitatorKey: e.FACILITATOR_PRIVATE_KEY as `0x${string}` | undefined,
    evmRpcUrl: e.EVM_RPC_URL,
    chains: { evmRpcUrls: evmRpcUrlsFrom(e.EVM_RPC_URLS), budgetPerSecond: e.RPC_BUDGET_PER_SECOND, timeoutMs: e.RPC_TIMEOUT_MS },
    index: indexFrom(env, e.PERCALL_MODE),
    dataProviders: dataProvidersFrom(env),
    bazaar: bazaarFrom(env, e.PERCALL_MODE),
    runPython: runPythonFrom(env),
    operator: operatorFrom(env, e.PERCALL_MODE),
    facilitatorTimeoutMs: e.FACILITATOR_TIMEOUT_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    browserTimeLimits: { loadMs: e.BROWSER_LOAD_TIMEOUT_MS, actionMs: e.BROWSER_ACTION_TIMEOUT_MS },
    batch: {
      authorizerKey: e.BATCH_AUTHORIZER_KEY as `0x${string}` | undefined,
      withdrawDelaySeconds: e.BATCH_WITHDRAW_DELAY_SECS,
      claimIntervalMs: e.BATCH_CLAIM_INTERVAL_MS,
      refundIdleSeconds: e.BATCH_REFUND_IDLE_SECS,
    },
    paymentTimeoutSeconds: e.PAYMENT_TIMEOUT_SECONDS,
    payTo: e.PAY_TO as `0x${string}` | undefined,
    evm: {
      network: e.EVM_NETWORK as `eip155:${number}`,
      usdc: e.USDC_ADDRESS as `0x${string}`,
      usdcName: e.USDC_NAME,
      usdcVersion: e.USDC_VERSION,
    },
    solana: {
      network: e.SOLANA_NETWORK as `solana:${string}`,
      usdc: e.SOLANA_USDC_MINT,
      payTo: e.SOLANA_PAY_TO,
      rpcUrl: e.SOLANA_RPC_URL,
      feePayerKey: e.SOLANA_FEE_PAYER_KEY,
      dev: e.DEV_SOLANA === 'on',
    },
    mpp: { secretKey: e.MPP_SECRET_KEY, realm: e.MPP_REALM, tempo: tempoFromEnv(env) },
    ...(e.INFERENCE_API_KEY
      ? {
          inference: {
            baseUrl: e.INFERENCE_API_URL,
            apiKey: e.INFERENCE_API_KEY,
            timeoutMs: e.INFERENCE_TIMEOUT_MS,
            textModel: e.INFERENCE_TEXT_MODEL,
            ...(e.INFERENCE_USD_PER_1K_TOKENS ? { atomicPerThousandTokens: usdToAtomic(e.INFERENCE_USD_PER_1K_TOKENS) } : {}),
          },
        }
      : {}),
    minimumAmount: {
      evm: usdToAtomic(e.FACILITATOR_MIN_USD_EVM ?? (remoteFacilitator ? '0.001' : '0')),
      solana: usdToAtomic(e.FACILITATOR_MIN_USD_SOLANA ?? (remoteFacilitator ? '0.01' : '0')),
    },
    devRpcUrl: e.DEV_RPC_URL,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    instanceId: e.INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    telemetryFlushMs: e.TELEMETRY_FLUSH_MS,
    telemetryEnabled: e.TELEMETRY === 'on',
    trustedProxyHeader: e.TRUSTED_PROXY_HEADER,
    selfTestWallets: new Set(e.SELF_TEST_WALLETS.split(',').map((w) => w.trim().toLowerCase()).filter(Boolean)),
    reportPath: e.OBSERVATORY_REPORT_PATH,
    adminToken: e.ADMIN_TOKEN,
    keyRotationMs: e.IDENTITY_KEY_ROTATION_DAYS * 24 * 3600_000,
    reconcileIntervalMs: e.RECONCILE_INTERVAL_MS,
    ownerTimeoutMs: e.OWNER_TIMEOUT_MS,
    fetchPolicy: policyFromEnv(env),
  };
  if (config.mode === 'production') {
    const builtIn = config.facilitatorKey !== undefined && config.evmRpcUrl !== undefined;
    if (!config.facilitatorUrl && !builtIn) {
      throw new ConfigError('production mode needs FACILITATOR_URL, or FACILITATOR_PRIVATE_KEY with EVM_RPC_URL for the built-in facilitator');
    }
    if (!config.payTo) throw new ConfigError('production mode needs PAY_TO (the address that receives USDC)');
  }
  return config;
}
