/**
 * The data providers an operator configures, from the environment. Each provider `P` takes
 * `P_TIMEOUT_MS`, `P_BUDGET_PER_MINUTE` and `P_CACHE_SECONDS` besides its URL and key (README,
 * "Data providers"). A keyed provider is configured only with its key; GLEIF and CoinGecko are
 * public and keyless, configured by default (`GLEIF_API_URL=off`, `COINGECKO_API_URL=off` turn
 * them off).
 */
import type { ProviderSettings } from './client.ts';

export const PROVIDER_IDS = ['gleif', 'coingecko', 'searxng', 'brave', 'x', 'alphavantage', 'seatsaero', 'pdl', 'sec'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
export type DataProviderSettings = Partial<Record<ProviderId, ProviderSettings>>;

interface Defaults {
  timeoutMs: number;
  budgetPerMinute: number;
  cacheSeconds: number;
}

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > max) throw new Error(`${name}: expected a number from 0 to ${max}`);
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, fallback?: string): string | undefined {
  const text = env[name]?.trim() || fallback;
  if (!text || text === 'off') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new Error(`${name}: expected an http(s) URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error(`${name}: expected an http(s) URL`);
  return text.replace(/\/$/, '');
}

function settings(env: NodeJS.ProcessEnv, prefix: string, baseUrl: string, headers: Record<string, string>, defaults: Defaults): ProviderSettings {
  const budgetPerMinute = number(env, `${prefix}_BUDGET_PER_MINUTE`, defaults.budgetPerMinute, 1_000_000);
  if (budgetPerMinute < 1) throw new Error(`${prefix}_BUDGET_PER_MINUTE: at least 1`);
  return {
    baseUrl,
    headers,
    timeoutMs: number(env, `${prefix}_TIMEOUT_MS`, defaults.timeoutMs, 120_000) || defaults.timeoutMs,
    budgetPerMinute,
    cacheTtlMs: number(env, `${prefix}_CACHE_SECONDS`, defaults.cacheSeconds, 86_400) * 1000,
  };
}

const key = (env: NodeJS.ProcessEnv, name: string) => env[name]?.trim() || undefined;

export function dataProviderSettingsFromEnv(env: NodeJS.ProcessEnv): DataProviderSettings {
  const out: DataProviderSettings = {};
  // GLEIF: public, keyless; fair use is 60 requests a minute.
  const gleif = url(env, 'GLEIF_API_URL', 'https://api.gleif.org/api/v1');
  if (gleif) out.gleif = settings(env, 'GLEIF', gleif, {}, { timeoutMs: 10_000, budgetPerMinute: 50, cacheSeconds: 3_600 });

  // CoinGecko: keyless public tier by default; a Demo key (header x-cg-demo-api-key) or a paid Pro
  // key (pro-api host, header x-cg-pro-api-key) raises the limits.
  const cgKey = key(env, 'COINGECKO_API_KEY');
  const cgPlan = env.COINGECKO_API_PLAN?.trim() || (cgKey ? 'pro' : 'public');
  if (!['public', 'demo', 'pro'].includes(cgPlan) || (cgPlan !== 'public' && !cgKey)) throw new Error('COINGECKO_API_PLAN: demo or pro, with COINGECKO_API_KEY');
  const coingecko = url(env, 'COINGECKO_API_URL', cgPlan === 'pro' ? 'https://pro-api.coingecko.com/api/v3' : 'https://api.coingecko.com/api/v3');
  if (coingecko) {
    const headers: Record<string, string> = cgKey ? { [cgPlan === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key']: cgKey } : {};
    out.coingecko = settings(env, 'COINGECKO', coingecko, headers, { timeoutMs: 10_000, budgetPerMinute: cgPlan === 'pro' ? 500 : cgPlan === 'demo' ? 30 : 10, cacheSeconds: 60 });
  }

  // Web search: a SearXNG instance of the operator's (its JSON format enabled) and Brave Search.
  const searxng = url(env, 'SEARXNG_URL');
  if (searxng) out.searxng = settings(env, 'SEARXNG', searxng, {}, { timeoutMs: 10_000, budgetPerMinute: 60, cacheSeconds: 300 });
  const braveKey = key(env, 'BRAVE_SEARCH_API_KEY');
  if (braveKey) out.brave = settings(env, 'BRAVE_SEARCH', url(env, 'BRAVE_SEARCH_API_URL', 'https://api.search.brave.com/res/v1')!, { 'x-subscription-token': braveKey }, { timeoutMs: 10_000, budgetPerMinute: 60, cacheSeconds: 300 });

  // X API v2 recent search: an app-only bearer token (450 requests per 15 minutes).
  const xToken = key(env, 'X_BEARER_TOKEN');
  if (xToken) out.x = settings(env, 'X', url(env, 'X_API_URL', 'https://api.x.com/2')!, { authorization: `Bearer ${xToken}` }, { timeoutMs: 10_000, budgetPerMinute: 30, cacheSeconds: 60 });
  // Alpha Vantage: the key travels as the `apikey` query parameter; the free tier allows a few
  // requests a minute (25 a day), so the budget is small and company overviews are cached for hours.
  const avKey = key(env, 'ALPHAVANTAGE_API_KEY');
  if (avKey) out.alphavantage = { ...settings(env, 'ALPHAVANTAGE', url(env, 'ALPHAVANTAGE_API_URL', 'https://www.alphavantage.co/query')!, {}, { timeoutMs: 10_000, budgetPerMinute: 5, cacheSeconds: 60 }), query: { apikey: avKey } };
  // Seats.aero Partner API: the key as the Partner-Authorization header (Pro keys: 1,000 calls a day).
  const seatsKey = key(env, 'SEATS_AERO_API_KEY');
  if (seatsKey) out.seatsaero = settings(env, 'SEATS_AERO', url(env, 'SEATS_AERO_API_URL', 'https://seats.aero/partnerapi')!, { 'partner-authorization': seatsKey }, { timeoutMs: 15_000, budgetPerMinute: 20, cacheSeconds: 600 });

  // People Data Labs: the key in the X-Api-Key header. PDL bills every matched record (and allows
  // 10 searches a minute by default), so the budget is small and identical requests are cached a day.
  const pdlKey = key(env, 'PDL_API_KEY');
  if (pdlKey) out.pdl = settings(env, 'PDL', url(env, 'PDL_API_URL', 'https://api.peopledatalabs.com')!, { 'x-api-key': pdlKey }, { timeoutMs: 15_000, budgetPerMinute: 10, cacheSeconds: 86_400 });

  // SEC EDGAR: keyless, but SEC's fair-access policy asks for a User-Agent naming the caller and a
  // contact email, and at most 10 requests a second: the default budget (120 a minute, bursts of 8)
  // keeps any one second at 10 or fewer. Company facts documents of large filers run to megabytes.
  const secAgent = env.SEC_USER_AGENT?.trim();
  const secData = url(env, 'SEC_DATA_URL', 'https://data.sec.gov');
  const secWww = url(env, 'SEC_WWW_URL', 'https://www.sec.gov');
  if (secAgent && secData && secWww) {
    if (!/\S+@\S+\.\S+/.test(secAgent)) throw new Error('SEC_USER_AGENT: expected a name and a contact email, e.g. "Example Corp ops@example.com"');
    const sec = settings(env, 'SEC', secData, { 'user-agent': secAgent }, { timeoutMs: 15_000, budgetPerMinute: 120, cacheSeconds: 600 });
    if (sec.budgetPerMinute > 540) throw new Error('SEC_BUDGET_PER_MINUTE: at most 540 (SEC allows 10 requests a second)');
    out.sec = { ...sec, origins: { www: secWww }, burst: Math.max(1, Math.floor(10 - sec.budgetPerMinute / 60)), maxAnswerBytes: 64 * 1024 * 1024 };
  }

  return out;
}
