import type { Hono } from 'hono';
import { buildAgentCard } from '../discovery/agent-card.ts';
import type { DiscoveryContext } from '../discovery/context.ts';
import { buildLlmsFullTxt, buildLlmsTxt } from '../discovery/llms.ts';
import { buildOpenApi } from '../discovery/openapi.ts';
import { buildX402Catalogue } from '../discovery/x402-catalogue.ts';

const DOCUMENT_CACHE = 'public, max-age=300';
const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** A document rendered once, on first request (the catalogue does not change at run time). */
function lazyDocument(contentType: string, render: () => string): () => Response {
  let body: string | undefined;
  return () => {
    body ??= render();
    return new Response(body, { status: 200, headers: { 'content-type': contentType, 'cache-control': DOCUMENT_CACHE } });
  };
}

function json(build: () => unknown): () => string {
  return () => JSON.stringify(build(), null, 2);
}

/**
 * The free endpoints: health, the model catalogue and the discovery documents, all derived from the
 * catalogue in `ctx`. GET routes also answer HEAD (Hono serves HEAD from the GET handler).
 */
export function registerFreeRoutes(app: Hono, ctx: DiscoveryContext): void {
  app.get('/health', (c) => {
    const uptime = Math.max(0, Math.floor((Date.now() - ctx.startedAt.getTime()) / 1000));
    return c.json({ status: 'ok', uptime }, 200, { 'cache-control': 'no-store' });
  });

  const models = lazyDocument(JSON_TYPE, json(() => ({ models: ctx.models, count: ctx.models.length })));
  app.get('/api/v1/models', () => models());

  const openapi = lazyDocument(JSON_TYPE, json(() => buildOpenApi(ctx)));
  app.get('/openapi.json', () => openapi());

  const llms = lazyDocument(TEXT_TYPE, () => buildLlmsTxt(ctx));
  app.get('/llms.txt', () => llms());

  const llmsFull = lazyDocument(TEXT_TYPE, () => buildLlmsFullTxt(ctx));
  app.get('/llms-full.txt', () => llmsFull());

  const agentCard = lazyDocument(JSON_TYPE, json(() => buildAgentCard(ctx)));
  app.get('/.well-known/agent.json', () => agentCard());
  app.get('/.well-known/agent-card.json', () => agentCard());

  const x402 = lazyDocument(JSON_TYPE, json(() => buildX402Catalogue(ctx)));
  app.get('/.well-known/x402.json', () => x402());
}
