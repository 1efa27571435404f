import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { FAKE_NOW, fakeChains, fakeContext, stubEvmChain } from '../../kit/fake-context.ts';
import type { ChainIndex } from '../../kit/index.ts';
import { blocks, memoryIndex } from '../../chain/index-fixture.ts';
import { SELLER_A, SELLER_C, USDC_BASE } from '../../bazaar/fixture.ts';
import { PAYER, settledPayments } from '../../bazaar/settlements.fixture.ts';
import { classify, type PaymentHistory } from './classes.ts';
import { payerProfile } from './index.ts';

const DAY = 86_400_000;
const ago = (days: number, seconds = 0) => new Date(FAKE_NOW.getTime() - days * DAY - seconds * 1000);

describe('payer-profile', () => {
  let index: ChainIndex & { close(): void };
  beforeAll(async () => {
    // Five x402 payments by PAYER: 0.01 to A 40 days ago; 0.03 to C twice 10 days ago (60 s apart);
    // 0.01 to A 2 days ago and 1 day ago; and one plain transfer (no EIP-3009) that is not a payment.
    index = await memoryIndex({
      blocks: blocks(1, 10, FAKE_NOW),
      ...settledPayments([
        { to: SELLER_A, value: 10000n, block: 2, at: ago(40) },
        { to: SELLER_C, value: 30000n, block: 3, at: ago(10, 60) },
        { to: SELLER_C, value: 30000n, block: 4, at: ago(10) },
        { to: SELLER_A, value: 10000n, block: 5, at: ago(2) },
        { to: SELLER_A, value: 10000n, block: 6, at: ago(1) },
        { to: SELLER_A, value: 999000n, block: 7, at: ago(1), eip3009: false },
      ]),
    });
  });
  afterAll(() => index?.close());

  it('adds up the EIP-3009 payments per window, exact, and names the class with its rule', async () => {
    const ctx = fakeContext({ index, chains: fakeChains({ evm: [stubEvmChain({}, { usdc: getAddress(USDC_BASE) })] }) });
    const out = await payerProfile.run(payerProfile.input.parse({ address: PAYER }), ctx);
    expect(payerProfile.output.parse(out)).toEqual(out);
    expect(out).toMatchObject({
      chain: 'base',
      address: getAddress(PAYER),
      class: 'occasional',
      payments: 5,
      volume: '0.09',
      first_payment: ago(40).toISOString(),
      last_payment: ago(1).toISOString(),
      sellers: 2,
      active_days: 4,
      windows: [
        { days: 7, payments: 2, volume: '0.02', sellers: 1 },
        { days: 30, payments: 4, volume: '0.08', sellers: 2 },
        { days: 90, payments: 5, volume: '0.09', sellers: 2 },
      ],
      top_sellers: [
        { address: getAddress(SELLER_A), payments: 3, volume: '0.03' },
        { address: getAddress(SELLER_C), payments: 2, volume: '0.06' },
      ],
    });
    // Gaps: 30 days - 60 s, 60 s, 8 days, 1 day: the median of four is the mean of the middle two.
    expect(out.median_interval_seconds).toBe((86_400 + 8 * 86_400) / 2);
  });

  it('an address that never paid is `none`, with empty figures', async () => {
    const ctx = fakeContext({ index, chains: fakeChains({ evm: [stubEvmChain({}, { usdc: getAddress(USDC_BASE) })] }) });
    const out = await payerProfile.run(payerProfile.input.parse({ address: SELLER_A }), ctx);
    expect(out).toMatchObject({ class: 'none', payments: 0, volume: '0', first_payment: null, median_interval_seconds: null, top_sellers: [] });
  });

  it('the rules, first that holds', () => {
    const base: PaymentHistory = { payments: 500, daysSinceFirst: 60, daysSinceLast: 0.1, last7: 200, last30: 400, activeDays30: 20, sellers30: 3, medianIntervalSeconds: 120 };
    expect(classify(base).class).toBe('automated');
    expect(classify({ ...base, medianIntervalSeconds: 3_600 }).class).toBe('regular');
    expect(classify({ ...base, last30: 0 }).class).toBe('dormant');
    expect(classify({ ...base, daysSinceFirst: 3 }).class).toBe('new');
    expect(classify({ ...base, payments: 0, last30: 0 }).class).toBe('none');
    expect(classify({ ...base, last30: 5, activeDays30: 2 }).class).toBe('occasional');
  });

  it('refuses a malformed address in its schema (before payment)', () => {
    expect(payerProfile.input.safeParse({ address: '0x123' }).success).toBe(false);
  });
});
