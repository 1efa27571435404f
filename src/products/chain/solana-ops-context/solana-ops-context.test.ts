import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_NOW, fakeChains, fakeContext, stubSolanaChain } from '../../kit/fake-context.ts';
import { associatedTokenAccount } from '../solana.ts';
import { solanaOpsContext } from './index.ts';

const OWNER = 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr';
const MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const context = { slot: 1000 };

function cluster(options: { tokenAccount?: boolean } = {}) {
  return stubSolanaChain(
    {
      getSlot: 1000,
      getBlockHeight: 990,
      getLatestBlockhash: { context, value: { blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: 1_130 } },
      getRecentPrioritizationFees: [{ slot: 995, prioritizationFee: 1 }, { slot: 999, prioritizationFee: 5000 }],
      getBalance: { context, value: 1_500_000_001 },
      getAccountInfo: { context, value: options.tokenAccount ? { data: ['', 'base64'], executable: false, lamports: 2_039_280, owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', rentEpoch: 0, space: 165 } : null },
      getTokenAccountBalance: { context, value: { amount: '2500000', decimals: 6, uiAmount: 2.5, uiAmountString: '2.5' } },
    },
    { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', usdcMint: MINT },
  );
}

describe('solana-ops-context', () => {
  it('slot, blockhash age and validity, fee levels, USDC, and the account with its token account', async () => {
    const solana = cluster({ tokenAccount: true });
    const out = await solanaOpsContext.run({ account: OWNER }, fakeContext({ chains: fakeChains({ solana }) }));
    const ata = await associatedTokenAccount(OWNER, MINT);
    expect(out).toEqual({
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      slot: 1000,
      block_height: 990,
      blockhash: { value: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', last_valid_block_height: 1_130, age_blocks: 10, expires_in_blocks: 140, expires_in_seconds: 56 },
      priority_fee: expect.objectContaining({ samples: 2, levels: { low: 1, medium: 1, high: 5000, very_high: 5000 }, cached: false }),
      usdc: { mint: MINT, decimals: 6, token_program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
      account: {
        address: OWNER,
        source: 'input',
        sol_lamports: '1500000001',
        sol: '1.500000001',
        usdc_token_account: ata,
        token_account_exists: true,
        usdc_balance_atomic: '2500000',
        usdc_balance: '2.5',
      },
      observed_at: FAKE_NOW.toISOString(),
    });
    expect(solana.calls.find((c) => c.method === 'getAccountInfo')!.params[0]).toBe(ata);
    expect(z.fromJSONSchema(solanaOpsContext.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(out).success).toBe(true);
  });

  it('an account without a USDC token account; the Solana payer when no account is given; none otherwise', async () => {
    const solana = cluster();
    const missing = await solanaOpsContext.run({ account: OWNER }, fakeContext({ chains: fakeChains({ solana }) }));
    expect(missing.account).toMatchObject({ token_account_exists: false, usdc_balance: null, usdc_balance_atomic: null });
    expect(solana.calls.some((c) => c.method === 'getTokenAccountBalance')).toBe(false);
    expect((await solanaOpsContext.run({}, fakeContext({ caller: OWNER, chains: fakeChains({ solana }) }))).account).toMatchObject({ address: OWNER, source: 'payer' });
    const evmPayer = await solanaOpsContext.run({}, fakeContext({ caller: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', chains: fakeChains({ solana }) }));
    expect(evmPayer.account).toBeNull();
    expect(z.fromJSONSchema(solanaOpsContext.outputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(evmPayer).success).toBe(true);
  });

  it('a failing read is a problem, never a partial answer', async () => {
    const solana = stubSolanaChain({ getSlot: 1, getBlockHeight: 1, getRecentPrioritizationFees: [], getLatestBlockhash: () => { throw new Error('boom'); } });
    await expect(solanaOpsContext.run({}, fakeContext({ chains: fakeChains({ solana }) }))).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
  });

  it('refuses a malformed account before payment', () => {
    expect(solanaOpsContext.input.safeParse({ account: 'not-an-address' }).success).toBe(false);
    expect(solanaOpsContext.input.safeParse({ account: '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045' }).success).toBe(false);
  });
});
