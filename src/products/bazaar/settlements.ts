/**
 * Settlement evidence: settled USDC payments to listings' pay-to addresses seen in the block index
 * (ctx.index, chain `base`: Base mainnet in production, the dev chain in dev mode). A payment counts
 * as an x402-style settlement when its ERC-20 Transfer to the pay-to comes in a transaction where
 * the same token contract emitted EIP-3009 `AuthorizationUsed` for the payer: a
 * `transferWithAuthorization`/`receiveWithAuthorization`. Only listings whose accept is on the
 * indexed network with that asset are covered; for the others there is no evidence (null), never 0.
 */
import { UpstreamError, type Listing, type ProductContext } from '../kit/index.ts';

/** keccak256("AuthorizationUsed(address,bytes32)"), EIP-3009. */
export const AUTHORIZATION_USED = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';

/** The chain of the index that holds settlement evidence. */
const CHAIN = 'base';

/** Per-seller totals over a window. */
export interface SellerSettlements {
  network: string;
  from: string;
  to: string;
  byPayTo: Map<string, { calls: number; payers: number; usd: number }>;
}

/** Per pay-to, asset amount and UTC day: settled calls (for per-listing attribution by amount). */
export interface SettlementDays {
  network: string;
  from: string;
  to: string;
  rows: { payTo: string; asset: string; amount: string; day: string; calls: number; payers: number }[];
}

const ADDRESS = /^0x[0-9a-f]{40}$/;
const MAX_ADDRESSES = 5_000;

/** Who the evidence covers: the indexed network and the (pay-to, asset) pairs of listings on it. */
function coverage(ctx: ProductContext, listings: readonly Listing[]): { network: string; payTos: string[]; assets: string[] } | null {
  const network = ctx.index?.chains().get(CHAIN);
  if (!network) return null;
  const accepts = listings.flatMap((l) => l.accepts).filter((a) => a.network === network && ADDRESS.test(a.payTo) && ADDRESS.test(a.asset));
  const payTos = [...new Set(accepts.map((a) => a.payTo))].slice(0, MAX_ADDRESSES);
  const assets = [...new Set(accepts.map((a) => a.asset))].slice(0, 64);
  return { network, payTos, assets };
}

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const time = (d: Date) => `TIMESTAMP '${d.toISOString().replace('T', ' ').replace('Z', '')}'`;

function settledTransfers(payTos: readonly string[], assets: readonly string[], from: Date, to: Date): string {
  return `FROM erc20_transfers t
    WHERE t."to" IN (${list(payTos)}) AND t.contract_address IN (${list(assets)})
      AND t.block_time >= ${time(from)} AND t.block_time < ${time(to)} AND t.value IS NOT NULL
      AND EXISTS (SELECT 1 FROM logs l WHERE l.tx_hash = t.tx_hash AND l.address = t.contract_address
        AND l.topic0 = '${AUTHORIZATION_USED}' AND l.topic1 = '0x000000000000000000000000' || substr(t."from", 3))`;
}

async function rows(ctx: ProductContext, sql: string): Promise<unknown[][]> {
  const outcome = await ctx.index!.query(CHAIN, sql, ctx.signal);
  if (outcome.kind === 'unavailable') throw new UpstreamError(`settlement evidence: ${outcome.message}`, outcome.busy ? 503 : 502);
  if (outcome.kind === 'refused') throw new UpstreamError(`settlement evidence: the block index could not answer (${outcome.message})`, outcome.code === 'query_timeout' ? 504 : 502);
  if (outcome.result.truncated) throw new UpstreamError('settlement evidence: the block index cut the answer off (ANALYTICS_MAX_ROWS)', 502);
  return outcome.result.rows;
}

/** Settled calls, payers and USD per pay-to over [from, to); null when this instance indexes no Base chain. */
export async function sellerSettlements(ctx: ProductContext, listings: readonly Listing[], from: Date, to: Date): Promise<SellerSettlements | null> {
  const covered = coverage(ctx, listings);
  if (!covered) return null;
  const result: SellerSettlements = { network: covered.network, from: from.toISOString(), to: to.toISOString(), byPayTo: new Map() };
  if (covered.payTos.length === 0) return result;
  const found = await rows(ctx, `SELECT t."to", count(*)::BIGINT, count(DISTINCT t."from")::BIGINT, sum(t.value)::VARCHAR ${settledTransfers(covered.payTos, covered.assets, from, to)} GROUP BY 1`);
  for (const [payTo, calls, payers, amount] of found) result.byPayTo.set(String(payTo), { calls: Number(calls), payers: Number(payers), usd: Number(amount) / 1e6 });
  return result;
}

/** Settled calls per pay-to, asset, amount and day over [from, to); null when this instance indexes no Base chain. */
export async function settlementDays(ctx: ProductContext, listings: readonly Listing[], from: Date, to: Date): Promise<SettlementDays | null> {
  const covered = coverage(ctx, listings);
  if (!covered) return null;
  const result: SettlementDays = { network: covered.network, from: from.toISOString(), to: to.toISOString(), rows: [] };
  if (covered.payTos.length === 0) return result;
  const found = await rows(
    ctx,
    `SELECT t."to", t.contract_address, t.value::VARCHAR, strftime(t.block_time, '%Y-%m-%d'), count(*)::BIGINT, count(DISTINCT t."from")::BIGINT ${settledTransfers(covered.payTos, covered.assets, from, to)} GROUP BY 1, 2, 3, 4 ORDER BY 4, 1, 3`,
  );
  result.rows = found.map(([payTo, asset, amount, day, calls, payers]) => ({ payTo: String(payTo), asset: String(asset), amount: String(amount), day: String(day), calls: Number(calls), payers: Number(payers) }));
  return result;
}

/** How answers name the evidence a settlement figure rests on. */
export function settlementEvidence(s: { network: string; from: string; to: string } | null): string {
  return s
    ? `chain index, ${s.network}: USDC transfers to the pay-to made with EIP-3009 authorizations (AuthorizationUsed), ${s.from} to ${s.to}`
    : 'none: this instance indexes no Base chain (INDEX_CHAINS), so no settlement figure is given';
}
