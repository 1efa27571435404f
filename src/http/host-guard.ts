import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { problemResponse, problems } from './problem.ts';

/**
 * DNS-rebinding and cross-site protection: the `Host` and browser `Origin` of every request that can
 * change state or spend money are checked against the names this service answers to.
 *
 * Guarded: `/mcp` (every method), paid routes (`/api/v1/paid/…`, every method: a paid GET settles a
 * payment) and every POST/PUT/PATCH/DELETE anywhere (orders, identity, OAuth, admin). Free GET/HEAD/
 * OPTIONS reads stay open to any Host: they are public documents that any site can fetch from the
 * public name anyway, they carry nothing a rebinding page could not read there, and load balancers,
 * health checks and metrics scrapers address instances by IP.
 *
 * Allowed names: the hosts of PUBLIC_BASE_URL and SITE_URL, the actual listening address, the
 * ALLOWED_HOSTS entries, and in dev mode `localhost`, `127.0.0.1` and `[::1]` on any port. A request
 * without `Origin` (curl, SDKs, agents) passes when its Host is allowed; an `Origin` (a browser) must
 * be one of the allowed names too, and `Origin: null` never is.
 *
 * Production with none of PUBLIC_BASE_URL, SITE_URL, ALLOWED_HOSTS: the public name is unknown (behind a
 * load balancer it is whatever the balancer forwards), so any Host is accepted, but a browser Origin
 * must be the origin the request was addressed to (same-origin), which still stops cross-site
 * requests. A warning at start says so.
 */

/** A name the service answers to: a lower-case hostname (IPv6 in brackets) and a port, or any port. */
export interface HostPattern {
  hostname: string;
  port?: string;
}

/** `host` or `host:port`; IPv6 in brackets. Also the syntax of an ALLOWED_HOSTS entry. */
export const HOST_ENTRY = /^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?)(?::(\d{1,5}))?$/i;

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const DEFAULT_PORTS = new Set(['80', '443']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A Host header or ALLOWED_HOSTS entry; undefined when malformed. A missing port stays undefined. */
export function parseHost(value: string): HostPattern | undefined {
  const match = HOST_ENTRY.exec(value.trim());
  if (!match) return undefined;
  return { hostname: match[1]!.toLowerCase().replace(/\.$/, ''), ...(match[2] !== undefined ? { port: match[2] } : {}) };
}

/** The host and effective port of an http(s) URL or origin; undefined for anything else (`null` included). */
function parseUrlHost(value: string): { hostname: string; port: string } | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return { hostname: url.hostname.replace(/\.$/, ''), port: url.port || (url.protocol === 'https:' ? '443' : '80') };
}

/** The names allowed by the configuration; undefined means any Host (production without a configured name). */
export function allowedHosts(config: Config, listenUrl?: string): HostPattern[] | undefined {
  const configured = config.mode === 'dev' || config.publicBaseUrl !== undefined || config.siteUrl !== undefined || config.allowedHosts.length > 0;
  if (!configured) return undefined;
  const patterns: HostPattern[] = [];
  for (const url of [config.publicBaseUrl, config.siteUrl, listenUrl]) {
    const host = url === undefined ? undefined : parseUrlHost(url);
    if (host) patterns.push(host);
  }
  if (config.port !== 0) {
    // The listening address; on a wildcard address that includes loopback (names no other site can take).
    const wildcard = config.host === '0.0.0.0' || config.host === '::';
    const names = wildcard ? LOOPBACK : [config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host];
    for (const name of names) {
      const listening = parseHost(name);
      if (listening) patterns.push({ hostname: listening.hostname, port: String(config.port) });
    }
  }
  for (const entry of config.allowedHosts) {
    const host = parseHost(entry);
    if (host) patterns.push(host);
  }
  if (config.mode === 'dev') patterns.push(...LOOPBACK.map((hostname) => ({ hostname })));
  return patterns;
}

/** A Host without a port was addressed on the default port of whatever scheme the client used. */
function hostAllowed(patterns: HostPattern[], host: HostPattern): boolean {
  return patterns.some(
    (p) => p.hostname === host.hostname && (p.port === undefined || p.port === host.port || (host.port === undefined && DEFAULT_PORTS.has(p.port))),
  );
}

function originAllowed(patterns: HostPattern[], origin: { hostname: string; port: string }): boolean {
  return patterns.some((p) => p.hostname === origin.hostname && (p.port === undefined || p.port === origin.port));
}

/** Whether this request can change state or spend money, hence must come from an allowed name. */
export function isGuarded(method: string, path: string): boolean {
  return path === '/mcp' || path.startsWith('/mcp/') || path.startsWith('/api/v1/paid/') || !SAFE_METHODS.has(method.toUpperCase());
}

/** The Host names of a request: its Host header and the authority of its URL (they differ for absolute-form targets). */
function requestHosts(request: Request): string[] {
  const url = new URL(request.url).host;
  const header = request.headers.get('host');
  return header === null || header.toLowerCase() === url.toLowerCase() ? [url] : [header, url];
}

export interface HostGuardOptions {
  config: Config;
  /** Where this process actually listens (or the public base URL the runtime derived), always allowed. */
  listenUrl?: string;
  log?: Logger;
}

/** The Hono middleware; see the module comment for the policy. */
export function hostGuard(options: HostGuardOptions): MiddlewareHandler {
  const patterns = allowedHosts(options.config, options.listenUrl);
  if (!patterns) {
    options.log?.warn(
      'no PUBLIC_BASE_URL, SITE_URL or ALLOWED_HOSTS: any Host is accepted (browser Origins must still be same-origin); set PUBLIC_BASE_URL to check Host',
    );
  }
  return async (c, next) => {
    if (!isGuarded(c.req.method, c.req.path)) return next();
    const hosts = requestHosts(c.req.raw).map(parseHost);
    const rawHost = c.req.header('host') ?? new URL(c.req.url).host;
    if (!hosts.every((h) => h !== undefined && (!patterns || hostAllowed(patterns, h)))) {
      options.log?.debug({ path: c.req.path, host: rawHost.slice(0, 100) }, 'request to a foreign Host refused');
      return problemResponse(problems.forbiddenSource('host', rawHost));
    }
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    const from = parseUrlHost(origin);
    // Without configured names, the Origin must be the origin the request was addressed to.
    const allowed = from !== undefined && (patterns ? originAllowed(patterns, from) : hosts.every((h) => h !== undefined && hostAllowed([{ hostname: from.hostname, port: from.port }], h)));
    if (!allowed) {
      options.log?.debug({ path: c.req.path, origin: origin.slice(0, 100) }, 'request from a foreign Origin refused');
      return problemResponse(problems.forbiddenSource('origin', origin));
    }
    return next();
  };
}
