/**
 * agent-return-context: what changed in the bazaar since an agent last looked. The cursor names the
 * last snapshot the agent saw; the answer compares it with the latest (delta) and/or gives what is
 * trending, returns the next cursor, and an evidence hash: SHA-256 over the canonical JSON of the
 * snapshot rows used (key and accepts of every listing of each snapshot, in key order), so the same
 * answer can be checked against the same snapshots.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ProductInputError, READ, product, type Listing } from '../../kit/index.ts';
import { canonicalJson } from '../../../canonical-json.ts';
import { DeltaOutput } from '../../bazaar/bazaar-delta/index.ts';
import { TRENDING_WINDOW, TrendingEntry } from '../../bazaar/bazaar-trending/index.ts';
import { TRENDING_RULE, deltaFigures, trending } from '../../bazaar/figures.ts';
import { SnapshotRef, latestSnapshots, snapshotRef } from '../../bazaar/market.ts';

const CURSOR_VERSION = 'agent-return-context/v1';

const encode = (snapshot: number) => Buffer.from(JSON.stringify({ v: CURSOR_VERSION, s: snapshot }), 'utf8').toString('base64url');

function decode(text: string): number {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    if (value.v === CURSOR_VERSION && typeof value.s === 'number' && Number.isSafeInteger(value.s) && value.s >= 0) return value.s;
  } catch {
    // answered below
  }
  throw new ProductInputError('not a cursor of agent-return-context (send back next_cursor as returned)', 400, 'cursor', 'invalid_cursor');
}

function evidenceHash(sets: { id: number; listings: readonly Listing[] }[]): string {
  const rows = sets.map((s) => ({ snapshot: s.id, listings: s.listings.map((l) => ({ key: l.key, accepts: l.accepts })) }));
  return `sha256:${createHash('sha256').update(canonicalJson(rows)).digest('hex')}`;
}

export const agentReturnContext = product({
  id: 'agent-return-context',
  title: 'Agent return context',
  description:
    'Returns what changed in the x402 bazaar since an agent last looked: optional cursor-aware delta (against the snapshot the cursor names) and trending results, the next cursor, and an evidence hash over the snapshot rows used.',
  price: '0.005',
  annotations: READ,
  requires: ['bazaar'],
  input: z.object({
    cursor: z.string().max(512).optional().describe('Cursor from the previous call; omit on the first call'),
    include: z.array(z.enum(['delta', 'trending'])).optional().describe('Result sets to include (default: none, only the cursor and evidence hash)'),
  }),
  inputExample: { include: ['delta', 'trending'] },
  output: z.object({
    as_of: z.string().describe('Completion time of the latest snapshot'),
    latest: SnapshotRef.describe('The latest snapshot'),
    since: SnapshotRef.nullable().describe('The snapshot the cursor named (null: first call, or that snapshot is no longer kept)'),
    changed: z.boolean().describe('A newer snapshot exists than the cursor named'),
    delta: DeltaOutput.nullable().optional().describe('Changes from `since` to `latest` (asked for with include; null when there is nothing to compare)'),
    trending: z.array(TrendingEntry).optional().describe('Trending services over the last week (asked for with include)'),
    trending_rule: z.string().optional().describe('The trending rule'),
    next_cursor: z.string().describe('Cursor to send next time'),
    evidence_hash: z.string().describe('sha256 over the canonical JSON of the snapshot rows used (key and accepts per listing)'),
    snapshot_ids: z.array(z.int()).describe('The snapshots the answer and its hash rest on'),
  }),
  outputExample: {
    as_of: "2025-05-31T00:05:00.000Z",
    latest: {
      id: 2,
      day: "2025-05-31"
    },
    since: {
      id: 1,
      day: "2025-05-30"
    },
    changed: true,
    delta: {
      counts: {
        added: 2,
        removed: 1,
        repriced: 1,
        schema_changed: 0
      },
      added: [
        {
          key: "https://ai.invalid/v1/embeddings",
          resource: "https://ai.invalid/v1/embeddings",
          pay_to: "0x3333333333333333333333333333333333333333",
          network: "eip155:8453",
          price_usd: 0.1,
          category: "inference"
        },
        {
          key: "https://prices.invalid/token/price",
          resource: "https://prices.invalid/token/price",
          pay_to: "0x2222222222222222222222222222222222222222",
          network: "eip155:8453",
          price_usd: 0.004,
          category: "market-data"
        }
      ],
      removed: [
        {
          key: "https://chain.invalid/wallet/balance",
          resource: "https://chain.invalid/wallet/balance",
          pay_to: "0x2222222222222222222222222222222222222222",
          network: "eip155:8453",
          price_usd: 0.002,
          category: "onchain-data"
        }
      ],
      repriced: [
        {
          key: "https://weather.invalid/api/forecast",
          resource: "https://weather.invalid/api/forecast",
          pay_to: "0x1111111111111111111111111111111111111111",
          from_price_usd: 0.01,
          to_price_usd: 0.02,
          change_pct: 100
        }
      ],
      schema_changed: [],
      truncated: false
    },
    next_cursor: "eyJ2IjoiYWdlbnQtcmV0dXJuLWNvbnRleHQvdjEiLCJzIjoyfQ",
    evidence_hash: "sha256:bf366baa2f5d3d81aafd746c31f914ae3e4aaa1724510a3880a1841cdb2f5352",
    snapshot_ids: [
      2,
      1
    ]
  },
  run: async (input, ctx) => {
    const sinceId = input.cursor === undefined ? undefined : decode(input.cursor);
    const window = await latestSnapshots(ctx, Math.max(TRENDING_WINDOW, 1));
    const latest = window[0]!;
    const since = sinceId === undefined ? undefined : (await ctx.bazaar!.snapshots(3_650)).find((s) => s.id === sinceId);
    const include = new Set(input.include ?? []);
    const now = await ctx.bazaar!.listings(latest.id);
    const used: { id: number; listings: readonly Listing[] }[] = [{ id: latest.id, listings: now }];
    let delta: z.infer<typeof DeltaOutput> | null | undefined;
    if (include.has('delta')) {
      if (since && since.id !== latest.id) {
        const before = await ctx.bazaar!.listings(since.id);
        used.push({ id: since.id, listings: before });
        delta = deltaFigures(before, now);
      } else delta = null;
    }
    let trend;
    if (include.has('trending')) {
      const oldest = window.at(-1)!;
      const then = await ctx.bazaar!.listings(oldest.id);
      if (!used.some((u) => u.id === oldest.id)) used.push({ id: oldest.id, listings: then });
      trend = trending(then, now);
    }
    return {
      as_of: latest.completedAt,
      latest: snapshotRef(latest),
      since: since ? snapshotRef(since) : null,
      changed: since === undefined || since.id !== latest.id,
      ...(delta !== undefined ? { delta } : {}),
      ...(trend ? { trending: trend, trending_rule: TRENDING_RULE } : {}),
      next_cursor: encode(latest.id),
      evidence_hash: evidenceHash(used),
      snapshot_ids: used.map((u) => u.id),
    };
  },
});
