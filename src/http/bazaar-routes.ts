/**
 * The bazaar's own routes besides the products: reprice-regret's free example door, and the
 * operator API of the snapshots (Bearer ADMIN_TOKEN, 404 without one): take a snapshot now
 * (`percall bazaar snapshot` calls it), follow its progress, list the latest runs.
 */
import type { Context, Hono } from 'hono';
import type { BazaarSnapshotService } from '../bazaar/service.ts';
import type { SnapshotOutcome, SnapshotProgress } from '../bazaar/snapshotter.ts';
import type { Catalogue } from '../catalogue/index.ts';
import { bearerMatches } from './analytics-routes.ts';
import { problemResponse, problems } from './problem.ts';

export const REPRICE_REGRET_EXAMPLE_PATH = '/api/v1/reprice-regret/example';

export interface BazaarRouteDeps {
  catalogue: Catalogue;
  snapshots?: BazaarSnapshotService;
  adminToken?: string;
}

/** The run the operator API started last: its progress while it runs, then its outcome. */
interface OperatorRun {
  state: 'running' | 'done';
  progress: SnapshotProgress | null;
  outcome: SnapshotOutcome | { kind: 'busy' } | { kind: 'error'; detail: string } | null;
}

export function registerBazaarRoutes(app: Hono, deps: BazaarRouteDeps): void {
  const reprice = deps.catalogue.available().find((p) => p.id === 'reprice-regret');
  if (reprice) {
    app.get(REPRICE_REGRET_EXAMPLE_PATH, (c) =>
      c.json({ note: `an example report of reprice-regret (a real captured output); the paid call is ${reprice.http?.method ?? 'POST'} ${reprice.http?.path ?? ''} or the MCP tool ${reprice.mcp?.tool ?? ''}`, example: reprice.outputExample }, 200, { 'cache-control': 'public, max-age=300' }),
    );
  }
  const service = deps.snapshots;
  if (!service) return;
  let current: OperatorRun | undefined;
  const admin = async (c: Context, handler: () => Promise<Response>): Promise<Response> => {
    if (!deps.adminToken) return problemResponse(problems.notFound(c.req.path));
    if (!bearerMatches(c.req.header('authorization'), deps.adminToken)) {
      return problemResponse({ status: 401, code: 'unauthorized', title: 'Unauthorized', detail: 'a valid operator Bearer token is required' }, { 'www-authenticate': 'Bearer' });
    }
    return handler();
  };
  app.post('/admin/bazaar/snapshots', (c) =>
    admin(c, async () => {
      if (current?.state === 'running') return c.json({ progress: '/admin/bazaar/snapshots/current' }, 202);
      const run: OperatorRun = { state: 'running', progress: null, outcome: null };
      current = run;
      void service
        .runOnce((progress) => (run.progress = progress))
        .then(
          (outcome) => (run.outcome = outcome),
          (error: unknown) => (run.outcome = { kind: 'error', detail: error instanceof Error ? error.message : String(error) }),
        )
        .finally(() => (run.state = 'done'));
      return c.json({ progress: '/admin/bazaar/snapshots/current' }, 202);
    }),
  );
  app.get('/admin/bazaar/snapshots/current', (c) => admin(c, async () => (current ? c.json(current) : problemResponse(problems.notFound(c.req.path)))));
  app.get('/admin/bazaar/snapshots', (c) => admin(c, async () => c.json({ runs: await service.runs(20) })));
}
