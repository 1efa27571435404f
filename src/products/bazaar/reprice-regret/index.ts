/**
 * reprice-regret: what a seller's price changes did to its settled calls. For each listing (25 per
 * page) the last price change inside the window splits it in two; settled calls are those of the
 * chain index to the listing's pay-to whose amount is the listing's price on that side (so listings
 * of one seller at different prices are told apart). Revenue per day before against after is the
 * regret (positive: the new price earns less per day).
 */
import { z } from 'zod';
import { ProductInputError, READ, evmAddress, product, type Listing } from '../../kit/index.ts';
import { SnapshotRef, compare, findListing, latestListings, snapshotRef, usd } from '../market.ts';
import { settlementDays, settlementEvidence, type SettlementDays } from '../settlements.ts';

const DAY_MS = 86_400_000;
const PAGE = 25;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS));

const Side = z.object({
  days: z.int().describe('Days on this side of the change within the window'),
  price_usd: z.number().nullable().describe('Price on this side, USD'),
  settled_calls: z.int().nullable().describe('Settled calls at this price (null: no evidence)'),
  calls_per_day: z.number().nullable().describe('Settled calls per day'),
  revenue_usd_per_day: z.number().nullable().describe('Settled USD per day'),
});

export const RepriceOutput = z.object({
  window: z.object({ days: z.int().describe('Window length'), from: z.string().describe('Start (ISO 8601)'), to: z.string().describe('End (ISO 8601)') }).describe('The look-back window'),
  snapshot: SnapshotRef.describe('The latest snapshot (the listings)'),
  seller_payto: z.string().nullable().describe('The seller asked about'),
  resource_url: z.string().nullable().describe('The listing asked about'),
  page: z.int().describe('This page'),
  pages: z.int().describe('Pages in all (25 listings each)'),
  total_listings: z.int().describe('Listings in all'),
  listings: z
    .array(
      z.object({
        key: z.string().describe('Listing key'),
        pay_to: z.string().describe('Pay-to address'),
        price_change: z.object({ day: z.string().describe('Snapshot day the new price was first seen'), from_price_usd: z.number().nullable().describe('Old price'), to_price_usd: z.number().nullable().describe('New price') }).nullable().describe('The last price change in the window (null: none)'),
        before: Side.nullable().describe('Before the change (null: no change)'),
        after: Side.describe('After the change (the whole window when there was none)'),
        regret_usd_per_day: z.number().nullable().describe('Revenue per day before minus after (positive: the change cost revenue)'),
        verdict: z.enum(['regret', 'gain', 'even', 'no_price_change', 'no_evidence']).describe('What the change did'),
      }),
    )
    .describe('Listings of this page, by key'),
  evidence: z.object({ prices: z.string().describe('What prices rest on'), settlements: z.string().describe('What settled calls rest on') }).describe('Evidence of each figure'),
});

/** Captured from the dev chain (test/bazaar.test.ts): a seller doubling its price, two calls settled before and one after. */
export const EXAMPLE: z.infer<typeof RepriceOutput> = {
  window: { days: 7, from: '2026-11-21T02:13:24.646Z', to: '2026-11-28T02:13:24.646Z' },
  snapshot: { id: 6, day: '2026-11-28' },
  seller_payto: null,
  resource_url: 'https://repricer.invalid/api/quote',
  page: 1,
  pages: 1,
  total_listings: 1,
  listings: [
    {
      key: 'https://repricer.invalid/api/quote',
      pay_to: '0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e',
      price_change: { day: '2026-11-28', from_price_usd: 0.003, to_price_usd: 0.006 },
      before: { days: 7, price_usd: 0.003, settled_calls: 2, calls_per_day: 0.286, revenue_usd_per_day: 0.000857 },
      after: { days: 1, price_usd: 0.006, settled_calls: 1, calls_per_day: 1, revenue_usd_per_day: 0.006 },
      regret_usd_per_day: -0.005143,
      verdict: 'gain',
    },
  ],
  evidence: {
    prices: 'daily snapshots 2026-11-21 to 2026-11-28',
    settlements:
      'chain index, eip155:31337: USDC transfers to the pay-to made with EIP-3009 authorizations (AuthorizationUsed), 2026-11-21T02:13:24.646Z to 2026-11-28T02:13:24.646Z; a listing counts the transfers of its price',
  },
};

function side(listing: Listing, amount: string | undefined, price: number | null, days: number, settled: SettlementDays | null, inSide: (day: string) => boolean) {
  if (!settled || !listing.accepts.some((a) => a.network === settled.network)) return { days, price_usd: usd(price), settled_calls: null, calls_per_day: null, revenue_usd_per_day: null };
  const calls = settled.rows.filter((r) => r.payTo === listing.payTo && r.amount === amount && inSide(r.day)).reduce((a, r) => a + r.calls, 0);
  const perDay = days > 0 ? calls / days : 0;
  return { days, price_usd: usd(price), settled_calls: calls, calls_per_day: Math.round(perDay * 1000) / 1000, revenue_usd_per_day: usd(perDay * (price ?? 0)) };
}

/** The listings the input names in the latest snapshot: refused (400/422, never charged) when it names none. */
function named(input: { resource_url?: string | undefined; seller_payto?: string | undefined; page: number }, all: readonly Listing[]) {
  if ((input.resource_url === undefined) === (input.seller_payto === undefined)) {
    throw new ProductInputError('give exactly one of resource_url and seller_payto', 400, input.resource_url === undefined ? 'seller_payto' : 'resource_url');
  }
  const seller = input.seller_payto?.toLowerCase();
  const chosen = seller ? all.filter((l) => l.payTo === seller) : [findListing(all, input.resource_url!)];
  if (chosen.length === 0) throw new ProductInputError(`no listing pays ${input.seller_payto} in the latest snapshot`, 422, 'seller_payto', 'unknown_listing');
  const pages = Math.ceil(chosen.length / PAGE);
  if (input.page > pages) throw new ProductInputError(`page ${input.page} is past the last page (${pages})`, 422, 'page');
  return { seller, chosen, pages };
}

export const repriceRegret = product({
  id: 'reprice-regret',
  title: 'Reprice regret',
  description:
    "Shows what a seller's price changes did to its settled calls over a window: per listing (25 per page) the last price change, settled calls and revenue per day before and after it (chain-index evidence, matched by price), and the regret. Give `resource_url` or `seller_payto`. Free example: GET /api/v1/reprice-regret/example.",
  price: '0.01',
  annotations: READ,
  requires: ['bazaar', 'index'],
  input: z.object({
    resource_url: z.url().optional().describe('Resource URL of one listing (give this or seller_payto)'),
    seller_payto: evmAddress().optional().describe("Seller's pay-to address: all its listings (give this or resource_url)"),
    window_days: z.int().min(7).max(90).default(30).describe('Look-back window in days, 7 to 90'),
    page: z.int().min(1).default(1).describe('Page of results, 25 listings per page'),
  }),
  inputExample: { seller_payto: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', window_days: 30 },
  freeDoors: [{ method: 'GET', path: '/api/v1/reprice-regret/example', note: 'an example report' }],
  output: RepriceOutput,
  outputExample: EXAMPLE,
  // Before payment: a seller or listing not in the latest snapshot is refused in the 402 already.
  precheck: async (input, ctx) => void named(input, (await latestListings(ctx)).listings),
  run: async (input, ctx) => {
    const { snapshot: latest, listings: all } = await latestListings(ctx);
    const { seller, chosen, pages } = named(input, all);
    const listings = chosen.sort((a, b) => compare(a.key, b.key)).slice((input.page - 1) * PAGE, input.page * PAGE);
    const from = new Date(ctx.now.getTime() - input.window_days * DAY_MS);
    const settled = await settlementDays(ctx, listings, from, ctx.now);
    const today = dayOf(ctx.now);
    const start = dayOf(from);
    const rows = [];
    for (const listing of listings) {
      const history = (await ctx.bazaar!.history(listing.key)).filter((h) => h.day >= start);
      let change: { day: string; old: Listing; now: Listing } | undefined;
      for (let i = 1; i < history.length; i++) {
        const [a, b] = [history[i - 1]!.listing, history[i]!.listing];
        if (a.accepts[0]!.amount !== b.accepts[0]!.amount) change = { day: history[i]!.day, old: a, now: b };
      }
      if (!change) {
        const after = side(listing, listing.accepts[0]!.amount, listing.priceUsd, input.window_days, settled, () => true);
        rows.push({ key: listing.key, pay_to: listing.payTo, price_change: null, before: null, after, regret_usd_per_day: null, verdict: after.settled_calls === null ? ('no_evidence' as const) : ('no_price_change' as const) });
        continue;
      }
      const before = side(listing, change.old.accepts[0]!.amount, change.old.priceUsd, daysBetween(start, change.day), settled, (d) => d < change.day);
      const after = side(listing, change.now.accepts[0]!.amount, change.now.priceUsd, daysBetween(change.day, today) + 1, settled, (d) => d >= change.day);
      const regret = before.revenue_usd_per_day === null || after.revenue_usd_per_day === null ? null : usd(before.revenue_usd_per_day - after.revenue_usd_per_day);
      rows.push({
        key: listing.key,
        pay_to: listing.payTo,
        price_change: { day: change.day, from_price_usd: usd(change.old.priceUsd), to_price_usd: usd(change.now.priceUsd) },
        before,
        after,
        regret_usd_per_day: regret,
        verdict: regret === null ? ('no_evidence' as const) : regret > 0 ? ('regret' as const) : regret < 0 ? ('gain' as const) : ('even' as const),
      });
    }
    return {
      window: { days: input.window_days, from: from.toISOString(), to: ctx.now.toISOString() },
      snapshot: snapshotRef(latest),
      seller_payto: seller ?? null,
      resource_url: input.resource_url ?? null,
      page: input.page,
      pages,
      total_listings: chosen.length,
      listings: rows,
      evidence: { prices: `daily snapshots ${start} to ${latest.day}`, settlements: `${settlementEvidence(settled)}${settled ? '; a listing counts the transfers of its price' : ''}` },
    };
  },
});
