import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_NOW, fakeChains, fakeContext, stubSolanaChain } from '../../kit/fake-context.ts';
import { summarise } from '../solana.ts';
import { solanaPriorityFee } from './index.ts';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const OTHER = 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr';
const FEES = [0, 10, 20, 30, 40, 50, 60, 70, 80, 1000].map((fee, i) => ({ slot: 500 + i, prioritizationFee: fee }));

const at = (ms: number) => new Date(FAKE_NOW.getTime() + ms);

describe('solana-priority-fee', () => {
  it('summarises getRecentPrioritizationFees for the accounts as nearest-rank percentiles and levels', async () => {
    const solana = stubSolanaChain({ getRecentPrioritizationFees: FEES });
    const out = await solanaPriorityFee.run({ writable_accounts: [MINT] }, fakeContext({ chains: fakeChains({ solana }) }));
    expect(out).toEqual({
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      writable_accounts: [MINT],
      unit: 'micro-lamports per compute unit',
      levels: { low: 20, medium: 40, high: 70, very_high: 1000 },
      percentiles: { min: 0, p25: 20, p50: 40, p75: 70, p90: 80, p95: 1000, max: 1000 },
      samples: 10,
      first_slot: 500,
      last_slot: 509,
      observed_at: FAKE_NOW.toISOString(),
      cached: false,
    });
    expect(solana.calls).toEqual([{ method: 'getRecentPrioritizationFees', params: [[MINT]] }]);
    expect(z.fromJSONSchema(solanaPriorityFee.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('no samples: zeros, and network-wide without accounts', async () => {
    const solana = stubSolanaChain({ getRecentPrioritizationFees: [] });
    const out = await solanaPriorityFee.run({}, fakeContext({ chains: fakeChains({ solana }) }));
    expect(out).toMatchObject({ writable_accounts: [], samples: 0, first_slot: null, levels: { low: 0, very_high: 0 } });
    expect(solana.calls[0]!.params).toEqual([[]]);
  });

  it('caches a reading 8 seconds, shared by concurrent callers; other accounts read apart', async () => {
    let reads = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const solana = stubSolanaChain({ getRecentPrioritizationFees: async () => (reads++, await gate, FEES) });
    const ctx = (ms: number) => fakeContext({ now: at(ms), chains: fakeChains({ solana }) });
    const both = Promise.all([solanaPriorityFee.run({ writable_accounts: [MINT, OTHER] }, ctx(0)), solanaPriorityFee.run({ writable_accounts: [OTHER, MINT] }, ctx(100))]);
    release();
    const [first, second] = await both;
    expect(reads).toBe(1);
    expect(first.cached).toBe(false);
    expect(second).toMatchObject({ cached: true, observed_at: first.observed_at, levels: first.levels });
    expect(await solanaPriorityFee.run({ writable_accounts: [MINT, OTHER] }, ctx(7_999))).toMatchObject({ cached: true });
    expect(reads).toBe(1);
    expect(await solanaPriorityFee.run({ writable_accounts: [MINT, OTHER] }, ctx(8_000))).toMatchObject({ cached: false, observed_at: at(8_000).toISOString() });
    expect(reads).toBe(2);
    await solanaPriorityFee.run({ writable_accounts: [MINT] }, ctx(8_001));
    expect(reads).toBe(3);
  });

  it('an RPC failure is 502 and is not cached', async () => {
    let fail = true;
    const solana = stubSolanaChain({
      getRecentPrioritizationFees: () => {
        if (fail) throw new Error('node down at https://rpc.example/KEY');
        return FEES;
      },
    });
    const ctx = fakeContext({ chains: fakeChains({ solana }) });
    const failed = await solanaPriorityFee.run({}, ctx).catch((e: unknown) => e);
    expect(failed).toMatchObject({ name: 'UpstreamError', status: 502 });
    expect((failed as Error).message).not.toContain('KEY');
    fail = false;
    expect(await solanaPriorityFee.run({}, ctx)).toMatchObject({ cached: false, samples: 10 });
  });

  it('takes up to five valid accounts; without Solana it is chain_not_configured', async () => {
    expect(solanaPriorityFee.input.safeParse({ writable_accounts: Array(6).fill(MINT) }).success).toBe(false);
    expect(solanaPriorityFee.input.safeParse({ writable_accounts: ['0xnot-base58'] }).success).toBe(false);
    // Base58 of the right length that is not 32 bytes.
    expect(solanaPriorityFee.input.safeParse({ writable_accounts: ['1'.repeat(44)] }).success).toBe(false);
    await expect(solanaPriorityFee.run({}, fakeContext())).rejects.toMatchObject({ status: 422, code: 'chain_not_configured' });
    expect(solanaPriorityFee.requires).toEqual(['solana']);
  });

  it('summarise: one sample is every percentile', () => {
    expect(summarise([{ slot: 7n, prioritizationFee: 3n }], FAKE_NOW).percentiles).toEqual({ min: 3, p25: 3, p50: 3, p75: 3, p90: 3, p95: 3, max: 3 });
  });
});
