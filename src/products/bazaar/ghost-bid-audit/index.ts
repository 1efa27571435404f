/**
 * ghost-bid-audit: whether a listing quotes a price (is listed, day after day) without settled calls.
 * Challenges (unpaid 402s) are only visible to the seller, so the audit rests on what is public:
 * the days the listing was quoted in the daily snapshots, and settled USDC calls at one of its
 * quoted amounts in the chain index. Ghost ratio: the share of quoted days without a settled call.
 */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { SnapshotRef, findListing, latestSnapshots, precheckListing, median, prices, snapshotRef, usd } from '../market.ts';
import { settlementDays, settlementEvidence } from '../settlements.ts';

const DAY_MS = 86_400_000;

export const ghostBidAudit = product({
  id: 'ghost-bid-audit',
  title: 'Ghost bid audit',
  description:
    'Audits one bazaar listing for "ghost bids": days it quoted a price in the daily snapshots without a settled call in the chain index. Returns quoted days, settled calls and payers, the ghost ratio, likely causes, and the evidence of each figure.',
  price: '0.01',
  annotations: READ,
  requires: ['bazaar', 'index'],
  input: z.object({
    resource_url: z.url().describe('Resource URL of the listing to audit (MCP tools: URL#toolName)'),
    window_days: z.int().min(1).max(90).default(30).describe('Look-back window in days'),
  }),
  inputExample: { resource_url: 'https://api.example.com/api/v1/paid/web-extract', window_days: 30 },
  output: z.object({
    key: z.string().describe('Listing key'),
    snapshot: SnapshotRef.describe('The latest snapshot'),
    window: z.object({ days: z.int().describe('Window length'), from: z.string().describe('Start (ISO 8601)'), to: z.string().describe('End (ISO 8601)') }).describe('The window'),
    pay_to: z.string().describe('Pay-to address'),
    quoted_amounts_usd: z.array(z.number().nullable()).describe('Prices it quoted in the window, USD'),
    quoted_days: z.int().describe('Snapshot days in the window that list it'),
    settled_calls: z.int().nullable().describe('Settled calls at a quoted amount in the window (null: the index does not cover its network)'),
    settled_payers: z.int().nullable().describe('Distinct payers of those calls (per day, summed)'),
    days_with_settlements: z.int().nullable().describe('Quoted days with at least one settled call'),
    reported_calls_30d: z.int().nullable().describe('30-day calls the list reports'),
    ghost_ratio: z.number().nullable().describe('1 − days_with_settlements / quoted_days'),
    ghost: z.boolean().nullable().describe('Quoted in the window with no settled call at all (null: no evidence)'),
    likely_causes: z.array(z.string()).describe('What in the listing may keep buyers away, when it is a ghost'),
    evidence: z.object({ quotes: z.string().describe('What quoted days rest on'), settlements: z.string().describe('What settled calls rest on') }).describe('Evidence of each figure'),
  }),
  outputExample: {
    key: 'https://weather.invalid/api/forecast',
    snapshot: { id: 2, day: '2025-05-31' },
    window: { days: 30, from: '2025-05-02T12:00:00.000Z', to: '2025-06-01T12:00:00.000Z' },
    pay_to: '0x1111111111111111111111111111111111111111',
    quoted_amounts_usd: [0.01, 0.02],
    quoted_days: 2,
    settled_calls: 0,
    settled_payers: 0,
    days_with_settlements: 0,
    reported_calls_30d: 90,
    ghost_ratio: 1,
    ghost: true,
    likely_causes: ['no input schema is published', 'the list reports 90 calls in 30 days, none settled with an EIP-3009 authorization on chain'],
    evidence: { quotes: 'daily snapshots 2025-05-30 to 2025-05-31', settlements: 'chain index, eip155:8453: USDC transfers to the pay-to made with EIP-3009 authorizations (AuthorizationUsed), 2025-05-02T12:00:00.000Z to 2025-06-01T12:00:00.000Z' },
  },
  precheck: async (input, ctx) => precheckListing(input.resource_url, ctx),
  run: async (input, ctx) => {
    const [latest] = await latestSnapshots(ctx, 1);
    const all = await ctx.bazaar!.listings(latest!.id);
    const listing = findListing(all, input.resource_url);
    const from = new Date(ctx.now.getTime() - input.window_days * DAY_MS);
    const start = from.toISOString().slice(0, 10);
    const history = (await ctx.bazaar!.history(listing.key)).filter((h) => h.day >= start);
    const amounts = [...new Set(history.map((h) => h.listing.accepts[0]!.amount))];
    const quotedDays = new Set(history.map((h) => h.day));
    const settled = await settlementDays(ctx, [listing], from, ctx.now);
    const covered = settled !== null && listing.accepts.some((a) => a.network === settled.network);
    const rows = covered ? settled.rows.filter((r) => r.payTo === listing.payTo && amounts.includes(r.amount)) : [];
    const calls = covered ? rows.reduce((a, r) => a + r.calls, 0) : null;
    const daysWith = covered ? new Set(rows.map((r) => r.day).filter((d) => quotedDays.has(d))).size : null;
    const ghost = calls === null ? null : calls === 0;
    const causes: string[] = [];
    if (ghost) {
      if (listing.inputSchema === null) causes.push('no input schema is published');
      if (!listing.hasOutputExample) causes.push('no output example is published');
      if (listing.priceUsd === null) causes.push('not priced in a known USD stablecoin');
      const categoryMedian = median(prices(all.filter((l) => l.category === listing.category)));
      if (listing.priceUsd !== null && categoryMedian !== null && listing.priceUsd > 2 * categoryMedian) causes.push(`priced ${usd(listing.priceUsd)} USD, over twice the ${listing.category} median (${usd(categoryMedian)})`);
      if (listing.calls30d) causes.push(`the list reports ${listing.calls30d} calls in 30 days, none settled with an EIP-3009 authorization on chain`);
    }
    return {
      key: listing.key,
      snapshot: snapshotRef(latest!),
      window: { days: input.window_days, from: from.toISOString(), to: ctx.now.toISOString() },
      pay_to: listing.payTo,
      quoted_amounts_usd: [...new Set(history.map((h) => usd(h.listing.priceUsd)))],
      quoted_days: quotedDays.size,
      settled_calls: calls,
      settled_payers: covered ? rows.reduce((a, r) => a + r.payers, 0) : null,
      days_with_settlements: daysWith,
      reported_calls_30d: listing.calls30d,
      ghost_ratio: daysWith === null || quotedDays.size === 0 ? null : Math.round((1 - daysWith / quotedDays.size) * 1000) / 1000,
      ghost,
      likely_causes: causes,
      evidence: { quotes: `daily snapshots ${history[0]?.day ?? start} to ${latest!.day}`, settlements: settlementEvidence(covered ? settled : null) },
    };
  },
});
