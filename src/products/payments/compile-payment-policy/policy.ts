/**
 * The payment policy compile_payment_policy produces, and its check of a seller's 402 against it.
 * A policy is what an agent's wallet enforces before it signs: a cap per call, budgets per period,
 * the networks it pays on, the hosts it pays (allowed or blocked) and the products it never buys.
 * Amounts are USD in exact decimal strings; a 402 option is valued only in a stablecoin we know
 * (1 unit = 1 USD), anything else is refused.
 */
import { z } from 'zod';
import { V1_NETWORKS, assetIn, type AssetTable } from '../b402-preflight/known-assets.ts';

export const POLICY_VERSION = 'percall-payment-policy/v1';

const usd = () => z.string().regex(/^\d{1,6}(\.\d{1,6})?$/, 'a USD amount such as "0.05" (at most 6 decimals)');
const host = () => z.string().min(1).max(253).regex(/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'a host name, optionally starting with "*."');

/** The structured rules a caller (or the model, from plain language) gives. */
export const rulesSchema = z
  .object({
    per_call_max_usd: usd().optional().describe('Most one payment may cost, USD'),
    daily_max_usd: usd().optional().describe('Most spent per UTC day, USD'),
    weekly_max_usd: usd().optional().describe('Most spent per ISO week, USD'),
    monthly_max_usd: usd().optional().describe('Most spent per calendar month, USD'),
    networks: z.array(z.string().min(1).max(64)).max(16).optional().describe('Networks to pay on: CAIP-2 ids or names (base, ethereum, arbitrum, optimism, polygon, solana, …); default any network with a known stablecoin'),
    allowed_hosts: z.array(host()).max(64).optional().describe('Only these sellers’ hosts ("*.example.com" for subdomains); default any'),
    blocked_hosts: z.array(host()).max(64).optional().describe('Never these hosts'),
    blocked_products: z.array(z.string().min(1).max(100)).max(64).optional().describe('Never a resource whose URL or description contains one of these (e.g. "people-search")'),
  })
  .strict();
export type Rules = z.infer<typeof rulesSchema>;

export const policySchema = z.object({
  version: z.literal(POLICY_VERSION).describe('Policy format'),
  per_call_max_usd: usd().nullable().describe('Cap per payment, USD; null: none'),
  budgets: z.array(z.object({ period: z.enum(['day', 'week', 'month']), max_usd: usd() })).describe('Spending budgets per period (UTC)'),
  networks: z.array(z.string()).nullable().describe('CAIP-2 networks paid on; null: any with a known stablecoin'),
  allowed_hosts: z.array(z.string()).nullable().describe('Hosts paid; null: any'),
  blocked_hosts: z.array(z.string()).describe('Hosts never paid'),
  blocked_products: z.array(z.string()).describe('Resources never bought (substring of URL or description, case-insensitive)'),
});
export type Policy = z.infer<typeof policySchema>;

/** Network names the rules may use, to CAIP-2. */
function caip2(network: string): string | undefined {
  if (/^(eip155:\d+|solana:[1-9A-HJ-NP-Za-km-z]{32})$/.test(network)) return network;
  return V1_NETWORKS[network.toLowerCase()];
}

/** The policy of the rules, and what in them could not be taken as given. */
export function compile(rules: Rules): { policy: Policy; ambiguities: string[] } {
  const ambiguities: string[] = [];
  const networks = rules.networks?.map((n) => {
    const id = caip2(n.trim());
    if (!id) ambiguities.push(`network "${n}" is not one this compiler knows (use a CAIP-2 id); left out`);
    return id;
  });
  const known = networks?.filter((n): n is string => n !== undefined);
  if (networks && known!.length === 0) ambiguities.push('no network left: nothing can be paid');
  const budgets = (['day', 'week', 'month'] as const).flatMap((period) => {
    const max = rules[`${period === 'day' ? 'daily' : `${period}ly`}_max_usd` as 'daily_max_usd' | 'weekly_max_usd' | 'monthly_max_usd'];
    return max === undefined ? [] : [{ period, max_usd: max }];
  });
  if (rules.per_call_max_usd !== undefined) {
    for (const b of budgets) if (Number(b.max_usd) < Number(rules.per_call_max_usd)) ambiguities.push(`the ${b.period} budget (${b.max_usd}) is below the per-call cap (${rules.per_call_max_usd}): no single call can cost more than the budget`);
  }
  const allowed = rules.allowed_hosts?.map((h) => h.toLowerCase());
  const blocked = (rules.blocked_hosts ?? []).map((h) => h.toLowerCase());
  for (const h of blocked) if (allowed?.includes(h)) ambiguities.push(`host ${h} is both allowed and blocked: blocked wins`);
  return {
    policy: {
      version: POLICY_VERSION,
      per_call_max_usd: rules.per_call_max_usd ?? null,
      budgets,
      networks: known ? [...new Set(known)] : null,
      allowed_hosts: allowed ?? null,
      blocked_hosts: blocked,
      blocked_products: (rules.blocked_products ?? []).map((p) => p.toLowerCase()),
    },
    ambiguities,
  };
}

/**
 * The official x402 client's spend controls for the policy (`client.setSpendControls(...)`): the cap
 * per payment, and the known stablecoins of the policy's networks, each capped in atomic units.
 * Networks are scoped by registering schemes only for `networks`; budgets, hosts and products are the
 * policy document's, checked by the agent (the SDK has no such controls).
 */
export function spendControls(policy: Policy, assets: AssetTable) {
  const networks = policy.networks ?? Object.keys(assets);
  const allowedAssets = networks.flatMap((network) =>
    Object.entries(assets[network] ?? {}).map(([asset, known]) => ({
      network,
      asset,
      ...(policy.per_call_max_usd === null ? {} : { maxAmountPerPayment: toAtomic(policy.per_call_max_usd, known.decimals) }),
    })),
  );
  return { maxAmountPerPayment: policy.per_call_max_usd === null ? (false as const) : `$${policy.per_call_max_usd}`, allowedAssets };
}

function toAtomic(amount: string, decimals: number): string {
  const [whole, fraction = ''] = amount.split('.');
  return (BigInt(whole!) * 10n ** BigInt(decimals) + BigInt((fraction + '0'.repeat(decimals)).slice(0, decimals) || '0')).toString();
}

function usdOf(atomic: string, decimals: number): number {
  return Number(BigInt(atomic)) / 10 ** decimals;
}

/** A seller's 402 (x402 v1 or v2 PaymentRequired, decoded) checked against the policy. */
export function checkSample(policy: Policy, assets: AssetTable, sample: Record<string, unknown>) {
  const accepts = Array.isArray(sample.accepts) ? (sample.accepts as Record<string, unknown>[]) : [];
  const resource = typeof sample.resource === 'object' && sample.resource !== null ? (sample.resource as Record<string, unknown>) : {};
  const url = String(resource.url ?? accepts[0]?.resource ?? '');
  const description = String(resource.description ?? accepts[0]?.description ?? '');
  const reasons: string[] = [];
  let hostName = '';
  try {
    hostName = new URL(url).hostname.toLowerCase();
  } catch {
    reasons.push('the 402 names no resource URL');
  }
  const matches = (pattern: string) => (pattern.startsWith('*.') ? hostName.endsWith(pattern.slice(1)) : hostName === pattern);
  if (hostName && policy.blocked_hosts.some(matches)) reasons.push(`host ${hostName} is blocked`);
  if (hostName && policy.allowed_hosts && !policy.allowed_hosts.some(matches)) reasons.push(`host ${hostName} is not among the allowed hosts`);
  const text = `${url} ${description}`.toLowerCase();
  for (const p of policy.blocked_products) if (text.includes(p)) reasons.push(`the resource matches the blocked product "${p}"`);
  const options = accepts.map((a) => {
    const network = caip2(String(a.network ?? '')) ?? String(a.network ?? '');
    const known = assetIn(assets, network, String(a.asset ?? ''));
    const atomic = String(a.amount ?? a.maxAmountRequired ?? '');
    const why: string[] = [];
    if (policy.networks && !policy.networks.includes(network)) why.push(`network ${network} is not allowed`);
    if (!known) why.push('not a stablecoin this policy can value');
    const amountUsd = known && /^\d+$/.test(atomic) ? usdOf(atomic, known.decimals) : null;
    if (known && amountUsd === null) why.push('no valid amount');
    if (amountUsd !== null && policy.per_call_max_usd !== null && amountUsd > Number(policy.per_call_max_usd)) why.push(`${amountUsd} USD is over the per-call cap of ${policy.per_call_max_usd}`);
    for (const b of policy.budgets) if (amountUsd !== null && amountUsd > Number(b.max_usd)) why.push(`${amountUsd} USD is over the ${b.period} budget of ${b.max_usd}`);
    return { scheme: String(a.scheme ?? ''), network, amount_usd: amountUsd, allowed: why.length === 0, reasons: why };
  });
  if (options.length === 0) reasons.push('the 402 offers no payment option');
  else if (!options.some((o) => o.allowed)) reasons.push('no payment option passes the policy');
  return { resource: url || null, decision: reasons.length === 0 ? ('allow' as const) : ('deny' as const), reasons, options };
}
