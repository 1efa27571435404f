/**
 * bazaar-listing-lint: a quality score 0–100 for one listing of the latest snapshot. Each rule that
 * fails takes its points off 100 (never below 0); the rules (RULES) are published with the answer.
 * The 402 check asks the resource once without payment through the safe fetcher (HTTP listings).
 */
import { z } from 'zod';
import { READ, product, type Listing, type ProductContext } from '../../kit/index.ts';
import { SnapshotRef, findListing, latestSnapshots, precheckListing, median, prices, snapshotRef, usd } from '../market.ts';

const DAY_MS = 86_400_000;

/** Every rule: its points, and the fix it suggests. */
export const RULES = {
  no_description: { points: 15, fix: 'describe what the resource returns in one or two sentences (`description`)' },
  short_description: { points: 5, fix: 'say more than a few words in `description` (20 characters at least)' },
  no_input_schema: { points: 20, fix: 'publish the input schema in extensions.bazaar (declareDiscoveryExtension with inputSchema)' },
  no_output_schema: { points: 15, fix: 'publish the output schema in extensions.bazaar.info.output.schema' },
  no_output_example: { points: 10, fix: 'publish a real output example in extensions.bazaar.info.output.example' },
  not_usd_priced: { points: 5, fix: 'quote at least one accept in USDC so buyers can compare prices' },
  price_outlier: { points: 10, fix: 'check the price: it is more than 10× or less than a tenth of its category median' },
  x402_v1: { points: 5, fix: 'upgrade to x402 v2 (PAYMENT-REQUIRED header, CAIP-2 networks)' },
  stale: { points: 5, fix: 'the list has not updated the listing in 30 days: call it through the facilitator, or check it is still served' },
  unreachable_402: { points: 20, fix: 'the resource must answer an unpaid request with 402 and its payment requirements' },
} as const;

type Rule = keyof typeof RULES;

const Finding = z.object({
  rule: z.enum(Object.keys(RULES) as [Rule, ...Rule[]]).describe('The rule that failed'),
  points: z.int().describe('Points it takes off'),
  message: z.string().describe('What was found'),
  fix: z.string().describe('How to fix it'),
});

async function probe402(listing: Listing, ctx: ProductContext): Promise<string | undefined> {
  if (listing.type !== 'http') return undefined;
  try {
    const response = await ctx.fetch(listing.resource, { method: listing.method === 'POST' ? 'POST' : 'GET', headers: { accept: 'application/json' }, ...(listing.method === 'POST' ? { body: '{}' } : {}) });
    return response.status === 402 ? undefined : `an unpaid ${listing.method ?? 'GET'} answered HTTP ${response.status}, not 402`;
  } catch (error) {
    return `an unpaid request got no answer (${error instanceof Error ? error.message : 'failed'})`;
  }
}

export const bazaarListingLint = product({
  id: 'bazaar-listing-lint',
  title: 'Bazaar listing lint',
  description:
    'Checks one bazaar listing of the latest snapshot for missing or weak metadata (description, input and output schemas, output example), price outliers against its category, staleness, and whether it answers 402 unpaid; returns a quality score 0-100 with findings, fixes and the rules.',
  method: 'GET',
  price: '0.01',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    resource_url: z.url().describe('Resource URL of the listing (MCP tools: URL#toolName)'),
  }),
  inputExample: { resource_url: 'https://api.example.com/api/v1/paid/web-extract' },
  output: z.object({
    snapshot: SnapshotRef.describe('The snapshot the listing is read from'),
    listing: z.object({ key: z.string().describe('Listing key'), resource: z.string().describe('Resource URL'), category: z.string().describe('Derived category'), price_usd: z.number().nullable().describe('Price, USD') }).describe('The listing linted'),
    score: z.int().min(0).max(100).describe('100 minus the points of every failed rule, at least 0'),
    findings: z.array(Finding).describe('Failed rules'),
    rules: z.record(z.string(), z.object({ points: z.int(), fix: z.string() })).describe('Every rule with its points'),
  }),
  outputExample: {
    snapshot: { id: 2, day: '2025-05-31' },
    listing: { key: 'https://weather.invalid/api/forecast', resource: 'https://weather.invalid/api/forecast', category: 'other', price_usd: 0.02 },
    score: 55,
    findings: [
      { rule: 'no_input_schema', points: 20, message: 'no input schema is published', fix: RULES.no_input_schema.fix },
      { rule: 'no_output_schema', points: 15, message: 'no output schema is published', fix: RULES.no_output_schema.fix },
      { rule: 'no_output_example', points: 10, message: 'no output example is published', fix: RULES.no_output_example.fix },
    ],
    rules: RULES,
  },
  precheck: async (input, ctx) => precheckListing(input.resource_url, ctx),
  run: async (input, ctx) => {
    const [latest] = await latestSnapshots(ctx, 1);
    const listings = await ctx.bazaar!.listings(latest!.id);
    const listing = findListing(listings, input.resource_url);
    const found: [Rule, string][] = [];
    if (listing.description === '') found.push(['no_description', 'the listing has no description']);
    else if (listing.description.length < 20) found.push(['short_description', `the description has ${listing.description.length} characters`]);
    if (listing.inputSchema === null) found.push(['no_input_schema', 'no input schema is published']);
    if (listing.outputSchema === null) found.push(['no_output_schema', 'no output schema is published']);
    if (!listing.hasOutputExample) found.push(['no_output_example', 'no output example is published']);
    if (listing.priceUsd === null) found.push(['not_usd_priced', 'no accept is in a known USD stablecoin']);
    else {
      const categoryMedian = median(prices(listings.filter((l) => l.category === listing.category)));
      if (categoryMedian !== null && categoryMedian > 0 && (listing.priceUsd > 10 * categoryMedian || listing.priceUsd < categoryMedian / 10)) {
        found.push(['price_outlier', `${usd(listing.priceUsd)} USD against a ${listing.category} median of ${usd(categoryMedian)} USD`]);
      }
    }
    if (listing.x402Version < 2) found.push(['x402_v1', `x402 version ${listing.x402Version}`]);
    if (listing.lastUpdated !== null && ctx.now.getTime() - Date.parse(listing.lastUpdated) > 30 * DAY_MS) found.push(['stale', `last updated ${listing.lastUpdated}`]);
    const unreachable = await probe402(listing, ctx);
    if (unreachable) found.push(['unreachable_402', unreachable]);
    const findings = found.map(([rule, message]) => ({ rule, points: RULES[rule].points, message, fix: RULES[rule].fix }));
    return {
      snapshot: snapshotRef(latest!),
      listing: { key: listing.key, resource: listing.resource, category: listing.category, price_usd: usd(listing.priceUsd) },
      score: Math.max(0, 100 - findings.reduce((a, f) => a + f.points, 0)),
      findings,
      rules: RULES,
    };
  },
});
