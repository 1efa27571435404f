import { z } from 'zod';
import type { Hex } from 'viem';
import { usdToAtomic } from '../../money.ts';

/** The operator's wallet for paying upstream x402 sellers (service_gateway, fetch_x402_content). */
export interface OperatorSettings {
  /** OPERATOR_PAYER_PRIVATE_KEY; dev mode defaults to a funded account of the dev chain. */
  payerKey?: Hex;
  /** OPERATOR_DAILY_SPEND_CAP_USD, atomic: all upstream payments of one UTC day, all instances. */
  dailySpendCap: bigint;
  /** FETCH_X402_MAX_PRICE_USD, atomic: the most one fetch_x402_content pays. */
  fetchMaxPrice: bigint;
  /** GATEWAY_SELLERS: seller id → base URL (at most five). */
  sellers: Map<string, string>;
  /**
   * Dev mode with GATEWAY_SELLERS unset: the gateway sells this instance's own paid routes (seller
   * `percall`), at the address it listens on, known only once it listens (see gatewaySellers).
   */
  sellsItself: boolean;
}

/** The seller id of this instance itself on the dev gateway's default allowlist. */
export const SELF_SELLER = 'percall';

export const MAX_GATEWAY_SELLERS = 5;
const SELLER_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const usd = z.string().regex(/^\d+(\.\d{1,6})?$/, 'expected a USD amount with at most 6 decimals');

const Env = z.object({
  OPERATOR_PAYER_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x + 64 hex characters').optional(),
  OPERATOR_DAILY_SPEND_CAP_USD: usd.default('5.00'),
  FETCH_X402_MAX_PRICE_USD: usd.default('0.01'),
  /** `id=https://seller.example,id2=https://other.example/base` */
  GATEWAY_SELLERS: z.string().default(''),
});

export function operatorSettingsFromEnv(env: NodeJS.ProcessEnv, mode: 'dev' | 'production'): OperatorSettings {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const e = parsed.data;
  return {
    ...(e.OPERATOR_PAYER_PRIVATE_KEY ? { payerKey: e.OPERATOR_PAYER_PRIVATE_KEY as Hex } : {}),
    dailySpendCap: usdToAtomic(e.OPERATOR_DAILY_SPEND_CAP_USD),
    fetchMaxPrice: usdToAtomic(e.FETCH_X402_MAX_PRICE_USD),
    sellers: parseSellers(e.GATEWAY_SELLERS),
    sellsItself: mode === 'dev' && env.GATEWAY_SELLERS === undefined,
  };
}

/**
 * The gateway's allowlist of an instance listening at `listenUrl`: GATEWAY_SELLERS, or in dev mode
 * without it this instance itself (percall is an x402 seller: the dev gateway buys its own routes
 * with the dev operator wallet, on the dev chain). Without a listening address, none of its own.
 */
export function gatewaySellers(settings: OperatorSettings, listenUrl: string | undefined): Map<string, string> {
  if (!settings.sellsItself || !listenUrl) return settings.sellers;
  return parseSellers(`${SELF_SELLER}=${listenUrl}`);
}

/** `id=url,id=url`: ids kebab-case, URLs http(s) without query or fragment, at most five sellers. */
export function parseSellers(text: string): Map<string, string> {
  const sellers = new Map<string, string>();
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = entry.indexOf('=');
    const id = entry.slice(0, at).trim();
    const raw = entry.slice(at + 1).trim();
    if (at < 1 || !SELLER_ID.test(id)) throw new Error(`GATEWAY_SELLERS: "${entry}" is not id=url with a lowercase id`);
    if (sellers.has(id)) throw new Error(`GATEWAY_SELLERS: seller ${id} is listed twice`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`GATEWAY_SELLERS: ${id}: "${raw}" is not a URL`);
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
      throw new Error(`GATEWAY_SELLERS: ${id}: expected an http(s) base URL without credentials, query or fragment`);
    }
    sellers.set(id, url.href.replace(/\/+$/, ''));
  }
  if (sellers.size > MAX_GATEWAY_SELLERS) throw new Error(`GATEWAY_SELLERS: at most ${MAX_GATEWAY_SELLERS} sellers`);
  return sellers;
}
