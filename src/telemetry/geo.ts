import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Origin } from './counters.ts';

type Lookup = (ip: string) => { country?: string } | null;
let lookup: Lookup | undefined;

/**
 * Country of an IP address from the offline database shipped in the `geoip-country` package
 * (loaded once, on the first public address: about 8 MB of tables). Private, loopback, reserved and
 * malformed addresses are `unknown` without a lookup.
 */
export function countryOf(ip: string | undefined): string {
  if (!ip) return 'unknown';
  let country = recent.get(ip);
  if (country === undefined) {
    if (!isPublicUnicast(ip)) country = 'unknown';
    else {
      lookup ??= (createRequire(import.meta.url)('geoip-country') as { lookup: Lookup }).lookup;
      country = lookup(ip)?.country ?? 'unknown';
    }
    // Clients call repeatedly: remember recent answers, within a bound.
    if (recent.size >= RECENT_MAX) recent.clear();
    recent.set(ip, country);
  }
  return country;
}

const RECENT_MAX = 10_000;

/** A unicast address outside the private, loopback, link-local and reserved ranges (IPv4-mapped IPv6 read as IPv4). */
function isPublicUnicast(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'unicast';
}
const recent = new Map<string, string>();

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
  // Served by the node adapter the Node request is in the env; not otherwise (e.g. app.request in a test).
  if (!(c.env as { incoming?: unknown } | undefined)?.incoming) return undefined;
  return getConnInfo(c).remote.address?.replace(/^::ffff:/, '');
}

export function originOf(c: Context, trustedHeader: string | undefined): Origin {
  return { country: countryOf(clientIp(c, trustedHeader)) };
}
