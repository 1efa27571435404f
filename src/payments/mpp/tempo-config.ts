import type { Store } from 'mppx';
import type { Hex } from 'viem';

export const TEMPO_MAINNET = 4217;
export const TEMPO_TESTNET = 42431;

/** Production Tempo charge (TIP-20 on Tempo), settled by mppx itself rather than the x402 facilitator. */
export interface TempoRailConfig {
  /** Address that receives the payments. */
  recipient: Hex;
  /** Tempo testnet (Moderato, chain 42431) instead of mainnet (4217). */
  testnet?: boolean;
  /** Explicit chain id; defaults from `testnet`. */
  chainId?: number;
  /** TIP-20 token; defaults to mppx's default (USDC.e on mainnet, pathUSD on testnet). */
  currency?: Hex;
  /** Token decimals; TIP-20 stablecoins use 6. */
  decimals?: number;
  /** RPC URL; defaults to mppx's (rpc.tempo.xyz / rpc.moderato.tempo.xyz). */
  rpcUrl?: string;
  /** Server-side fee payer (sponsors the client's gas). Never logged. */
  feePayerKey?: Hex;
  /** Shared atomic store for mppx's transaction-hash replay markers; per-process memory if omitted. */
  store?: Store.AtomicStore;
}

/** The chain a Tempo config settles on. */
export function tempoChainId(config: TempoRailConfig): number {
  return config.chainId ?? (config.testnet ? TEMPO_TESTNET : TEMPO_MAINNET);
}

/**
 * Tempo config from the environment; undefined (Tempo off) unless `MPP_TEMPO_RECIPIENT` is set.
 * `MPP_TEMPO_TESTNET=1`, `MPP_TEMPO_CHAIN_ID`, `MPP_TEMPO_CURRENCY`, `MPP_TEMPO_RPC_URL`,
 * `MPP_TEMPO_FEE_PAYER_KEY` are optional.
 */
export function tempoConfigFromEnv(env: Record<string, string | undefined>): TempoRailConfig | undefined {
  const recipient = env.MPP_TEMPO_RECIPIENT;
  if (!recipient) return undefined;
  const address = (value: string, name: string): Hex => {
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new Error(`${name} must be a 0x address`);
    return value as Hex;
  };
  const chainId = env.MPP_TEMPO_CHAIN_ID ? Number(env.MPP_TEMPO_CHAIN_ID) : undefined;
  if (chainId !== undefined && !Number.isSafeInteger(chainId)) throw new Error('MPP_TEMPO_CHAIN_ID must be an integer');
  const feePayerKey = env.MPP_TEMPO_FEE_PAYER_KEY;
  if (feePayerKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(feePayerKey)) throw new Error('MPP_TEMPO_FEE_PAYER_KEY must be a 32-byte hex key');
  return {
    recipient: address(recipient, 'MPP_TEMPO_RECIPIENT'),
    testnet: env.MPP_TEMPO_TESTNET === '1' || env.MPP_TEMPO_TESTNET === 'true',
    ...(chainId !== undefined ? { chainId } : {}),
    ...(env.MPP_TEMPO_CURRENCY ? { currency: address(env.MPP_TEMPO_CURRENCY, 'MPP_TEMPO_CURRENCY') } : {}),
    ...(env.MPP_TEMPO_RPC_URL ? { rpcUrl: env.MPP_TEMPO_RPC_URL } : {}),
    ...(feePayerKey ? { feePayerKey: feePayerKey as Hex } : {}),
  };
}

