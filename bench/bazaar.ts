/**
 * (j) The Bazaar: ingesting a 20,000-listing discovery list (served on loopback, paginated, read by
 * the snapshotter through the safe fetcher into the embedded store as the service does: items/s,
 * peak resident memory), a cold read of that snapshot back from the store, and the p50 of the bazaar
 * products over 30 daily snapshots of 20,000 listings (1 % added, 1 % removed and 1 % repriced each
 * day). The products read the snapshots from memory, as they do in the service once the store
 * market's cache holds them (the cold read above is the price of filling it).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeMarket } from '../src/bazaar/market.ts';
import { urlSource } from '../src/bazaar/service.ts';
import { takeSnapshot } from '../src/bazaar/snapshotter.ts';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import { FAKE_NOW, fakeContext } from '../src/products/kit/fake-context.ts';
import type { BazaarMarket, BazaarSnapshot, Listing } from '../src/products/kit/bazaar-market.ts';
import { item, type ItemSpec } from '../src/products/bazaar/fixture.ts';
import { DEFAULT_POLICY } from '../src/providers/safe-fetch.ts';
import { bazaarPulse } from '../src/products/bazaar/bazaar-pulse/index.ts';
import { bazaarDelta } from '../src/products/bazaar/bazaar-delta/index.ts';
import { bazaarPriceStats } from '../src/products/bazaar/bazaar-price-stats/index.ts';
import { bazaarSellerRank } from '../src/products/bazaar/bazaar-seller-rank/index.ts';
import { bazaarCategoryHeat } from '../src/products/bazaar/bazaar-category-heat/index.ts';
import { bazaarNewListings } from '../src/products/bazaar/bazaar-new-listings/index.ts';
import { bazaarTrending } from '../src/products/bazaar/bazaar-trending/index.ts';
import { bazaarMarketReport } from '../src/products/bazaar/bazaar-market-report/index.ts';
import { bazaarCategoryHeatFeed, encodeCursor, FEED_PREFIX } from '../src/products/bazaar/bazaar-category-heat-feed/index.ts';
import { listingTriage } from '../src/products/bazaar/listing-triage/index.ts';
import { agentReturnContext } from '../src/products/agent/agent-return-context/index.ts';

const LISTINGS = Number(process.env.BENCH_BAZAAR_LISTINGS ?? 20_000);
const DAYS = 30;
const RUNS = Number(process.env.BENCH_BAZAAR_RUNS ?? 5);
const PAGE_SIZE = 1_000;
const CHURN = 0.01;
const DAY_MS = 86_400_000;

const WORDS = ['weather forecast', 'LLM chat completion', 'token price quote', 'wallet balance on Base', 'web page scrape', 'x402 settlement receipt', 'agent task router', 'image generation', 'news search', 'stock quote'];

/** The i-th listing of the generated market: 2,000 sellers, 10 kinds of service, prices 0.001–0.05. */
function generated(i: number): Record<string, unknown> {
  const seller = `0x${(i % 2_000).toString(16).padStart(40, '0')}`;
  const spec: ItemSpec = {
    resource: `https://s${i % 5_000}.example.com/api/v${i}`,
    payTo: seller,
    amount: String(1_000 + ((i * 7_919) % 49_000)),
    description: `${WORDS[i % WORDS.length]} number ${i}`,
  };
  if (i % 3 === 0) spec.calls30d = (i * 13) % 500;
  if (i % 4 === 0) spec.inputSchema = { type: 'object', properties: { q: { type: 'string' } } };
  return item(spec);
}

export interface BazaarFigures {
  listings: number;
  ingest: { seconds: number; itemsPerSecond: number; pages: number; baseRssMb: number; peakRssMb: number };
  coldReadMs: number;
  products: { product: string; runs: number; p50: number; max: number }[];
}

export async function benchBazaar(): Promise<BazaarFigures> {
  const items = Array.from({ length: LISTINGS }, (_, i) => generated(i));
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://127.0.0.1');
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ x402Version: 2, items: items.slice(offset, offset + limit), pagination: { limit, offset, total: items.length } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'percall-bench-bazaar-'));
  const store = await openEmbeddedStore(dir);
  try {
    await store.ensureSchema();
    const listUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/discovery/resources`;
    const source = urlSource(listUrl, { ...DEFAULT_POLICY, allowLoopback: true }, { maxPageBytes: 64 * 1024 * 1024, timeoutMs: 120_000 });
    const snapshots = store.bazaarSnapshots();
    const baseRss = process.memoryUsage().rss;
    let peakRss = baseRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    const t0 = performance.now();
    const outcome = await takeSnapshot({ store: snapshots, sources: [source], limits: { pageSize: PAGE_SIZE, maxPages: 1_000, maxListings: 1_000_000, timeoutMs: 120_000 }, now: FAKE_NOW });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (outcome.kind !== 'complete' || outcome.listings !== LISTINGS) throw new Error(`bench snapshot: ${JSON.stringify(outcome)}`);

    const t1 = performance.now();
    const base = await storeMarket(snapshots).listings(outcome.snapshotId);
    const coldReadMs = performance.now() - t1;

    const market = evolvingMarket(base);
    return {
      listings: LISTINGS,
      ingest: { seconds, itemsPerSecond: LISTINGS / seconds, pages: outcome.stats.pages, baseRssMb: baseRss / 2 ** 20, peakRssMb: peakRss / 2 ** 20 },
      coldReadMs,
      products: await productLatencies(market, base[Math.floor(base.length / 2)]!.key),
    };
  } finally {
    await store.close();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** DAYS daily snapshots ending on FAKE_NOW's day: each day CHURN of the listings removed, added and repriced. */
function evolvingMarket(first: Listing[]): BazaarMarket {
  const days: { snapshot: BazaarSnapshot; listings: Listing[] }[] = [];
  let current = first;
  let next = LISTINGS;
  const churn = Math.round(LISTINGS * CHURN);
  for (let d = 0; d < DAYS; d++) {
    const day = new Date(FAKE_NOW.getTime() - (DAYS - 1 - d) * DAY_MS).toISOString().slice(0, 10);
    if (d > 0) {
      const kept = current.slice(churn);
      const repriced = kept.map((l, i) => (i % Math.round(1 / CHURN) === d % Math.round(1 / CHURN) ? reprice(l) : l));
      const added = current.slice(0, churn).map((l) => ({ ...l, key: `${l.key}-d${d}-${next}`, resource: `${l.resource}-d${d}-${next++}` }));
      current = [...repriced, ...added].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    }
    days.push({
      snapshot: { id: d + 1, day, completedAt: `${day}T00:05:00.000Z`, sources: ['bench'], listings: current.length, malformed: 0, duplicates: 0 },
      listings: current,
    });
  }
  return {
    snapshots: async (limit) => days.map((s) => s.snapshot).reverse().slice(0, limit),
    listings: async (id) => days[id - 1]?.listings ?? [],
    history: async (key) => days.flatMap((s) => s.listings.filter((l) => l.key === key).map((listing) => ({ snapshotId: s.snapshot.id, day: s.snapshot.day, listing }))),
  };
}

function reprice(l: Listing): Listing {
  const amount = String(Number(l.accepts[0]!.amount) * 2);
  const priceUsd = l.priceUsd === null ? null : l.priceUsd * 2;
  return { ...l, accepts: [{ ...l.accepts[0]!, amount, priceUsd }, ...l.accepts.slice(1)], priceUsd };
}

async function productLatencies(market: BazaarMarket, someKey: string): Promise<BazaarFigures['products']> {
  const ctx = fakeContext({ bazaar: market });
  const [, before] = await market.snapshots(2);
  const [first] = (await market.snapshots(DAYS)).slice(-1);
  // A returning poller: its cursor has seen all but the latest snapshot (one entry to compute).
  const resume = encodeCursor({ v: `${FEED_PREFIX}${first!.day}`, s: before!.id, d: before!.day });
  const cases: [string, () => Promise<unknown>][] = [
    ['bazaar-pulse', () => bazaarPulse.run({} as never, ctx)],
    ['bazaar-delta', () => bazaarDelta.run({} as never, ctx)],
    ['bazaar-price-stats', () => bazaarPriceStats.run({} as never, ctx)],
    ['bazaar-seller-rank', () => bazaarSellerRank.run({} as never, ctx)],
    ['bazaar-category-heat', () => bazaarCategoryHeat.run({} as never, ctx)],
    ['bazaar-new-listings', () => bazaarNewListings.run({} as never, ctx)],
    ['bazaar-trending', () => bazaarTrending.run({} as never, ctx)],
    ['bazaar-market-report', () => bazaarMarketReport.run({} as never, ctx)],
    ['bazaar-category-heat-feed (next poll, 1 entry)', () => bazaarCategoryHeatFeed.run({ view: 'standard', cursor: resume }, ctx)],
    ['bazaar-category-heat-feed (first poll, 30 entries)', () => bazaarCategoryHeatFeed.run({ view: 'standard' }, ctx)],
    ['listing-triage', () => listingTriage.run({ resource_url: someKey }, ctx)],
    ['agent-return-context', () => agentReturnContext.run({ include: ['delta', 'trending'] } as never, ctx)],
  ];
  const figures = [];
  for (const [product, run] of cases) {
    // The feed's first poll computes 30 entries: measured once (warm from the runs before) to keep the section under a minute.
    const once = product.includes('first poll');
    if (!once) await run(); // warm-up
    const times: number[] = [];
    const runs = once ? 1 : RUNS;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    figures.push({ product, runs, p50: times[Math.floor(times.length / 2)]!, max: times.at(-1)! });
  }
  return figures;
}

export function printBazaar(f: BazaarFigures): void {
  console.log('');
  console.log(`(j) Bazaar: a ${f.listings.toLocaleString('en')}-listing discovery list on loopback, ${f.ingest.pages} pages, snapshotted into the embedded store`);
  console.log(
    `ingest: ${f.ingest.seconds.toFixed(1)} s, ${Math.round(f.ingest.itemsPerSecond).toLocaleString('en')} listings/s; RSS ${Math.round(f.ingest.baseRssMb)} MB before, peak ${Math.round(f.ingest.peakRssMb)} MB (+${Math.round(f.ingest.peakRssMb - f.ingest.baseRssMb)} MB)`,
  );
  console.log(`cold read of the snapshot from the store: ${f.coldReadMs.toFixed(0)} ms`);
  console.log(`products over ${DAYS} daily snapshots of ${f.listings.toLocaleString('en')} listings (in memory), each after one warm-up run:`);
  for (const p of f.products) console.log(`  ${p.product.padEnd(52)} p50 ${p.p50.toFixed(1).padStart(7)} ms   max ${p.max.toFixed(1).padStart(7)} ms   (${p.runs} runs)`);
}
