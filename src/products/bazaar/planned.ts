import { z } from 'zod';
import { READ, evmAddress, planned } from '../kit/index.ts';

// Bazaar products read the service's own daily snapshots of the x402 bazaar catalogue.

export const bazaarPulseOutput = z.looseObject({
  as_of: z.string().describe('Date-time of the snapshot the pulse is computed from'),
  totals: z.looseObject({}).describe('Catalogue totals: services, sellers, listings…'),
  top_services: z.array(z.unknown()).describe('Most active services'),
  networks: z.array(z.unknown()).describe('Listings per payment network'),
});

export const bazaarPulse = planned({
  id: 'bazaar-pulse',
  title: 'Bazaar pulse',
  description:
    'Returns a summary of the x402 bazaar from the latest completed daily snapshot: `as_of`, catalogue `totals`, `top_services` and per-network counts (`networks`).',
  method: 'GET',
  price: { http: '0.001', mcp: '0.002' },
  annotations: READ,
  input: z.object({}),
  inputExample: {},
  output: bazaarPulseOutput,
  outputExample: {
    as_of: '2025-06-01T00:00:00Z',
    totals: { services: 1240, sellers: 312, listings: 4518 },
    top_services: [{ resource: 'https://api.example.com/api/v1/paid/web-extract', seller: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', price_usd: '0.03' }],
    networks: [
      { network: 'eip155:8453', listings: 3920 },
      { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', listings: 598 },
    ],
  },
});

export const listingTriage = planned({
  id: 'listing-triage',
  title: 'Listing triage',
  description:
    "Triages one bazaar listing against its snapshot history: when it appeared, price and metadata changes, availability, and a verdict with the reasons.",
  method: 'GET',
  price: '0.01',
  annotations: READ,
  input: z.object({
    resource_url: z.url().describe('Resource URL of the listing'),
  }),
  inputExample: { resource_url: 'https://api.example.com/api/v1/paid/web-extract' },
});

export const bazaarCategoryHeat = planned({
  id: 'bazaar-category-heat',
  title: 'Bazaar category heat',
  description: 'Returns the activity ("heat") of the 9 bazaar service categories: listings, new listings, price levels and change since the previous snapshot.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  input: z.object({
    category: z.string().optional().describe('Only this category (default: all 9)'),
  }),
  inputExample: {},
});

export const bazaarCategoryHeatFeed = planned({
  id: 'bazaar-category-heat-feed',
  title: 'Bazaar category heat feed',
  description:
    'Polls the category-heat feed (version `bazaar-category-heat/v1/<date>`): returns the entries since your cursor and the next cursor. The `scout_digest` view is priced 0.005 USD.',
  price: '0.001079',
  annotations: READ,
  input: z.object({
    cursor: z.string().optional().describe('Cursor returned by the previous poll; omit on the first poll'),
    view: z.enum(['standard', 'scout_digest']).default('standard').describe('Feed view; `scout_digest` costs 0.005 USD'),
  }),
  inputExample: { view: 'standard' },
});

export const bazaarDelta = planned({
  id: 'bazaar-delta',
  title: 'Bazaar delta',
  description: 'Returns the diff of the two latest daily bazaar snapshots: listings added, removed and repriced.',
  method: 'GET',
  price: '0.004',
  annotations: READ,
  input: z.object({}),
  inputExample: {},
});

export const bazaarListingLint = planned({
  id: 'bazaar-listing-lint',
  title: 'Bazaar listing lint',
  description: 'Checks one bazaar listing for missing or weak metadata and returns a quality score 0-100 with the findings and fixes.',
  method: 'GET',
  price: '0.01',
  annotations: READ,
  input: z.object({
    resource_url: z.url().describe('Resource URL of the listing'),
  }),
  inputExample: { resource_url: 'https://api.example.com/api/v1/paid/web-extract' },
});

export const bazaarMarketReport = planned({
  id: 'bazaar-market-report',
  title: 'Bazaar market report',
  description:
    'Returns a market report on the x402 bazaar: supply by category and network, price distribution, seller concentration, growth and notable changes.',
  method: 'GET',
  price: '0.50',
  annotations: READ,
  input: z.object({
    category: z.string().optional().describe('Only this service category (default: the whole bazaar)'),
  }),
  inputExample: {},
});

export const bazaarNewListings = planned({
  id: 'bazaar-new-listings',
  title: 'Bazaar new listings',
  description: 'Returns the listings that first appeared in the latest daily bazaar snapshot, newest first.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  input: z.object({
    limit: z.coerce.number().int().min(1).max(100).default(25).describe('Most listings to return'),
  }),
  inputExample: { limit: 25 },
});

export const bazaarPriceStats = planned({
  id: 'bazaar-price-stats',
  title: 'Bazaar price statistics',
  description: 'Returns price statistics of bazaar listings (count, min, median, mean, percentiles, max in USD), optionally for one network.',
  method: 'GET',
  price: '0.002',
  annotations: READ,
  input: z.object({
    network: z.string().optional().describe('CAIP-2 network filter, e.g. "eip155:8453" (default: all networks)'),
  }),
  inputExample: { network: 'eip155:8453' },
});

export const bazaarSellerRank = planned({
  id: 'bazaar-seller-rank',
  title: 'Bazaar seller rank',
  description: 'Returns the top 25 bazaar sellers ranked by listings and observed activity, with their pay-to address and listing count.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  input: z.object({}),
  inputExample: {},
});

export const bazaarTrending = planned({
  id: 'bazaar-trending',
  title: 'Bazaar trending',
  description: 'Returns the bazaar services trending across recent daily snapshots, with the signal that makes each one trend.',
  method: 'GET',
  price: '0.003',
  annotations: READ,
  input: z.object({}),
  inputExample: {},
});

export const repriceRegret = planned({
  id: 'reprice-regret',
  title: 'Reprice regret',
  description:
    "Estimates the revenue a seller's listings gave up at their current prices over a window, against comparable listings, and returns per-listing repricing suggestions (25 listings per page). Give `resource_url` or `seller_payto`. Free example: GET /api/v1/reprice-regret/example.",
  price: '0.01',
  annotations: READ,
  input: z.object({
    resource_url: z.url().optional().describe('Resource URL of one listing (give this or seller_payto)'),
    seller_payto: evmAddress().optional().describe("Seller's pay-to address: all its listings (give this or resource_url)"),
    window_days: z.int().min(7).max(90).default(30).describe('Look-back window in days, 7 to 90'),
    page: z.int().min(1).default(1).describe('Page of results, 25 listings per page'),
  }),
  inputExample: { seller_payto: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', window_days: 30 },
  freeDoors: [{ method: 'GET', path: '/api/v1/reprice-regret/example', note: 'an example report' }],
});

export const ghostBidAudit = planned({
  id: 'ghost-bid-audit',
  title: 'Ghost bid audit',
  description:
    'Audits one bazaar listing for "ghost bids": payment challenges that never turn into settled calls. Returns challenge and settlement counts, the ghost ratio and likely causes.',
  price: '0.01',
  annotations: READ,
  input: z.object({
    resource_url: z.url().describe('Resource URL of the listing to audit'),
    window_days: z.int().min(1).max(90).default(30).describe('Look-back window in days'),
  }),
  inputExample: { resource_url: 'https://api.example.com/api/v1/paid/web-extract', window_days: 30 },
});
