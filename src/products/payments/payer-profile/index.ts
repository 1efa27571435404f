/**
 * payer_profile: a Base address's x402 payment history from percall's block index, and the payer
 * class its figures fall in (the published rules in ./classes.ts). A payment is a USDC transfer
 * from the address in a transaction where USDC emitted EIP-3009 `AuthorizationUsed` for it (a
 * `transferWithAuthorization`/`receiveWithAuthorization`, as x402 `exact` settles).
 */
import { z } from 'zod';
import { getAddress } from 'viem';
import { READ_EXTERNAL, evmAddress, evmChainOf, product, type ProductContext } from '../../kit/index.ts';
import { USDC_DECIMALS, addressOut, tokenAmount } from '../../chain/evm.ts';
import { indexRows, indexedChain, indexedRange, indexedRangeSchema, isoTime, requireIndexed, sqlAddress, sqlInt, sqlTime, type IndexedChain } from '../../chain/index-read.ts';
import { AUTHORIZATION_USED } from '../../bazaar/settlements.ts';
import { PAYER_CLASSES, classify } from './classes.ts';

const DAY_MS = 86_400_000;
const WINDOWS = [7, 30, 90] as const;
const TOP_SELLERS = 5;

const usdc = () => z.string().regex(/^\d+(\.\d{1,6})?$/);

const windowSchema = z.object({
  days: z.int().describe('Length of the window, days back from the answer’s time'),
  payments: z.int().min(0).describe('x402 payments in it'),
  volume: usdc().describe('Their sum in USDC, an exact decimal string'),
  sellers: z.int().min(0).describe('Distinct payees'),
});

export const payerProfile = product({
  id: 'payer-profile',
  title: 'Payer profile',
  description: `Classifies a Base address as an x402 payer from its settlement history in percall's block index (USDC transfers it authorised with EIP-3009, as x402 exact settles) and returns the class with the evidence: first and last payment, payments, volume and sellers over 7, 30 and 90 days, active days, the median interval between payments and its top sellers. Classes, first rule that holds: ${PAYER_CLASSES.map((c) => `${c.class} (${c.rule})`).join('; ')}. Free doors: GET /api/v1/payer-profile/classes and /api/v1/payer-profile/example.`,
  price: '0.01',
  annotations: READ_EXTERNAL,
  requires: ['index', 'evm:base'],
  input: z.object({
    address: evmAddress().describe('Base address, 0x + 40 hex characters'),
  }),
  inputExample: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
  freeDoors: [
    { method: 'GET', path: '/api/v1/payer-profile/example', note: 'an example profile' },
    { method: 'GET', path: '/api/v1/payer-profile/classes', note: 'the list of payer classes' },
  ],
  output: z.object({
    chain: z.literal('base').describe('The chain read'),
    network: z.string().describe('Its CAIP-2 id (eip155:31337 for the dev chain)'),
    address: addressOut().describe('The payer, EIP-55 checksummed'),
    class: z.enum(PAYER_CLASSES.map((c) => c.class) as [string, ...string[]]).describe('The payer class: the first rule of /api/v1/payer-profile/classes that holds'),
    rule: z.string().describe('That rule, in words'),
    payments: z.int().min(0).describe('x402 payments in the indexed history'),
    volume: usdc().describe('Their sum in USDC, an exact decimal string'),
    first_payment: isoTime().nullable().describe('Time of the first payment (UTC)'),
    last_payment: isoTime().nullable().describe('Time of the last payment (UTC)'),
    sellers: z.int().min(0).describe('Distinct payees in the whole history'),
    active_days: z.int().min(0).describe('Distinct UTC days with a payment'),
    median_interval_seconds: z.number().nullable().describe('Median seconds between consecutive payments (null with fewer than two)'),
    windows: z.array(windowSchema).describe('Payments, volume and sellers over the last 7, 30 and 90 days'),
    top_sellers: z
      .array(z.object({ address: addressOut().describe('Payee'), payments: z.int().min(0).describe('Payments to it'), volume: usdc().describe('Their sum in USDC') }))
      .describe(`The ${TOP_SELLERS} payees paid most often`),
    evidence: z.string().describe('What the figures rest on'),
    indexed: indexedRangeSchema(),
  }),
  // A real captured output: the dev buyer after three paid calls.
  outputExample: {
    "chain": "base",
    "network": "eip155:31337",
    "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "class": "new",
    "rule": "first payment within the last 7 days",
    "payments": 3,
    "volume": "0.015",
    "first_payment": "2026-11-24T00:18:41.000Z",
    "last_payment": "2026-11-24T00:18:42.000Z",
    "sellers": 1,
    "active_days": 1,
    "median_interval_seconds": 0.5,
    "windows": [
      {
        "days": 7,
        "payments": 3,
        "volume": "0.015",
        "sellers": 1
      },
      {
        "days": 30,
        "payments": 3,
        "volume": "0.015",
        "sellers": 1
      },
      {
        "days": 90,
        "payments": 3,
        "volume": "0.015",
        "sellers": 1
      }
    ],
    "top_sellers": [
      {
        "address": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "payments": 3,
        "volume": "0.015"
      }
    ],
    "evidence": "USDC transfers from the address with EIP-3009 AuthorizationUsed in the same transaction, in percall’s block index of base (eip155:31337) up to block 34",
    "indexed": {
      "from_block": 0,
      "from_time": "2026-11-24T00:18:37.000Z",
      "to_block": 34,
      "to_time": "2026-11-24T00:18:42.000Z",
      "from_genesis": true
    }
  },
  run: async (input, ctx) => {
    const on = indexedChain(ctx, 'base');
    const token = evmChainOf(ctx, 'base').usdc.toLowerCase();
    const payer = input.address.toLowerCase();
    const range = await indexedRange(on, ctx.signal);
    requireIndexed(range);
    const payments = paymentsOf(payer, token, range.to_block);
    const [summary, sellers] = await Promise.all([summaryOf(on, payments, ctx), topSellers(on, payments, ctx)]);
    const { class: payerClass, rule } = classify(summary.history);
    return {
      chain: 'base' as const,
      network: on.network,
      address: getAddress(input.address),
      class: payerClass,
      rule,
      ...summary.figures,
      top_sellers: sellers,
      evidence: `USDC transfers from the address with EIP-3009 AuthorizationUsed in the same transaction, in percall’s block index of base (${on.network}) up to block ${range.to_block}`,
      indexed: range,
    };
  },
});

/** The payer's x402 payments (block_time, payee, value) as a subquery over the index. */
function paymentsOf(payer: string, token: string, toBlock: number): string {
  const topic = `0x${'0'.repeat(24)}${payer.slice(2)}`;
  return `SELECT t.block_time, t.tx_hash, t."to" AS payee, t.value FROM erc20_transfers t
    WHERE t."from" = ${sqlAddress(payer)} AND t.contract_address = ${sqlAddress(token)} AND t.block_number <= ${sqlInt(toBlock)} AND t.value IS NOT NULL
      AND EXISTS (SELECT 1 FROM logs l WHERE l.tx_hash = t.tx_hash AND l.address = t.contract_address AND l.topic0 = '${AUTHORIZATION_USED}' AND l.topic1 = '${topic}')`;
}

const iso = (value: unknown): string | null => (value === null || value === undefined ? null : new Date(String(value).replace(' ', 'T').replace(/(\d)$/, '$1Z')).toISOString());
const usd = (atomic: unknown) => tokenAmount(BigInt(String(atomic ?? '0')), USDC_DECIMALS);

async function summaryOf(on: IndexedChain, payments: string, ctx: ProductContext) {
  const since = (days: number) => sqlTime(new Date(ctx.now.getTime() - days * DAY_MS));
  const perWindow = WINDOWS.map(
    (d) => `count(*) FILTER (WHERE block_time >= ${since(d)})::BIGINT, (coalesce(sum(value) FILTER (WHERE block_time >= ${since(d)}), 0))::VARCHAR, count(DISTINCT payee) FILTER (WHERE block_time >= ${since(d)})::BIGINT`,
  ).join(', ');
  const [row] = await indexRows(
    on,
    `WITH p AS (${payments}), q AS (SELECT *, epoch(block_time) - lag(epoch(block_time)) OVER (ORDER BY block_time, tx_hash) AS gap FROM p)
     SELECT count(*)::BIGINT, (coalesce(sum(value), 0))::VARCHAR, min(block_time), max(block_time), count(DISTINCT payee)::BIGINT,
            count(DISTINCT block_time::DATE)::BIGINT, count(DISTINCT block_time::DATE) FILTER (WHERE block_time >= ${since(30)})::BIGINT,
            median(gap)::DOUBLE, ${perWindow}
     FROM q`,
    ctx.signal,
  );
  const [total, volume, first, last, sellers, activeDays, activeDays30, median, ...windowCells] = row ?? [];
  const windows = WINDOWS.map((days, i) => ({ days, payments: Number(windowCells[i * 3] ?? 0), volume: usd(windowCells[i * 3 + 1]), sellers: Number(windowCells[i * 3 + 2] ?? 0) }));
  const firstPayment = iso(first);
  const lastPayment = iso(last);
  const daysSince = (time: string | null) => (time === null ? null : (ctx.now.getTime() - Date.parse(time)) / DAY_MS);
  const medianInterval = median === null || median === undefined ? null : Math.round(Number(median) * 1000) / 1000;
  return {
    history: {
      payments: Number(total ?? 0),
      daysSinceFirst: daysSince(firstPayment),
      daysSinceLast: daysSince(lastPayment),
      last7: windows[0]!.payments,
      last30: windows[1]!.payments,
      activeDays30: Number(activeDays30 ?? 0),
      sellers30: windows[1]!.sellers,
      medianIntervalSeconds: medianInterval,
    },
    figures: {
      payments: Number(total ?? 0),
      volume: usd(volume),
      first_payment: firstPayment,
      last_payment: lastPayment,
      sellers: Number(sellers ?? 0),
      active_days: Number(activeDays ?? 0),
      median_interval_seconds: medianInterval,
      windows,
    },
  };
}

async function topSellers(on: IndexedChain, payments: string, ctx: ProductContext) {
  const rows = await indexRows(on, `SELECT payee, count(*)::BIGINT, (sum(value))::VARCHAR FROM (${payments}) GROUP BY payee ORDER BY 2 DESC, 1 LIMIT ${TOP_SELLERS}`, ctx.signal);
  return rows.map(([payee, count, volume]) => ({ address: getAddress(String(payee)), payments: Number(count), volume: usd(volume) }));
}
