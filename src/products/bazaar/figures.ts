/**
 * The figures of the bazaar products, as pure functions of snapshot listings (and, for sellers,
 * settlement evidence). Each product states the rule it uses; the rules live here once.
 */
import { CATEGORIES, CATEGORY_NOTES, type Category } from '../../bazaar/classify.ts';
import type { Listing } from '../kit/index.ts';
import { byKey, compare, groupBy, median, pct, prices, quantile, reportedCalls, serviceOf, usd } from './market.ts';
import type { SellerSettlements } from './settlements.ts';

export const TOP_SERVICES_RULE = 'services (resource origins) ranked by the 30-day calls the lists report (desc), then by listings (desc), then by origin (asc); top 10';

export function pulseFigures(listings: readonly Listing[]) {
  const networks = groupBy(
    listings.flatMap((l) => [...new Set(l.accepts.map((a) => a.network))].map((network) => ({ network, listing: l }))),
    (e) => e.network,
  );
  const services = groupBy(listings, serviceOf);
  return {
    totals: {
      listings: listings.length,
      sellers: new Set(listings.map((l) => l.payTo)).size,
      services: services.size,
      networks: networks.size,
      median_price_usd: usd(median(prices(listings))),
      priced_listings: prices(listings).length,
      reported_calls_30d: reportedCalls(listings),
    },
    top_services: [...services]
      .map(([service, group]) => ({
        service,
        listings: group.length,
        sellers: new Set(group.map((l) => l.payTo)).size,
        median_price_usd: usd(median(prices(group))),
        reported_calls_30d: reportedCalls(group),
      }))
      .sort((a, b) => (b.reported_calls_30d ?? -1) - (a.reported_calls_30d ?? -1) || b.listings - a.listings || compare(a.service, b.service))
      .slice(0, 10)
      .map((s, i) => ({ rank: i + 1, ...s })),
    networks: [...networks]
      .map(([network, entries]) => {
        const group = entries.map((e) => e.listing);
        const onNetwork = group.map((l) => l.accepts.filter((a) => a.network === network).map((a) => a.priceUsd).filter((p): p is number => p !== null)).map((p) => (p.length > 0 ? Math.min(...p) : null));
        return {
          network,
          listings: group.length,
          sellers: new Set(group.map((l) => l.accepts.find((a) => a.network === network)!.payTo)).size,
          median_price_usd: usd(median(onNetwork.filter((p): p is number => p !== null))),
        };
      })
      .sort((a, b) => b.listings - a.listings || compare(a.network, b.network)),
  };
}

const LIST_CAP = 100;

/** Added, removed, repriced and schema-changed listings between two snapshots (each list capped at 100, in key order). */
export function deltaFigures(before: readonly Listing[], after: readonly Listing[]) {
  const old = byKey(before);
  const now = byKey(after);
  const brief = (l: Listing) => ({ key: l.key, resource: l.resource, pay_to: l.payTo, network: l.network, price_usd: usd(l.priceUsd), category: l.category });
  const added = after.filter((l) => !old.has(l.key));
  const removed = before.filter((l) => !now.has(l.key));
  const repriced: { key: string; resource: string; pay_to: string; from_price_usd: number | null; to_price_usd: number | null; change_pct: number | null }[] = [];
  const schemaChanged: { key: string; resource: string; changed: ('input' | 'output')[] }[] = [];
  for (const l of after) {
    const o = old.get(l.key);
    if (!o) continue;
    if (priceKey(o) !== priceKey(l)) repriced.push({ key: l.key, resource: l.resource, pay_to: l.payTo, from_price_usd: usd(o.priceUsd), to_price_usd: usd(l.priceUsd), change_pct: pct(l.priceUsd, o.priceUsd) });
    const changed: ('input' | 'output')[] = [];
    if (JSON.stringify(o.inputSchema) !== JSON.stringify(l.inputSchema)) changed.push('input');
    if (JSON.stringify(o.outputSchema) !== JSON.stringify(l.outputSchema)) changed.push('output');
    if (changed.length > 0) schemaChanged.push({ key: l.key, resource: l.resource, changed });
  }
  const cap = <T>(list: T[]) => list.slice(0, LIST_CAP);
  return {
    counts: { added: added.length, removed: removed.length, repriced: repriced.length, schema_changed: schemaChanged.length },
    added: cap(added.map(brief)),
    removed: cap(removed.map(brief)),
    repriced: cap(repriced),
    schema_changed: cap(schemaChanged),
    truncated: [added, removed, repriced, schemaChanged].some((list) => list.length > LIST_CAP),
  };
}

/** A listing's price as compared between snapshots: every accept's network, scheme, asset and amount. */
export function priceKey(l: Listing): string {
  return l.accepts.map((a) => `${a.network} ${a.scheme} ${a.asset} ${a.amount}`).join('|');
}

export const HEAT_RULE =
  'heat = listing change in percent since the previous snapshot ((listings now − before) / before × 100, one decimal; a category that had none before and has some now is 100); categories ranked by heat (desc), then listings (desc), then name';

/** The 9 categories now and at the previous snapshot (null: no previous snapshot). */
export function categoryHeat(before: readonly Listing[] | null, after: readonly Listing[]) {
  const now = groupBy(after, (l) => l.category);
  const then = before ? groupBy(before, (l) => l.category) : undefined;
  const oldKeys = before ? byKey(before) : undefined;
  const newKeys = byKey(after);
  return CATEGORIES.map((category: Category) => {
    const group = now.get(category) ?? [];
    const previous = then ? (then.get(category) ?? []) : null;
    const listings = group.length;
    const heat = previous === null ? null : previous.length === 0 ? (listings > 0 ? 100 : 0) : pct(listings, previous.length);
    return {
      category,
      note: CATEGORY_NOTES[category],
      listings,
      listings_before: previous?.length ?? null,
      new_listings: oldKeys ? group.filter((l) => !oldKeys.has(l.key)).length : null,
      removed_listings: previous ? previous.filter((l) => !newKeys.has(l.key)).length : null,
      sellers: new Set(group.map((l) => l.payTo)).size,
      median_price_usd: usd(median(prices(group))),
      median_price_change_pct: previous ? pct(median(prices(group)), median(prices(previous))) : null,
      reported_calls_30d: reportedCalls(group),
      heat,
    };
  }).sort((a, b) => (b.heat ?? -Infinity) - (a.heat ?? -Infinity) || b.listings - a.listings || compare(a.category, b.category));
}

/** Price quantiles per scheme over the accepts priced in a USD stablecoin, optionally on one network. */
export function priceStats(listings: readonly Listing[], network?: string) {
  const accepts = listings.flatMap((l) => l.accepts.filter((a) => a.priceUsd !== null && (network === undefined || a.network === network)));
  return [...groupBy(accepts, (a) => a.scheme)]
    .map(([scheme, group]) => {
      const sorted = group.map((a) => a.priceUsd!).sort((a, b) => a - b);
      return {
        scheme,
        count: sorted.length,
        // A group is never empty: every figure is a number.
        min: usd(sorted[0]!)!,
        p10: usd(quantile(sorted, 0.1))!,
        p25: usd(quantile(sorted, 0.25))!,
        median: usd(quantile(sorted, 0.5))!,
        p75: usd(quantile(sorted, 0.75))!,
        p90: usd(quantile(sorted, 0.9))!,
        max: usd(sorted.at(-1)!)!,
        mean: usd(sorted.reduce((a, b) => a + b, 0) / sorted.length)!,
      };
    })
    .sort((a, b) => b.count - a.count || compare(a.scheme, b.scheme));
}

export const SELLER_RANK_RULE =
  'sellers (pay-to addresses) ranked by settled USDC calls over the last 30 days in the chain index (desc; sellers the index does not cover count 0), then by the 30-day calls the lists report (desc), then by listings (desc), then by address (asc); top 25';

export function sellerRank(listings: readonly Listing[], settled: SellerSettlements | null) {
  return [...groupBy(listings, (l) => l.payTo)]
    .map(([payTo, group]) => {
      const evidence = settled?.byPayTo.get(payTo);
      const covered = settled !== null && group.some((l) => l.accepts.some((a) => a.network === settled.network));
      return {
        pay_to: payTo,
        networks: [...new Set(group.flatMap((l) => l.accepts.map((a) => a.network)))].sort(),
        listings: group.length,
        categories: [...new Set(group.map((l) => l.category))].sort(),
        median_price_usd: usd(median(prices(group))),
        reported_calls_30d: reportedCalls(group),
        settled_calls_30d: covered ? (evidence?.calls ?? 0) : null,
        settled_payers_30d: covered ? (evidence?.payers ?? 0) : null,
        settled_usd_30d: covered ? usd(evidence?.usd ?? 0) : null,
      };
    })
    .sort(
      (a, b) =>
        (b.settled_calls_30d ?? 0) - (a.settled_calls_30d ?? 0) ||
        (b.reported_calls_30d ?? -1) - (a.reported_calls_30d ?? -1) ||
        b.listings - a.listings ||
        compare(a.pay_to, b.pay_to),
    )
    .slice(0, 25)
    .map((s, i) => ({ rank: i + 1, ...s }));
}

export const TRENDING_RULE =
  'services (resource origins) whose reported 30-day calls grew between the oldest and the latest snapshot of the window (signal `calls`), or, where the lists report no calls, whose listings grew (signal `listings`; a service absent from the oldest snapshot is `new`); ranked by calls growth, then listing growth, then origin; top 25';

/** Services trending between the oldest and the latest of the window's snapshots. */
export function trending(oldest: readonly Listing[], latest: readonly Listing[]) {
  const then = groupBy(oldest, serviceOf);
  return [...groupBy(latest, serviceOf)]
    .map(([service, group]) => {
      const before = then.get(service) ?? [];
      const callsNow = reportedCalls(group);
      const callsBefore = before.length > 0 ? reportedCalls(before) : null;
      const callsGrowth = callsNow !== null && callsBefore !== null ? callsNow - callsBefore : null;
      const listingGrowth = group.length - before.length;
      const signal = callsGrowth !== null && callsGrowth > 0 ? 'calls' : before.length === 0 ? 'new' : listingGrowth > 0 ? 'listings' : null;
      return {
        service,
        signal,
        listings: group.length,
        listings_before: before.length,
        listing_growth: listingGrowth,
        reported_calls_30d: callsNow,
        reported_calls_30d_before: callsBefore,
        calls_growth: callsGrowth,
        calls_growth_pct: pct(callsNow, callsBefore),
      };
    })
    .filter((s): s is typeof s & { signal: 'calls' | 'new' | 'listings' } => s.signal !== null)
    .sort((a, b) => (b.calls_growth ?? 0) - (a.calls_growth ?? 0) || b.listing_growth - a.listing_growth || compare(a.service, b.service))
    .slice(0, 25);
}
