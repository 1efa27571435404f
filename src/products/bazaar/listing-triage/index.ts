/** listing-triage: one listing against its snapshot history, with a verdict and the reasons. */
import { z } from 'zod';
import { READ, product } from '../../kit/index.ts';
import { priceKey } from '../figures.ts';
import { SnapshotRef, findListing, latestSnapshots, precheckListing, marketOf, snapshotRef, usd } from '../market.ts';

export const VERDICT_RULE =
  '`delisted`: not in the latest snapshot; `new`: only in the latest; `unstable`: missing from some snapshots between its first and the latest, or repriced more than twice; `changed`: repriced or its description or schemas changed; else `stable`';

export const listingTriage = product({
  id: 'listing-triage',
  title: 'Listing triage',
  description: 'Triages one bazaar listing against its snapshot history: when it appeared, price and metadata changes, gaps, and a verdict (stable, changed, unstable, new, delisted) with the reasons.',
  method: 'GET',
  price: '0.01',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    resource_url: z.url().describe('Resource URL of the listing (MCP tools: URL#toolName)'),
  }),
  inputExample: { resource_url: 'https://api.example.com/api/v1/paid/web-extract' },
  output: z.object({
    key: z.string().describe('Listing key'),
    latest: SnapshotRef.describe('The latest snapshot'),
    first_seen: z.string().describe('Day of the first snapshot that has it'),
    last_seen: z.string().describe('Day of the last snapshot that has it'),
    snapshots_present: z.int().describe('Snapshots that have it'),
    snapshots_missing: z.int().describe('Snapshots between its first appearance and the latest that lack it'),
    in_latest: z.boolean().describe('Whether the latest snapshot has it'),
    price_changes: z.array(z.object({ day: z.string().describe('Snapshot day of the new price'), from_price_usd: z.number().nullable().describe('Before, USD'), to_price_usd: z.number().nullable().describe('After, USD') })).describe('Every change of its accepts'),
    metadata_changes: z.array(z.object({ day: z.string().describe('Snapshot day'), changed: z.array(z.enum(['description', 'input_schema', 'output_schema'])).describe('What changed') })).describe('Description and schema changes'),
    verdict: z.enum(['stable', 'changed', 'unstable', 'new', 'delisted']).describe('The verdict (see rule)'),
    reasons: z.array(z.string()).describe('Why'),
    rule: z.string().describe('How the verdict is reached'),
  }),
  outputExample: {
    key: 'https://weather.invalid/api/forecast',
    latest: { id: 2, day: '2025-05-31' },
    first_seen: '2025-05-30',
    last_seen: '2025-05-31',
    snapshots_present: 2,
    snapshots_missing: 0,
    in_latest: true,
    price_changes: [{ day: '2025-05-31', from_price_usd: 0.01, to_price_usd: 0.02 }],
    metadata_changes: [],
    verdict: 'changed',
    reasons: ['repriced 1 time'],
    rule: VERDICT_RULE,
  },
  // A listing gone from the latest snapshot can still be triaged from its history.
  precheck: async (input, ctx) => {
    if ((await marketOf(ctx).history(input.resource_url)).length === 0) await precheckListing(input.resource_url, ctx);
  },
  run: async (input, ctx) => {
    const snapshots = await latestSnapshots(ctx, 3_650);
    const latest = snapshots[0]!;
    const keyed = await ctx.bazaar!.history(input.resource_url);
    const history = keyed.length > 0 ? keyed : await ctx.bazaar!.history(findListing(await ctx.bazaar!.listings(latest.id), input.resource_url).key);
    const first = history[0]!;
    const last = history.at(-1)!;
    const span = snapshots.filter((s) => s.day >= first.day).length;
    const priceChanges = [];
    const metadataChanges = [];
    for (let i = 1; i < history.length; i++) {
      const [a, b] = [history[i - 1]!.listing, history[i]!.listing];
      if (priceKey(a) !== priceKey(b)) priceChanges.push({ day: history[i]!.day, from_price_usd: usd(a.priceUsd), to_price_usd: usd(b.priceUsd) });
      const changed: ('description' | 'input_schema' | 'output_schema')[] = [];
      if (a.description !== b.description) changed.push('description');
      if (JSON.stringify(a.inputSchema) !== JSON.stringify(b.inputSchema)) changed.push('input_schema');
      if (JSON.stringify(a.outputSchema) !== JSON.stringify(b.outputSchema)) changed.push('output_schema');
      if (changed.length > 0) metadataChanges.push({ day: history[i]!.day, changed });
    }
    const inLatest = last.snapshotId === latest.id;
    const missing = span - history.length;
    const reasons: string[] = [];
    let verdict: 'stable' | 'changed' | 'unstable' | 'new' | 'delisted';
    if (!inLatest) {
      verdict = 'delisted';
      reasons.push(`last seen ${last.day}, absent from the latest snapshot (${latest.day})`);
    } else if (history.length === 1) {
      verdict = 'new';
      reasons.push(`first seen in the latest snapshot (${latest.day})`);
    } else if (missing > 0 || priceChanges.length > 2) {
      verdict = 'unstable';
      if (missing > 0) reasons.push(`missing from ${missing} of ${span} snapshots since it appeared`);
      if (priceChanges.length > 2) reasons.push(`repriced ${priceChanges.length} times`);
    } else if (priceChanges.length > 0 || metadataChanges.length > 0) {
      verdict = 'changed';
      if (priceChanges.length > 0) reasons.push(`repriced ${priceChanges.length} time${priceChanges.length === 1 ? '' : 's'}`);
      if (metadataChanges.length > 0) reasons.push(`metadata changed ${metadataChanges.length} time${metadataChanges.length === 1 ? '' : 's'}`);
    } else {
      verdict = 'stable';
      reasons.push(`unchanged in ${history.length} snapshots`);
    }
    return {
      key: first.listing.key,
      latest: snapshotRef(latest),
      first_seen: first.day,
      last_seen: last.day,
      snapshots_present: history.length,
      snapshots_missing: missing,
      in_latest: inLatest,
      price_changes: priceChanges,
      metadata_changes: metadataChanges,
      verdict,
      reasons,
      rule: VERDICT_RULE,
    };
  },
});
