/** bazaar-seller-rank: the top 25 sellers of the latest snapshot, with settlement evidence where the index has it. */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { SELLER_RANK_RULE, sellerRank } from '../figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef, usdField } from '../market.ts';
import { sellerSettlements, settlementEvidence } from '../settlements.ts';

const DAY_MS = 86_400_000;

export const SellerEntry = z.object({
  rank: z.int().describe('Rank, 1 first'),
  pay_to: z.string().describe('Pay-to address'),
  networks: z.array(z.string()).describe('Networks its listings accept'),
  listings: z.int().describe('Its listings'),
  categories: z.array(z.string()).describe('Categories of its listings'),
  median_price_usd: usdField('Median price of its listings'),
  reported_calls_30d: z.int().nullable().describe('30-day calls the lists report for its listings'),
  settled_calls_30d: z.int().nullable().describe('Settled USDC calls in the chain index over 30 days (null: not covered by the index)'),
  settled_payers_30d: z.int().nullable().describe('Distinct payers of those calls'),
  settled_usd_30d: z.number().nullable().describe('USD of those calls'),
});

export const bazaarSellerRank = product({
  id: 'bazaar-seller-rank',
  title: 'Bazaar seller rank',
  description:
    'Returns the top 25 bazaar sellers (pay-to addresses) of the latest snapshot, ranked by settled USDC calls over 30 days in the chain index, then by reported calls and listings, with each figure\'s evidence.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({}),
  inputExample: {},
  output: z.object({
    snapshot: SnapshotRef.describe('The snapshot the listings come from'),
    sellers: z.array(SellerEntry).describe('Top 25 sellers'),
    rule: z.string().describe('The ranking rule'),
    evidence: z.object({ listings: z.string().describe('What listing figures rest on'), settlements: z.string().describe('What settlement figures rest on') }).describe('Evidence of each figure'),
  }),
  outputExample: {
    snapshot: {
      id: 2,
      day: "2025-05-31"
    },
    sellers: [
      {
        rank: 1,
        pay_to: "0x1111111111111111111111111111111111111111",
        networks: [
          "eip155:8453"
        ],
        listings: 2,
        categories: [
          "inference",
          "other"
        ],
        median_price_usd: 0.02,
        reported_calls_30d: 160,
        settled_calls_30d: null,
        settled_payers_30d: null,
        settled_usd_30d: null
      },
      {
        rank: 2,
        pay_to: "0x3333333333333333333333333333333333333333",
        networks: [
          "eip155:8453"
        ],
        listings: 2,
        categories: [
          "inference",
          "web-data"
        ],
        median_price_usd: 0.03,
        reported_calls_30d: 12,
        settled_calls_30d: null,
        settled_payers_30d: null,
        settled_usd_30d: null
      },
      {
        rank: 3,
        pay_to: "0x2222222222222222222222222222222222222222",
        networks: [
          "eip155:8453"
        ],
        listings: 1,
        categories: [
          "market-data"
        ],
        median_price_usd: 0.004,
        reported_calls_30d: 3,
        settled_calls_30d: null,
        settled_payers_30d: null,
        settled_usd_30d: null
      }
    ],
    rule: SELLER_RANK_RULE,
    evidence: {
      listings: "snapshot 2 (2025-05-31)",
      settlements: "none: this instance indexes no Base chain (INDEX_CHAINS), so no settlement figure is given"
    }
  },
  run: async (_input, ctx) => {
    const [latest] = await latestSnapshots(ctx, 1);
    const listings = await ctx.bazaar!.listings(latest!.id);
    const settled = await sellerSettlements(ctx, listings, new Date(ctx.now.getTime() - 30 * DAY_MS), ctx.now);
    return {
      snapshot: snapshotRef(latest!),
      sellers: sellerRank(listings, settled),
      rule: SELLER_RANK_RULE,
      evidence: { listings: `snapshot ${latest!.id} (${latest!.day})`, settlements: settlementEvidence(settled) },
    };
  },
});
