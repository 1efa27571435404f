import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_NOW, fakeContext } from '../../kit/fake-context.ts';
import type { ChainIndex } from '../../kit/index.ts';
import { blocks, memoryIndex } from '../../chain/index-fixture.ts';
import { SELLER_A, SELLER_C, twoDays } from '../fixture.ts';
import { settledPayments } from '../settlements.fixture.ts';
import { ghostBidAudit } from './index.ts';

const DAY = 86_400_000;

describe('ghost-bid-audit on chain-index evidence', () => {
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

  it('a listing with settlements is no ghost; one without is, with its causes', async () => {
    const ctx = fakeContext({ bazaar: twoDays(), index });
    const scrape = await ghostBidAudit.run({ resource_url: 'https://scrape.invalid/extract', window_days: 30 }, ctx);
    expect(ghostBidAudit.output.parse(scrape)).toEqual(scrape);
    expect(scrape).toMatchObject({ quoted_days: 2, settled_calls: 2, days_with_settlements: 1, ghost_ratio: 0.5, ghost: false });
    const chat = await ghostBidAudit.run({ resource_url: 'https://ai.invalid/v1/chat', window_days: 30 }, ctx);
    expect(chat).toMatchObject({ quoted_days: 2, settled_calls: 0, ghost_ratio: 1, ghost: true });
    expect(chat.likely_causes).toEqual(['the list reports 70 calls in 30 days, none settled with an EIP-3009 authorization on chain']);
  });
});
