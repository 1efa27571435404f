import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import type { ChainIndex } from '../../kit/index.ts';
import { blocks, memoryIndex } from '../../chain/index-fixture.ts';
import { SELLER_A, SELLER_B, SELLER_C, twoDays } from '../fixture.ts';
import { settledPayments } from '../settlements.fixture.ts';
import { bazaarSellerRank } from './index.ts';

const hourAgo = new Date(FAKE_NOW.getTime() - 3_600_000);

describe('bazaar-seller-rank', () => {
  let index: ChainIndex & { close(): void };
  beforeAll(async () => {
    index = await memoryIndex(
      {
        blocks: blocks(1, 10, FAKE_NOW),
        ...settledPayments([
          { to: SELLER_C, value: 30000n, block: 5, at: hourAgo },
          { to: SELLER_C, value: 30000n, block: 6, at: hourAgo },
          { to: SELLER_B, value: 4000n, block: 7, at: hourAgo },
          { to: SELLER_A, value: 20000n, block: 8, at: hourAgo, eip3009: false },
        ]),
      },
      { network: 'eip155:8453' },
    );
  });
  afterAll(() => index?.close());

  it('ranks by settled calls from the index, then reported calls, then listings', async () => {
    const out = await bazaarSellerRank.run({}, fakeContext({ bazaar: twoDays(), index }));
    expect(bazaarSellerRank.output.parse(out)).toEqual(out);
    // C: 2 settled; B: 1 settled; A: its only transfer has no EIP-3009 authorization, so 0 settled.
    expect(out.sellers.map((s) => [s.pay_to, s.settled_calls_30d, s.settled_usd_30d, s.reported_calls_30d, s.listings])).toEqual([
      [SELLER_C, 2, 0.06, 12, 2],
      [SELLER_B, 1, 0.004, 3, 1],
      [SELLER_A, 0, 0, 160, 2],
    ]);
    expect(out.evidence.settlements).toContain('chain index, eip155:8453');
  });

  it('without an index, settlement figures are null and say so', async () => {
    const out = await bazaarSellerRank.run({}, fakeContext({ bazaar: twoDays() }));
    expect(out.sellers.map((s) => [s.pay_to, s.settled_calls_30d])).toEqual([[SELLER_A, null], [SELLER_C, null], [SELLER_B, null]]);
    expect(out.evidence.settlements).toMatch(/^none/);
  });
});
