/** bazaar-pulse: the latest complete daily snapshot in figures: totals, top services and networks. */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { TOP_SERVICES_RULE, pulseFigures } from '../figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef, usdField } from '../market.ts';

export const bazaarPulseOutput = z.object({
  as_of: z.string().describe('Date-time the snapshot the pulse is computed from was completed (ISO 8601)'),
  snapshot: SnapshotRef.extend({ sources: z.array(z.string()).describe('Discovery lists the snapshot read (`self`: this instance\'s own catalogue)') }).describe('The snapshot the figures rest on'),
  totals: z
    .object({
      listings: z.int().describe('Listings (distinct resources; MCP tools by URL and tool name)'),
      sellers: z.int().describe('Distinct pay-to addresses'),
      services: z.int().describe('Distinct resource origins'),
      networks: z.int().describe('Distinct payment networks'),
      median_price_usd: usdField('Median listing price (nearest rank)'),
      priced_listings: z.int().describe('Listings priced in a known USD stablecoin (USDC), the base of the price figures'),
      reported_calls_30d: z.int().nullable().describe('Sum of the 30-day calls the lists report (null when none reports any)'),
    })
    .describe('Catalogue totals'),
  top_services: z
    .array(
      z.object({
        rank: z.int().describe('Rank, 1 first'),
        service: z.string().describe('Resource origin'),
        listings: z.int().describe('Its listings'),
        sellers: z.int().describe('Its distinct pay-to addresses'),
        median_price_usd: usdField('Median price of its listings'),
        reported_calls_30d: z.int().nullable().describe('30-day calls the lists report for it'),
      }),
    )
    .describe('Top 10 services by the ranking rule'),
  ranking_rule: z.string().describe('How top_services are ranked'),
  networks: z
    .array(
      z.object({
        network: z.string().describe('CAIP-2 network'),
        listings: z.int().describe('Listings that accept payment on it'),
        sellers: z.int().describe('Distinct pay-to addresses on it'),
        median_price_usd: usdField('Median price on it'),
      }),
    )
    .describe('Per payment network, most listings first'),
  evidence: z.string().describe('What the figures rest on'),
});

export const bazaarPulse = product({
  id: 'bazaar-pulse',
  title: 'Bazaar pulse',
  description:
    'Returns a summary of the x402 bazaar from the latest completed daily snapshot: `as_of`, catalogue `totals` (listings, sellers, services, networks, median price), ranked `top_services` and per-network figures (`networks`).',
  method: 'GET',
  price: { http: '0.001', mcp: '0.002' },
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({}),
  inputExample: {},
  output: bazaarPulseOutput,
  outputExample: {
    as_of: "2025-05-31T00:05:00.000Z",
    snapshot: {
      id: 2,
      day: "2025-05-31",
      sources: [
        "https://facilitator.invalid/discovery/resources"
      ]
    },
    totals: {
      listings: 5,
      sellers: 3,
      services: 4,
      networks: 1,
      median_price_usd: 0.03,
      priced_listings: 5,
      reported_calls_30d: 175
    },
    top_services: [
      {
        rank: 1,
        service: "https://weather.invalid",
        listings: 1,
        sellers: 1,
        median_price_usd: 0.02,
        reported_calls_30d: 90
      },
      {
        rank: 2,
        service: "https://ai.invalid",
        listings: 2,
        sellers: 2,
        median_price_usd: 0.05,
        reported_calls_30d: 70
      },
      {
        rank: 3,
        service: "https://scrape.invalid",
        listings: 1,
        sellers: 1,
        median_price_usd: 0.03,
        reported_calls_30d: 12
      },
      {
        rank: 4,
        service: "https://prices.invalid",
        listings: 1,
        sellers: 1,
        median_price_usd: 0.004,
        reported_calls_30d: 3
      }
    ],
    ranking_rule: TOP_SERVICES_RULE,
    networks: [
      {
        network: "eip155:8453",
        listings: 5,
        sellers: 3,
        median_price_usd: 0.03
      }
    ],
    evidence: "snapshot 2 (2025-05-31) of the discovery lists: https://facilitator.invalid/discovery/resources"
  },
  run: async (_input, ctx) => {
    const [latest] = await latestSnapshots(ctx, 1);
    const figures = pulseFigures(await ctx.bazaar!.listings(latest!.id));
    return {
      as_of: latest!.completedAt,
      snapshot: { ...snapshotRef(latest!), sources: latest!.sources },
      totals: figures.totals,
      top_services: figures.top_services,
      ranking_rule: TOP_SERVICES_RULE,
      networks: figures.networks,
      evidence: `snapshot ${latest!.id} (${latest!.day}) of the discovery lists: ${latest!.sources.join(', ')}`,
    };
  },
});
