/**
 * What the Solana products share: priority-fee readings (getRecentPrioritizationFees, summarised as
 * percentiles) cached for CACHE_MS and shared by concurrent callers, and the USDC associated token
 * account of an owner.
 */
import { z } from 'zod';
import { address, getAddressEncoder, getProgramDerivedAddress, type Address } from '@solana/kit';
import { rpcRead, type ProductContext } from '../kit/index.ts';
import type { SolanaChainProvider } from '../../providers/chains.ts';

/** How long a reading is served again: the same accounts within this time get the same answer. */
export const CACHE_MS = 8_000;
/** Distinct account sets cached at once; the oldest reading goes first. */
const MAX_CACHED = 1_000;
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

export const solanaNetwork = z
  .string()
  .regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/)
  .describe('CAIP-2 id of the Solana cluster read (mainnet solana:5eykt4…; the local dev VM answers as devnet)');

const microLamports = () => z.int().min(0);

export const feeReading = z.object({
  unit: z.literal('micro-lamports per compute unit').describe('Unit of every fee figure'),
  levels: z
    .object({
      low: microLamports().describe('25th percentile'),
      medium: microLamports().describe('50th percentile (median)'),
      high: microLamports().describe('75th percentile'),
      very_high: microLamports().describe('95th percentile'),
    })
    .describe('Compute-unit prices to pay for a low to very high chance of landing soon'),
  percentiles: z
    .object({
      min: microLamports().describe('Smallest'),
      p25: microLamports().describe('25th percentile'),
      p50: microLamports().describe('Median'),
      p75: microLamports().describe('75th percentile'),
      p90: microLamports().describe('90th percentile'),
      p95: microLamports().describe('95th percentile'),
      max: microLamports().describe('Largest'),
    })
    .describe('Nearest-rank percentiles of the per-slot fees the node reported'),
  samples: z.int().min(0).describe('Slots the node reported a fee for (its cache holds up to 150 recent blocks); all figures are 0 when none'),
  first_slot: z.int().min(0).nullable().describe('Oldest slot sampled; null when none'),
  last_slot: z.int().min(0).nullable().describe('Newest slot sampled; null when none'),
  observed_at: z.iso.datetime().describe('When the node was asked (a cached reading keeps its time)'),
  cached: z.boolean().describe('Whether this answer was served from a reading at most 8 seconds old, shared with other callers'),
});
export type FeeReading = z.infer<typeof feeReading>;

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: bigint[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return Number(sorted[rank - 1]);
}

/** A reading from getRecentPrioritizationFees' entries. */
export function summarise(entries: readonly { slot: bigint; prioritizationFee: bigint }[], at: Date): Omit<FeeReading, 'cached'> {
  const fees = entries.map((e) => e.prioritizationFee).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const slots = entries.map((e) => e.slot);
  const p = (n: number) => percentile(fees, n);
  return {
    unit: 'micro-lamports per compute unit',
    levels: { low: p(25), medium: p(50), high: p(75), very_high: p(95) },
    percentiles: { min: p(0), p25: p(25), p50: p(50), p75: p(75), p90: p(90), p95: p(95), max: p(100) },
    samples: fees.length,
    first_slot: slots.length ? Number(slots.reduce((a, b) => (a < b ? a : b))) : null,
    last_slot: slots.length ? Number(slots.reduce((a, b) => (a > b ? a : b))) : null,
    observed_at: at.toISOString(),
  };
}

interface Cached {
  at: number;
  reading: Promise<Omit<FeeReading, 'cached'>>;
}
/** Readings per provider (a fresh provider, as in a unit test, starts empty). */
const caches = new WeakMap<SolanaChainProvider, Map<string, Cached>>();

/**
 * The priority fees for `accounts` (none: network-wide), from a reading at most CACHE_MS old by
 * `ctx.now`; callers asking while a reading is under way share it. A failed reading is not kept.
 */
export async function priorityFees(ctx: ProductContext, solana: SolanaChainProvider, accounts: readonly string[]): Promise<FeeReading> {
  let cache = caches.get(solana);
  if (!cache) caches.set(solana, (cache = new Map()));
  const key = [...new Set(accounts)].sort().join(',');
  const now = ctx.now.getTime();
  const hit = cache.get(key);
  if (hit && now - hit.at >= 0 && now - hit.at < CACHE_MS) return { ...(await hit.reading), cached: true };
  const reading = rpcRead('solana', 'getRecentPrioritizationFees', () =>
    solana.rpc.getRecentPrioritizationFees(accounts.map((a) => address(a))).send({ abortSignal: ctx.signal }),
  ).then((entries) => summarise(entries, ctx.now));
  const entry = { at: now, reading };
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  reading.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return { ...(await reading), cached: false };
}

/** The associated token account of `owner` for `mint` (classic SPL Token). */
export async function associatedTokenAccount(owner: string, mint: string): Promise<Address> {
  const encoder = getAddressEncoder();
  const [ata] = await getProgramDerivedAddress({
    programAddress: address(ASSOCIATED_TOKEN_PROGRAM),
    seeds: [encoder.encode(address(owner)), encoder.encode(address(TOKEN_PROGRAM)), encoder.encode(address(mint))],
  });
  return ata;
}
