import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { PACKAGE_VERSION } from '../version.ts';

/** Why a fetch was refused or failed; `code` is stable, the message explains. */
export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  constructor(
    /** `unresolvable_host`: the name has no address (NXDOMAIN, no A/AAAA record, or the lookup could not be answered). */
    readonly code: 'invalid_url' | 'blocked_address' | 'unresolvable_host' | 'too_many_redirects' | 'timeout' | 'too_large' | 'network_error' | 'unsupported_content',
    message: string,
  ) {
    super(message);
  }
}

export interface FetchPolicy {
  /** Loopback targets allowed (tests and local demos only; PERCALL_FETCH_ALLOW_LOOPBACK=1). */
  allowLoopback: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Name resolution; tests inject one to point names at chosen addresses. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** Addresses allowed although not public (an operator's named exception, or a test's stand-in for the internet). */
  allowAddresses?: readonly string[];
}

export const DEFAULT_POLICY: FetchPolicy = { allowLoopback: false, timeoutMs: 10_000, maxBytes: 2 * 1024 * 1024, maxRedirects: 5 };

/**
 * The policy of this process: the defaults, loopback only with PERCALL_FETCH_ALLOW_LOOPBACK=1,
 * PERCALL_FETCH_TIMEOUT_MS, and PERCALL_FETCH_ALLOW_ADDRESSES (comma-separated IP addresses allowed
 * although not public; an invalid entry is a configuration error).
 */
export function policyFromEnv(env: NodeJS.ProcessEnv = process.env): FetchPolicy {
  const timeout = Number(env.PERCALL_FETCH_TIMEOUT_MS);
  const allowAddresses = (env.PERCALL_FETCH_ALLOW_ADDRESSES ?? '')
    .split(',')
    .map((entry) => entry.trim().replace(/^\[|\]$/g, ''))
    .filter(Boolean)
    .map((entry) => {
      if (!ipaddr.isValid(entry)) throw new Error(`PERCALL_FETCH_ALLOW_ADDRESSES: not an IP address: ${entry}`);
      return ipaddr.process(entry).toString();
    });
  return {
    ...DEFAULT_POLICY,
    allowLoopback: env.PERCALL_FETCH_ALLOW_LOOPBACK === '1',
    ...(timeout > 0 ? { timeoutMs: timeout } : {}),
    ...(allowAddresses.length > 0 ? { allowAddresses } : {}),
  };
}

export interface SafeRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Follow redirects (each hop re-checked); off for probes that report the first answer. */
  followRedirects?: boolean;
}

export interface SafeResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
  /** Time to the complete body, milliseconds. */
  latencyMs: number;
  redirects: number;
}

export const USER_AGENT = `percall/${PACKAGE_VERSION} (pay-per-call machine fetcher; fetches on behalf of a paying caller)`;

/**
 * Whether an address may be reached: public unicast only. IPv4: loopback, private, link-local
 * (cloud metadata 169.254.169.254), CGNAT, multicast, broadcast, unspecified and reserved ranges are
 * refused. IPv6: only global unicast (2000::/3) outside every special range passes, so unique-local,
 * link-local, the IPv4-compatible (::/96) and IPv4-mapped forms, NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
 * 6to4, Teredo and documentation ranges, which all embed or alias another address, are refused.
 */
export function isPublicAddress(address: string, policy: Pick<FetchPolicy, 'allowLoopback' | 'allowAddresses'>): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // unwraps ::ffff:a.b.c.d to IPv4
  if (policy.allowAddresses?.includes(parsed.toString())) return true;
  const range = parsed.range();
  if (range === 'unicast') return parsed.kind() === 'ipv4' || isGlobalUnicastV6(parsed as ipaddr.IPv6);
  return policy.allowLoopback && range === 'loopback';
}

/** 2000::/3, the only IPv6 block assigned for global unicast. */
function isGlobalUnicastV6(address: ipaddr.IPv6): boolean {
  return (address.parts[0]! & 0xe000) === 0x2000;
}

/**
 * The one way products fetch a caller's URL. http/https only; the name is resolved by us and every
 * resolved address checked, and the socket connects to the checked address (our lookup is the
 * socket's lookup), so DNS rebinding cannot slip in another address; the connected peer is checked
 * again; every redirect hop goes through the same checks; time and size are bounded; the response
 * is decompressed within the same size bound.
 */
export async function safeFetch(rawUrl: string, request: SafeRequest = {}, policy: FetchPolicy = DEFAULT_POLICY): Promise<SafeResponse> {
  const started = performance.now();
  const deadline = Date.now() + policy.timeoutMs;
  let url = parseUrl(rawUrl);
  let method = (request.method ?? 'GET').toUpperCase();
  let body = request.body;
  for (let redirects = 0; ; redirects++) {
    const response = await fetchOnce(url, method, request.headers ?? {}, body, policy, deadline);
    const location = response.headers.location;
    if (request.followRedirects !== false && response.status >= 300 && response.status < 400 && location) {
      if (redirects >= policy.maxRedirects) throw new SafeFetchError('too_many_redirects', `more than ${policy.maxRedirects} redirects`);
      url = parseUrl(new URL(location, url).toString());
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { ...response, url: url.toString(), latencyMs: Math.round(performance.now() - started), redirects };
  }
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError('invalid_url', `not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SafeFetchError('invalid_url', `only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new SafeFetchError('invalid_url', 'URLs with credentials are refused');
  return url;
}

async function fetchOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  policy: FetchPolicy,
  deadline: number,
): Promise<Omit<SafeResponse, 'url' | 'latencyMs' | 'redirects'>> {
  // The WHATWG parser has already turned decimal, octal and hex host forms into dotted IPv4.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host, policy)) throw blocked(host);
  const lookup = checkedLookup(policy);
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new SafeFetchError('timeout', `no answer within ${policy.timeoutMs} ms`);

  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method,
        lookup,
        agent: false,
        headers: { 'user-agent': USER_AGENT, 'accept-encoding': 'gzip, deflate, br', accept: '*/*', ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) =>
        collect(res, policy, deadline).then(resolve, (error: Error) =>
          reject(error instanceof SafeFetchError ? error : new SafeFetchError('network_error', `could not read the answer of ${url.host}: ${error.message}`)),
        ),
    );
    const timer = setTimeout(() => req.destroy(new SafeFetchError('timeout', `no answer within ${policy.timeoutMs} ms`)), remaining);
    req.on('close', () => clearTimeout(timer));
    req.on('socket', (socket) => {
      // Belt and braces: the peer we actually connected to must be allowed too.
      socket.once('connect', () => {
        const peer = socket.remoteAddress;
        if (!peer || !isPublicAddress(peer, policy)) req.destroy(blocked(peer ?? 'unknown'));
      });
    });
    req.on('error', (error) => reject(error instanceof SafeFetchError ? error : new SafeFetchError('network_error', `could not fetch ${url.host}: ${error.message}`)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function checkedLookup(policy: FetchPolicy): LookupFunction {
  const resolve =
    policy.resolve ??
    ((hostname: string) => new Promise<LookupAddress[]>((ok, fail) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? fail(error) : ok(addresses)))));
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => isPublicAddress(a.address, policy));
        // Refuse when any answer is private: a name that also points inside is not a public target.
        if (addresses.length === 0 || allowed.length !== addresses.length) return callback(blocked(`${hostname} → ${addresses.map((a) => a.address).join(', ') || 'nothing'}`), '', 4);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
        callback(null, allowed[0]!.address, allowed[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(unresolvable(hostname, error) ?? error, '', 4),
    );
  };
}

/** A lookup failure that means the name has no address (Node maps EAI_NONAME and EAI_NODATA to ENOTFOUND). */
function unresolvable(hostname: string, error: NodeJS.ErrnoException): SafeFetchError | undefined {
  if (error.code !== 'ENOTFOUND' && error.code !== 'EAI_AGAIN') return undefined;
  return new SafeFetchError('unresolvable_host', `${hostname} does not resolve (${error.code})`);
}

function blocked(what: string): SafeFetchError {
  return new SafeFetchError('blocked_address', `refused to fetch a non-public address (${what})`);
}

async function collect(res: IncomingMessage, policy: FetchPolicy, deadline: number): Promise<Omit<SafeResponse, 'url' | 'latencyMs' | 'redirects'>> {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const declared = Number(res.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > policy.maxBytes && !encoding) {
    res.destroy();
    throw new SafeFetchError('too_large', `the response is larger than ${policy.maxBytes} bytes`);
  }
  const stream = encoding === 'gzip' ? res.pipe(createGunzip()) : encoding === 'deflate' ? res.pipe(createInflate()) : encoding === 'br' ? res.pipe(createBrotliDecompress()) : res;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > policy.maxBytes) {
      res.destroy();
      throw new SafeFetchError('too_large', `the response is larger than ${policy.maxBytes} bytes`);
    }
    if (Date.now() > deadline) {
      res.destroy();
      throw new SafeFetchError('timeout', `no complete answer within ${policy.timeoutMs} ms`);
    }
    chunks.push(chunk);
  }
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  return { status: res.statusCode ?? 0, headers, contentType: (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase(), body: Buffer.concat(chunks) };
}
