/**
 * The free side of analytics-query and the operator's side of the block index:
 *
 * - `GET /api/v1/analytics-query/executions/{id}`: a paid execution's result again, free, while it
 *   is kept (24 hours); the id is the capability (80 random bits), counted in the `free` rate limit.
 * - `GET /api/v1/analytics-query/queries`: the saved queries, by number.
 * - Operator API (Bearer ADMIN_TOKEN, 404 without one): saved queries added and removed
 *   (`percall queries`), the index's status and backfills (`percall index`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { PEER_PATH, type IndexService } from '../index/service.ts';
import { ANALYTICS_EXECUTIONS_PATH as EXECUTIONS_PATH, ANALYTICS_SAVED_QUERIES_PATH as SAVED_QUERIES_PATH } from '../products/kit/chain-index.ts';
import { problemResponse, problems } from './problem.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface AnalyticsRoutesDeps {
  index: IndexService;
  limiter: RateLimiter;
  adminToken?: string;
}

const NewSavedQuery = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2_000).default(''),
  sql: z.string().trim().min(1).max(20_000),
  chain: z.string().regex(/^[a-z]+$/).default('base'),
});

const BackfillBody = z.object({
  chain: z.string().regex(/^[a-z]+$/),
  from: z.union([z.int().min(0), z.string().regex(/^\d{1,15}$/)]),
  to: z.union([z.int().min(0), z.string().regex(/^\d{1,15}$/)]).optional(),
});

export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header?.match(/^Bearer\s+(.+)$/i)?.[1];
  if (!given) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

const invalid = (issues: z.core.$ZodIssue[]) => problemResponse(problems.invalidInput(issues.map((i) => ({ field: i.path.join('.') || 'body', message: i.message }))));

export function registerAnalyticsRoutes(app: Hono, deps: AnalyticsRoutesDeps): void {
  const { index, limiter } = deps;

  app.get(`${EXECUTIONS_PATH}/:id`, async (c) => {
    const limited = await limiter.take('free', limiter.client(c));
    if (limited) return limited;
    const execution = await index.execution(c.req.param('id'));
    if (!execution) {
      return problemResponse({ status: 404, code: 'execution-not-found', title: 'No such execution', detail: 'no execution with this id is kept (they are kept 24 hours after they ran)' });
    }
    return c.json(
      {
        execution_id: execution.id,
        chain: execution.chain,
        network: execution.network,
        indexed_block: execution.indexedBlock,
        saved_query_id: execution.savedQueryId,
        executed_at: execution.executedAt,
        expires_at: execution.expiresAt,
        query: execution.sql,
        result: execution.result,
      },
      200,
      { 'cache-control': 'private, max-age=3600' },
    );
  });

  app.get(SAVED_QUERIES_PATH, async (c) => {
    const queries = await index.savedQueries();
    return c.json(
      { queries: queries.map((q) => ({ id: q.id, name: q.name, description: q.description, sql: q.sql, created_at: q.createdAt })), count: queries.length },
      200,
      { 'cache-control': 'public, max-age=30' },
    );
  });

  const admin = async (c: Context, handler: () => Promise<Response>): Promise<Response> => {
    if (!deps.adminToken) return problemResponse(problems.notFound(c.req.path));
    if (!bearerMatches(c.req.header('authorization'), deps.adminToken)) {
      return problemResponse({ status: 401, code: 'unauthorized', title: 'Unauthorized', detail: 'a valid operator Bearer token is required' }, { 'www-authenticate': 'Bearer' });
    }
    return handler();
  };

  // Peers of one indexer (several instances on one database): the lease holder answers the others'
  // queries and checks here, for the shared INDEX_PEER_TOKEN only (404 without a lease).
  const PeerRequest = z.object({ chain: z.string().regex(/^[a-z]+$/), sql: z.string().max(20_000) });
  app.post(`${PEER_PATH}/:op{query|check}`, async (c) => {
    const token = index.peerToken;
    if (!token) return problemResponse(problems.notFound(c.req.path));
    if (!bearerMatches(c.req.header('authorization'), token)) return problemResponse({ status: 401, code: 'unauthorized', title: 'Unauthorized', detail: 'a valid peer token is required' });
    const body = PeerRequest.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) return invalid(body.error.issues);
    return c.json(await index.serve(c.req.param('op') as 'query' | 'check', body.data.chain, body.data.sql));
  });

  app.post('/admin/analytics/queries', (c) =>
    admin(c, async () => {
      const body = NewSavedQuery.safeParse(await c.req.json().catch(() => undefined));
      if (!body.success) return invalid(body.error.issues);
      const check = await index.check(body.data.chain, body.data.sql);
      if (check.kind === 'unavailable') return problemResponse(problems.serviceUnavailable(check.message), { 'retry-after': '5' });
      if (check.kind !== 'ok') return problemResponse({ status: 422, code: 'query-refused', title: 'The query would be refused', detail: check.message, errors: [{ field: 'sql', message: check.message }] });
      const saved = await index.addSavedQuery({ name: body.data.name, description: body.data.description, sql: body.data.sql });
      return c.json({ id: saved.id, name: saved.name, description: saved.description, sql: saved.sql, created_at: saved.createdAt }, 201);
    }),
  );

  app.delete('/admin/analytics/queries/:id', (c) =>
    admin(c, async () => {
      const id = Number(c.req.param('id'));
      if (!Number.isSafeInteger(id) || id < 1) return problemResponse(problems.invalidInput([{ field: 'id', message: 'not a saved query number' }]));
      return (await index.removeSavedQuery(id)) ? c.body(null, 204) : problemResponse(problems.notFound(c.req.path));
    }),
  );

  app.get('/admin/index/status', (c) =>
    admin(c, async () => {
      try {
        return c.json(await index.status(), 200, { 'cache-control': 'no-store' });
      } catch (error) {
        return problemResponse(problems.serviceUnavailable(`the block index is not available: ${(error as Error).message}`), { 'retry-after': '5' });
      }
    }),
  );

  app.post('/admin/index/backfill', (c) =>
    admin(c, async () => {
      const body = BackfillBody.safeParse(await c.req.json().catch(() => undefined));
      if (!body.success) return invalid(body.error.issues);
      if (!index.chains().has(body.data.chain)) return problemResponse(problems.invalidInput([{ field: 'chain', message: `not indexed here (indexed: ${[...index.chains().keys()].join(', ')})` }]));
      const job = index.startBackfillJob(body.data.chain, BigInt(body.data.from), body.data.to !== undefined ? BigInt(body.data.to) : undefined);
      return c.json({ job, progress: `/admin/index/backfill/${job}` }, 202);
    }),
  );

  app.get('/admin/index/backfill/:job', (c) =>
    admin(c, async () => {
      const progress = index.jobs.get(c.req.param('job'));
      return progress ? c.json(progress, 200, { 'cache-control': 'no-store' }) : problemResponse(problems.notFound(c.req.path));
    }),
  );
}
