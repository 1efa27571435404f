/**
 * For unit tests of the bazaar products: discovery items in the wire format facilitators publish
 * (x402 v2 `DiscoveryResource`), and a BazaarMarket holding snapshots made of them by the same
 * normalization the snapshotter uses. Kept out of the products' imports.
 */
import { normalizeItem, type Listing } from '../../bazaar/listing.ts';
import type { BazaarMarket, BazaarSnapshot } from '../kit/index.ts';

export const USDC_BASE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
export const SELLER_A = '0x1111111111111111111111111111111111111111';
export const SELLER_B = '0x2222222222222222222222222222222222222222';
export const SELLER_C = '0x3333333333333333333333333333333333333333';

export interface ItemSpec {
  resource: string;
  payTo: string;
  /** Atomic USDC. */
  amount: string;
  network?: string;
  asset?: string;
  scheme?: string;
  description?: string;
  calls30d?: number;
  lastUpdated?: string;
  inputSchema?: Record<string, unknown>;
  outputExample?: unknown;
  method?: 'GET' | 'POST';
}

/** One discovery item as a facilitator lists it. */
export function item(spec: ItemSpec): Record<string, unknown> {
  const method = spec.method ?? 'GET';
  const input = { type: 'http', method, ...(method === 'POST' ? { bodyType: 'json', body: {} } : { queryParams: {} }) };
  return {
    resource: spec.resource,
    type: 'http',
    x402Version: 2,
    accepts: [
      {
        scheme: spec.scheme ?? 'exact',
        network: spec.network ?? 'eip155:8453',
        amount: spec.amount,
        asset: spec.asset ?? USDC_BASE,
        payTo: spec.payTo,
        maxTimeoutSeconds: 60,
        extra: { name: 'USD Coin', version: '2' },
      },
    ],
    lastUpdated: spec.lastUpdated ?? '2025-05-30T00:00:00.000Z',
    description: spec.description ?? '',
    extensions: {
      bazaar: {
        info: { input, ...(spec.outputExample !== undefined ? { output: { type: 'json', example: spec.outputExample } } : {}) },
        schema: { properties: spec.inputSchema ? { input: spec.inputSchema } : {} },
      },
    },
    ...(spec.calls30d !== undefined ? { quality: { l30DaysTotalCalls: spec.calls30d } } : {}),
  };
}

export function listingsOf(items: readonly unknown[], source = 'https://facilitator.invalid/discovery/resources'): Listing[] {
  return items.flatMap((i) => {
    const n = normalizeItem(i, source);
    return 'listing' in n ? [n.listing] : [];
  });
}

/** A market of complete snapshots, given oldest first (ids 1, 2, …). */
export function fixtureMarket(days: { day: string; items: readonly unknown[] }[]): BazaarMarket & { all: BazaarSnapshot[] } {
  const snapshots = days.map((d, i) => ({
    snapshot: {
      id: i + 1,
      day: d.day,
      completedAt: `${d.day}T00:05:00.000Z`,
      sources: ['https://facilitator.invalid/discovery/resources'],
      listings: listingsOf(d.items).length,
      malformed: d.items.length - listingsOf(d.items).length,
      duplicates: 0,
    },
    listings: listingsOf(d.items).sort((a, b) => (a.key < b.key ? -1 : 1)),
  }));
  return {
    all: snapshots.map((s) => s.snapshot),
    snapshots: async (limit) => snapshots.map((s) => s.snapshot).reverse().slice(0, limit),
    listings: async (id) => snapshots.find((s) => s.snapshot.id === id)?.listings ?? [],
    history: async (key) => snapshots.flatMap((s) => s.listings.filter((l) => l.key === key).map((listing) => ({ snapshotId: s.snapshot.id, day: s.snapshot.day, listing }))),
  };
}

/**
 * Two daily snapshots with known differences, the unit tests' common ground:
 * day 1: weather (A, 0.01), llm chat (A, 0.05), wallet (B, 0.002), scrape (C, 0.03)
 * day 2: weather repriced 0.01 → 0.02, llm chat unchanged, wallet removed, scrape unchanged,
 *        a new token price listing (B, 0.004) and a new llm embeddings listing (C, 0.10).
 */
export const DAY1 = [
  item({ resource: 'https://weather.invalid/api/forecast', payTo: SELLER_A, amount: '10000', description: 'Weather forecast for a city', calls30d: 100 }),
  item({ resource: 'https://ai.invalid/v1/chat', payTo: SELLER_A, amount: '50000', description: 'LLM chat completion', calls30d: 40, method: 'POST', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } } }, outputExample: { text: 'hi' } }),
  item({ resource: 'https://chain.invalid/wallet/balance', payTo: SELLER_B, amount: '2000', description: 'Wallet token balance on Base', calls30d: 5 }),
  item({ resource: 'https://scrape.invalid/extract', payTo: SELLER_C, amount: '30000', description: 'Extract a web page', calls30d: 10 }),
];
export const DAY2 = [
  item({ resource: 'https://weather.invalid/api/forecast', payTo: SELLER_A, amount: '20000', description: 'Weather forecast for a city', calls30d: 90 }),
  item({ resource: 'https://ai.invalid/v1/chat', payTo: SELLER_A, amount: '50000', description: 'LLM chat completion', calls30d: 70, method: 'POST', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } } }, outputExample: { text: 'hi' } }),
  item({ resource: 'https://scrape.invalid/extract', payTo: SELLER_C, amount: '30000', description: 'Extract a web page', calls30d: 12 }),
  item({ resource: 'https://prices.invalid/token/price', payTo: SELLER_B, amount: '4000', description: 'Token price quote', calls30d: 3, lastUpdated: '2025-05-31T10:00:00.000Z' }),
  item({ resource: 'https://ai.invalid/v1/embeddings', payTo: SELLER_C, amount: '100000', description: 'Embeddings for a text', lastUpdated: '2025-05-31T12:00:00.000Z' }),
];

export const twoDays = () => fixtureMarket([{ day: '2025-05-30', items: DAY1 }, { day: '2025-05-31', items: DAY2 }]);
