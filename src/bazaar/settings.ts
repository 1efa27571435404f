import { z } from 'zod';

/** The public Bazaar discovery list of the CDP facilitator: the production default source. */
export const CDP_DISCOVERY_LIST = 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources';

/** The source name of this instance's own catalogue, read in process (no fetch). */
export const SELF_SOURCE = 'self';

export interface BazaarSettings {
  /** Discovery lists to snapshot (URLs, or `self`); empty: no snapshots (BAZAAR_DISCOVERY_URLS=off). */
  sources: string[];
  intervalMs: number;
  pageSize: number;
  maxPages: number;
  maxListings: number;
  maxPageBytes: number;
  timeoutMs: number;
}

const Env = z.object({
  /** Comma-separated discovery lists (`https://facilitator/discovery/resources` or a facilitator's base URL), `self`, or `off`. */
  BAZAAR_DISCOVERY_URLS: z.string().optional(),
  BAZAAR_SNAPSHOT_INTERVAL_MS: z.coerce.number().int().min(60_000).default(86_400_000),
  BAZAAR_PAGE_SIZE: z.coerce.number().int().min(1).max(1_000).default(100),
  BAZAAR_MAX_PAGES: z.coerce.number().int().min(1).max(100_000).default(1_000),
  BAZAAR_MAX_LISTINGS: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  BAZAAR_MAX_PAGE_BYTES: z.coerce.number().int().min(1_024).max(64 * 1024 * 1024).default(8 * 1024 * 1024),
  BAZAAR_SNAPSHOT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(600_000),
});

/**
 * BAZAAR_* settings. Default sources: the CDP facilitator's public list in production, this
 * instance's own catalogue (`self`) in dev mode, so the bazaar products answer about real listings.
 */
export function bazaarSettingsFromEnv(env: NodeJS.ProcessEnv, mode: 'dev' | 'production'): BazaarSettings {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const e = parsed.data;
  const text = e.BAZAAR_DISCOVERY_URLS?.trim();
  const sources = text === 'off' ? [] : text ? text.split(',').map((s) => s.trim()).filter(Boolean) : [mode === 'production' ? CDP_DISCOVERY_LIST : SELF_SOURCE];
  for (const source of sources) {
    if (source === SELF_SOURCE) continue;
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      throw new Error(`BAZAAR_DISCOVERY_URLS: not a URL: ${source}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`BAZAAR_DISCOVERY_URLS: not http(s): ${source}`);
  }
  return {
    sources,
    intervalMs: e.BAZAAR_SNAPSHOT_INTERVAL_MS,
    pageSize: e.BAZAAR_PAGE_SIZE,
    maxPages: e.BAZAAR_MAX_PAGES,
    maxListings: e.BAZAAR_MAX_LISTINGS,
    maxPageBytes: e.BAZAAR_MAX_PAGE_BYTES,
    timeoutMs: e.BAZAAR_SNAPSHOT_TIMEOUT_MS,
  };
}

/** The list URL of a configured source: a facilitator's base URL gets `/discovery/resources`. */
export function discoveryListUrl(source: string): string {
  const url = new URL(source);
  if (!url.pathname.replace(/\/$/, '').endsWith('/discovery/resources')) url.pathname = `${url.pathname.replace(/\/$/, '')}/discovery/resources`;
  return url.toString();
}
