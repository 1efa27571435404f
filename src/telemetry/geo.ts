import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Origin } from './counters.ts';

type Lookup = (ip: string) => { country?: string } | null;
let lookup: Lookup | undefined;

/**
 * Country of an IP address from the offline database shipped in the `geoip-country` package
 * (loaded once, on first use). Private, reserved and unknown addresses are `unknown`.
 */
export function countryOf(ip: string | undefined): string {
  if (!ip || isIP(ip) === 0) return 'unknown';
  lookup ??= (createRequire(import.meta.url)('geoip-country') as { lookup: Lookup }).lookup;
  return lookup(ip)?.country ?? 'unknown';
}

/**
 * The client's address: the socket peer, or, only when the operator names a trusted proxy header
 * (TRUSTED_PROXY_HEADER), that header's first address. Headers are never trusted otherwise: any
 * client can send them.
 */
export function clientIp(c: Context, trustedHeader: string | undefined): string | undefined {
  if (trustedHeader) {
    const value = c.req.header(trustedHeader);
    const first = value?.split(',')[0]?.trim();
    if (first) return first.replace(/^\[|\]$/g, '');
  }
  try {
    return getConnInfo(c).remote.address?.replace(/^::ffff:/, '');
  } catch {
    return undefined; // not served by the node adapter (e.g. app.fetch in a test)
  }
}

export function originOf(c: Context, trustedHeader: string | undefined): Origin {
  return { country: countryOf(clientIp(c, trustedHeader)) };
}
