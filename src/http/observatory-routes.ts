import { timingSafeEqual, createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { problemResponse, problems } from './problem.ts';
import type { Hypothesis, Store } from '../store/types.ts';
import type { Telemetry } from '../telemetry/counters.ts';
import { DASHBOARD_HTML } from '../telemetry/dashboard.ts';
import { metricsText } from '../telemetry/metrics.ts';
import type { ProviderStats } from '../providers/api/client.ts';
import { REPORT_SCHEMA } from '../telemetry/report-schema.ts';
import { buildReport, buildSeries, SnapshotCache, type ReportContext } from '../telemetry/report.ts';

export interface ObservatoryDeps {
  store: Store;
  telemetry: Telemetry;
  report: ReportContext;
  reportPath: string;
  /** Bearer secret of the operator API and /metrics; both answer 404 without one configured. */
  adminToken?: string;
  /** batch-settlement channels are offered: /metrics shows their charged and claimed totals. */
  batchChannels?: boolean;
  /** Third-party data providers' counters (requests, cache hits, budget refusals, failures) for /metrics. */
  dataProviders?: () => ProviderStats[];
}

/** How many closed hypotheses the public log shows. */
const CLOSED_SHOWN = 50;

const NewHypothesisBody = z.object({
  hypothesis: z.string().min(1).max(2000),
  public_claim: z.string().min(1).max(2000),
  observation: z.string().min(1).max(2000),
  opportunity: z.string().max(2000).nullable().default(null),
  target: z.string().min(1).max(500),
  horizon_days: z.number().int().min(1).max(3650),
  lens: z.string().min(1).max(100),
});
const EvaluateBody = z.object({ verdict: z.string().min(1).max(2000), measured_value: z.string().max(500).nullable().default(null) });
const AbandonBody = z.object({ verdict: z.string().max(2000).nullable().default(null) });

/**
 * The observatory: the public telemetry report (and its JSON Schema), an hourly series and a
 * dashboard page drawing them, the public research log, and the operator's side (research log
 * commands, Prometheus metrics) behind a bearer secret.
 */
export function registerObservatory(app: Hono, deps: ObservatoryDeps): void {
  const snapshots = new SnapshotCache(deps.store, 2_000);
  const publicJson = (c: Context, body: unknown) => c.json(body as object, 200, { 'cache-control': 'public, max-age=5', 'access-control-allow-origin': '*' });
  const schemaPath = deps.reportPath.replace(/(\.json)?$/, '.schema.json');

  app.get(deps.reportPath, async (c) => publicJson(c, buildReport(await snapshots.get(), deps.report)));
  app.get(schemaPath, (c) => publicJson(c, REPORT_SCHEMA));
  app.get('/observatory/series.json', async (c) => publicJson(c, buildSeries(await snapshots.get())));
  app.get('/observatory', (c) =>
    c.html(DASHBOARD_HTML.replace('__REPORT__', deps.reportPath), 200, {
      'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:",
    }),
  );

  app.get('/research/hypotheses.json', async (c) => {
    const log = await deps.store.hypotheses(CLOSED_SHOWN);
    return publicJson(c, {
      open_total: log.openTotal,
      closed_total: log.closedTotal,
      closed_shown: log.closed.length,
      hypotheses: [...log.open, ...log.closed].map(publicHypothesis),
    });
  });

  const admin = async (c: Context, handler: () => Promise<Response>): Promise<Response> => {
    if (!deps.adminToken) return problemResponse(problems.notFound(c.req.path));
    if (!bearerMatches(c.req.header('authorization'), deps.adminToken)) {
      return problemResponse({ status: 401, code: 'unauthorized', title: 'Unauthorized', detail: 'a valid operator Bearer token is required' }, { 'www-authenticate': 'Bearer' });
    }
    return handler();
  };

  app.get('/metrics', (c) =>
    admin(c, async () => {
      await deps.telemetry.flush();
      snapshots.invalidate();
      const channels = deps.batchChannels ? await deps.store.channelStorage().channelTotals() : undefined;
      return c.body(await metricsText(await snapshots.get(), channels, deps.dataProviders?.(), deps.report.operatorProducts), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    }),
  );

  app.post('/admin/research/hypotheses', (c) =>
    admin(c, async () => {
      const body = NewHypothesisBody.safeParse(await c.req.json().catch(() => undefined));
      if (!body.success) return problemResponse(problems.invalidInput(body.error.issues.map((i) => ({ field: i.path.join('.') || 'body', message: i.message }))));
      const b = body.data;
      const created = await deps.store.addHypothesis({
        hypothesis: b.hypothesis,
        publicClaim: b.public_claim,
        observation: b.observation,
        opportunity: b.opportunity,
        target: b.target,
        horizonDays: b.horizon_days,
        lens: b.lens,
      });
      return c.json(publicHypothesis(created), 201);
    }),
  );

  for (const [action, status, schema] of [
    ['evaluate', 'evaluated', EvaluateBody],
    ['abandon', 'abandoned', AbandonBody],
  ] as const) {
    app.post(`/admin/research/hypotheses/:id/${action}`, (c) =>
      admin(c, async () => {
        const id = Number(c.req.param('id'));
        const body = schema.safeParse((await c.req.json().catch(() => ({}))) ?? {});
        if (!Number.isSafeInteger(id) || !body.success) {
          return problemResponse(problems.invalidInput(body.success ? [{ field: 'id', message: 'not a hypothesis id' }] : body.error.issues.map((i) => ({ field: i.path.join('.') || 'body', message: i.message }))));
        }
        const measured = 'measured_value' in body.data ? (body.data.measured_value as string | null) : null;
        const result = await deps.store.closeHypothesis(id, status, { verdict: body.data.verdict, measuredValue: measured });
        if (!result) return problemResponse(problems.notFound(c.req.path));
        if ('conflict' in result) {
          return problemResponse({
            status: 409,
            code: 'invalid-transition',
            title: 'Invalid status transition',
            detail: `hypothesis ${id} is ${result.conflict}; only a registered hypothesis can become ${status}`,
          });
        }
        return c.json(publicHypothesis(result));
      }),
    );
  }
}

function publicHypothesis(h: Hypothesis) {
  return {
    id: h.id,
    created_at: h.createdAt.toISOString(),
    hypothesis: h.hypothesis,
    public_claim: h.publicClaim,
    observation: h.observation,
    opportunity: h.opportunity,
    target: h.target,
    status: h.status,
    verdict: h.verdict,
    measured_value: h.measuredValue,
    horizon_days: h.horizonDays,
    lens: h.lens,
  };
}

/** Constant-time comparison (of digests, so lengths never leak either). */
function bearerMatches(header: string | undefined, secret: string): boolean {
  const presented = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1];
  if (!presented) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(secret));
}
