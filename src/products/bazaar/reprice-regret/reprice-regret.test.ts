import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_NOW, fakeContext } from '../../kit/fake-context.ts';
import type { ChainIndex } from '../../kit/index.ts';
import { blocks, memoryIndex } from '../../chain/index-fixture.ts';
import { SELLER_A, SELLER_C, twoDays } from '../fixture.ts';
import { settledPayments } from '../settlements.fixture.ts';
import { repriceRegret } from './index.ts';

const DAY = 86_400_000;

describe('reprice-regret on chain-index evidence', () => {
  let index: ChainIndex & { close(): void };
  beforeAll(async () => {
    // Scrape (C, 0.03) settled twice on 2025-05-31; weather (A): 3 calls at 0.01 on 2025-05-29 and 2025-05-30
    // (one and two), none at its new price 0.02 (seen from 2025-05-31).
    index = await memoryIndex(
      {
        blocks: blocks(1, 10, FAKE_NOW),
        ...settledPayments([
          { to: SELLER_C, value: 30000n, block: 2, at: new Date(FAKE_NOW.getTime() - 1 * DAY) },
          { to: SELLER_C, value: 30000n, block: 3, at: new Date(FAKE_NOW.getTime() - 1 * DAY) },
          { to: SELLER_A, value: 10000n, block: 4, at: new Date(FAKE_NOW.getTime() - 3 * DAY) },
          { to: SELLER_A, value: 10000n, block: 5, at: new Date(FAKE_NOW.getTime() - 2 * DAY) },
          { to: SELLER_A, value: 10000n, block: 6, at: new Date(FAKE_NOW.getTime() - 2 * DAY) },
        ]),
      },
      { network: 'eip155:8453' },
    );
  });
  afterAll(() => index?.close());

  it('reprice regret: calls per day before and after the change, matched by price', async () => {
    const ctx = fakeContext({ bazaar: twoDays(), index });
    const out = await repriceRegret.run({ resource_url: 'https://weather.invalid/api/forecast', window_days: 7, page: 1 }, ctx);
    expect(repriceRegret.output.parse(out)).toEqual(out);
    // Window 2025-05-25 .. 2025-06-01; change seen 2025-05-31: 6 days before (3 calls at 0.01), 2 days after (none at 0.02).
    expect(out.listings).toEqual([
      {
        key: 'https://weather.invalid/api/forecast',
        pay_to: SELLER_A,
        price_change: { day: '2025-05-31', from_price_usd: 0.01, to_price_usd: 0.02 },
        before: { days: 6, price_usd: 0.01, settled_calls: 3, calls_per_day: 0.5, revenue_usd_per_day: 0.005 },
        after: { days: 2, price_usd: 0.02, settled_calls: 0, calls_per_day: 0, revenue_usd_per_day: 0 },
        regret_usd_per_day: 0.005,
        verdict: 'regret',
      },
    ]);
    const seller = await repriceRegret.run({ seller_payto: SELLER_A, window_days: 30, page: 1 }, ctx);
    expect(seller.listings.map((l) => [l.key, l.verdict])).toEqual([
      ['https://ai.invalid/v1/chat', 'no_price_change'],
      ['https://weather.invalid/api/forecast', 'regret'],
    ]);
    await expect(repriceRegret.run({ window_days: 30, page: 1 }, ctx)).rejects.toMatchObject({ status: 400 });
  });

  it('refuses before payment a listing or seller not in the latest snapshot (422), and lets known ones through', async () => {
    const ctx = fakeContext({ bazaar: twoDays(), index });
    const precheck = repriceRegret.precheck!;
    // The wallet listing (B) was removed on day 2: unknown in the latest snapshot.
    await expect(precheck({ resource_url: 'https://chain.invalid/wallet/balance', window_days: 30, page: 1 }, ctx)).rejects.toMatchObject({ status: 422, field: 'resource_url', code: 'unknown_listing' });
    await expect(precheck({ seller_payto: '0x00000000000000000000000000000000000000aa', window_days: 30, page: 1 }, ctx)).rejects.toMatchObject({ status: 422, field: 'seller_payto', code: 'unknown_listing' });
    await expect(precheck({ seller_payto: SELLER_A, window_days: 30, page: 2 }, ctx)).rejects.toMatchObject({ status: 422, field: 'page' });
    await expect(precheck({ seller_payto: SELLER_A, window_days: 30, page: 1 }, ctx)).resolves.toBeUndefined();
  });
});
