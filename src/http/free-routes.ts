import type { Hono } from 'hono';
import { SERVICE_SUMMARY } from '../discovery/context.ts';
import { buildAgentCard } from '../discovery/agent-card.ts';
import type { DiscoveryContext } from '../discovery/context.ts';
import { buildLlmsFullTxt, buildLlmsTxt } from '../discovery/llms.ts';
import { buildOpenApi } from '../discovery/openapi.ts';
import { buildX402Catalogue } from '../discovery/x402-catalogue.ts';
import { DISCOVERY_LIST_PATH, discoveryItems, discoveryList, parseDiscoveryListQuery, type DiscoveryListItem } from '../discovery/bazaar-list.ts';

const DOCUMENT_CACHE = 'public, max-age=300';
const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/**
 * A document rendered once, on first request (the catalogue does not change at run time), and again
 * when `version` changes (llms-full.txt lists analytics-query's saved queries).
 */
function lazyDocument(contentType: string, render: () => string, version: () => unknown = () => 0): () => Response {
  let body: string | undefined;
  let renderedAt: unknown;
  return () => {
    const current = version();
    if (body === undefined || current !== renderedAt) {
      body = render();
      renderedAt = current;
    }
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

  const home = lazyDocument('text/html; charset=utf-8', () => homePage(ctx));
  app.get('/', () => home());

  const models = lazyDocument(JSON_TYPE, json(() => ({ models: ctx.models, count: ctx.models.length })));
  app.get('/api/v1/models', () => models());

  const openapi = lazyDocument(JSON_TYPE, json(() => buildOpenApi(ctx)));
  app.get('/openapi.json', () => openapi());

  const llms = lazyDocument(TEXT_TYPE, () => buildLlmsTxt(ctx));
  app.get('/llms.txt', () => llms());

  const llmsFull = lazyDocument(TEXT_TYPE, () => buildLlmsFullTxt(ctx), () => ctx.savedQueries?.().version);
  app.get('/llms-full.txt', () => llmsFull());

  const agentCard = lazyDocument(JSON_TYPE, json(() => buildAgentCard(ctx)));
  app.get('/.well-known/agent.json', () => agentCard());
  app.get('/.well-known/agent-card.json', () => agentCard());

  const x402 = lazyDocument(JSON_TYPE, json(() => buildX402Catalogue(ctx)));
  app.get('/.well-known/x402.json', () => x402());

  let items: DiscoveryListItem[] | undefined;
  app.get(DISCOVERY_LIST_PATH, (c) => {
    const query = parseDiscoveryListQuery(c.req.query());
    if ('error' in query) return c.json(query, 400);
    items ??= discoveryItems(ctx);
    return c.json(discoveryList(items, query), 200, { 'cache-control': DOCUMENT_CACHE });
  });
}

/** A plain landing page for people who open the API in a browser: what it is and where the documents are. */
function homePage(ctx: DiscoveryContext): string {
  const escape = (text: string) => text.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);
  const links: [string, string][] = [
    ['/llms.txt', 'llms.txt: how to use and pay, for language models'],
    ['/llms-full.txt', 'llms-full.txt: every product with schemas and prices'],
    ['/openapi.json', 'OpenAPI 3.1 description'],
    ['/.well-known/x402.json', 'x402 payment catalogue'],
    ['/.well-known/agent-card.json', 'Agent card'],
    ['/mcp', 'MCP server (streamable HTTP)'],
    ['/observatory', 'Observatory: public usage figures'],
    ['/agent/auth.md', 'Optional anonymous agent identity'],
  ];
  const products = ctx.catalogue.available('http').map((p) => `<li><code>${p.http!.method} ${escape(p.http!.path)}</code> ${escape(p.http!.price)} USD: ${escape(p.title)}</li>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(ctx.serviceName)}</title>
<meta name="description" content="${escape(SERVICE_SUMMARY)}"><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font: 15px/1.5 system-ui, sans-serif; max-width: 760px; margin: 40px auto; padding: 0 16px">
<h1>${escape(ctx.serviceName)}</h1><p>${escape(SERVICE_SUMMARY)}</p>
<h2>Documents</h2><ul>${links.map(([href, label]) => `<li><a href="${href}">${escape(label)}</a></li>`).join('')}</ul>
<h2>On sale</h2><ul>${products.join('')}</ul>
</body></html>`;
}
