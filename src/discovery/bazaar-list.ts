import type { PaymentRequirements } from '@x402/core/types';
import type { DiscoveryResource, DiscoveryResourcesResponse } from '@x402/extensions/bazaar';
import type { AvailableProduct, Surface } from '../catalogue/types.ts';
import { X402_VERSION, mcpUrl, type DiscoveryContext } from './context.ts';

/**
 * `GET /discovery/resources`: this instance's own catalogue as a Bazaar discovery list, in the shape
 * facilitators publish theirs (x402 `specs/extensions/bazaar.md`, the SDK's `DiscoveryResourcesResponse`):
 * `x402Version`, `items` (one per paid route and per MCP tool: `resource`, `type`, `x402Version`,
 * `accepts` exactly as the 402 quotes them, `lastUpdated`, the 402's `extensions.bazaar`, and
 * `metadata`), and `pagination` (`limit`, `offset`, `total`). Filters `type`, `payTo`, `scheme`,
 * `network` and `extensions` are applied; an MCP tool is identified by the MCP URL and its
 * `extensions.bazaar.info.input.toolName`, as the spec keys MCP entries.
 */

/** One item of the list: the SDK's DiscoveryResource plus the `metadata` object facilitators attach. */
export type DiscoveryListItem = DiscoveryResource & { metadata: Record<string, unknown> };

export type DiscoveryList = Omit<DiscoveryResourcesResponse, 'items'> & { items: DiscoveryListItem[] };

export const DISCOVERY_LIST_PATH = '/discovery/resources';
export const DISCOVERY_LIST_DEFAULT_LIMIT = 100;
export const DISCOVERY_LIST_MAX_LIMIT = 1000;

export interface DiscoveryListQuery {
  type?: string;
  payTo?: string;
  scheme?: string;
  network?: string;
  extensions?: string;
  limit: number;
  offset: number;
}

/** Every item of this instance's list, in catalogue order (HTTP routes, then MCP tools). */
export function discoveryItems(ctx: DiscoveryContext): DiscoveryListItem[] {
  const lastUpdated = ctx.startedAt.toISOString();
  const item = (product: AvailableProduct, surface: Surface, resource: string): DiscoveryListItem => {
    const bazaar = ctx.bazaarExtension?.(product, surface);
    return {
      resource,
      type: surface === 'mcp' ? 'mcp' : 'http',
      x402Version: X402_VERSION,
      accepts: ctx.accepts(product, surface) as PaymentRequirements[],
      lastUpdated,
      description: product.description,
      mimeType: 'application/json',
      serviceName: ctx.serviceName,
      tags: [product.category],
      ...(bazaar ? { extensions: { bazaar } } : {}),
      metadata: { id: product.id, title: product.title, category: product.category, ...(surface === 'mcp' ? { toolName: product.mcp!.tool } : { method: product.http!.method }) },
    };
  };
  return [
    ...ctx.catalogue.available('http').map((p) => item(p, 'http', `${ctx.baseUrl}${p.http!.path}`)),
    ...ctx.catalogue.available('mcp').map((p) => item(p, 'mcp', mcpUrl(ctx))),
  ];
}

/** One page of the list, filtered as the query asks. */
export function discoveryList(items: readonly DiscoveryListItem[], query: DiscoveryListQuery): DiscoveryList {
  const lower = (s: string) => s.toLowerCase();
  const matching = items.filter(
    (item) =>
      (query.type === undefined || item.type === query.type) &&
      (query.payTo === undefined || item.accepts.some((a) => lower(a.payTo) === lower(query.payTo!))) &&
      (query.scheme === undefined || item.accepts.some((a) => a.scheme === query.scheme)) &&
      (query.network === undefined || item.accepts.some((a) => a.network === query.network)) &&
      (query.extensions === undefined || Object.hasOwn(item.extensions ?? {}, query.extensions)),
  );
  return {
    x402Version: X402_VERSION,
    items: matching.slice(query.offset, query.offset + query.limit),
    pagination: { limit: query.limit, offset: query.offset, total: matching.length },
  };
}

const TOKEN = /^[A-Za-z0-9:_.\-]{1,128}$/;

/**
 * The list's query parameters, or the parameter that is malformed (answered 400 with `error`, as the
 * spec's conformance vectors expect; a well-formed value that matches nothing is an empty page).
 */
export function parseDiscoveryListQuery(params: Record<string, string | undefined>): DiscoveryListQuery | { error: string } {
  const query: DiscoveryListQuery = { limit: DISCOVERY_LIST_DEFAULT_LIMIT, offset: 0 };
  for (const name of ['type', 'payTo', 'scheme', 'network', 'extensions'] as const) {
    const value = params[name];
    if (value === undefined || value === '') continue;
    if (!TOKEN.test(value)) return { error: `invalid ${name}: expected letters, digits and : _ . - (at most 128)` };
    query[name] = value;
  }
  for (const name of ['limit', 'offset'] as const) {
    const value = params[name];
    if (value === undefined || value === '') continue;
    if (!/^\d{1,9}$/.test(value)) return { error: `invalid ${name}: expected a non-negative integer` };
    query[name] = Number(value);
  }
  if (query.limit < 1 || query.limit > DISCOVERY_LIST_MAX_LIMIT) return { error: `invalid limit: expected 1 to ${DISCOVERY_LIST_MAX_LIMIT}` };
  return query;
}
