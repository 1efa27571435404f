/**
 * The operator's wallet for unit tests: the real wallet (the official x402 client signs real
 * payloads, no chain needed) over an in-memory ledger with the store's cap rule, and upstream
 * answers in the x402 wire format for stubbed fetches.
 */
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { Network, PaymentRequired } from '@x402/core/types';
import { createLogger } from '../log.ts';
import type { OperatorLedger, OperatorWallet, OutboundEntry, OutboundRow } from '../products/kit/operator-wallet.ts';
import { response, type StubResponse } from '../products/kit/fake-context.ts';
import type { SafeRequest, SafeResponse } from './safe-fetch.ts';
import { createOperatorWallet } from './operator-wallet.ts';

export const FIXTURE_NETWORK = 'eip155:84532' as Network;
export const FIXTURE_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
export const SELLER_PAY_TO = '0x1111111111111111111111111111111111111111';
/** A public test key (anvil's account 5): worthless anywhere real. */
const KEY = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';

/** An OperatorLedger in memory, with the store's rules: reservations within the day's cap, releases given back once. */
export function memoryLedger(): OperatorLedger & { all: OutboundRow[] } {
  const all: OutboundRow[] = [];
  const reserved = new Map<string, bigint>();
  const find = (id: string) => all.find((r) => r.id === id);
  return {
    all,
    async reserve(e: OutboundEntry, cap: bigint) {
      const total = (reserved.get(e.day) ?? 0n) + BigInt(e.amount);
      if (total > cap) return false;
      reserved.set(e.day, total);
      all.push({ ...e, direction: 'out', state: 'reserved', createdAt: new Date() });
      return true;
    },
    async signed(id, nonce, validBefore) {
      const row = find(id);
      if (row?.state === 'reserved') Object.assign(row, { state: 'signed', nonce, ...(validBefore !== undefined ? { validBefore } : {}) });
    },
    async expired(before) {
      return all.filter((r) => (r.state === 'signed' || r.state === 'unknown') && r.validBefore !== undefined && r.validBefore < before);
    },
    async settled(id, txHash, at) {
      const row = find(id);
      if (row && ['reserved', 'signed', 'unknown'].includes(row.state)) Object.assign(row, { state: 'settled', settledAt: at, ...(txHash ? { txHash } : {}) });
    },
    async unknown(id, detail) {
      const row = find(id);
      if (row && ['reserved', 'signed'].includes(row.state)) Object.assign(row, { state: 'unknown', detail });
    },
    async release(id, detail) {
      const row = find(id);
      if (!row || !['reserved', 'signed', 'unknown'].includes(row.state)) return;
      Object.assign(row, { state: 'released', detail });
      reserved.set(row.day, (reserved.get(row.day) ?? 0n) - BigInt(row.amount));
    },
    async rows(options = {}) {
      return all.filter((r) => options.callerPaymentKey === undefined || r.callerPaymentKey === options.callerPaymentKey);
    },
    async spent(day) {
      return reserved.get(day) ?? 0n;
    },
  };
}

export function fixtureWallet(options: {
  sellers?: Record<string, string>;
  sellerFetch?: (url: string, request?: SafeRequest) => Promise<SafeResponse>;
  ledger?: OperatorLedger;
  dailySpendCap?: bigint;
  fetchMaxPrice?: bigint;
  moved?: boolean;
  /** The chain the wallet reads, whole (instead of `moved`). */
  chain?: Parameters<typeof createOperatorWallet>[0]['chain'];
  clock?: () => Date;
}): OperatorWallet {
  return createOperatorWallet({
    key: KEY,
    network: FIXTURE_NETWORK,
    asset: FIXTURE_USDC,
    dailySpendCap: options.dailySpendCap ?? 5_000_000n,
    fetchMaxPrice: options.fetchMaxPrice ?? 10_000n,
    sellers: new Map(Object.entries(options.sellers ?? {})),
    ledger: options.ledger ?? memoryLedger(),
    sellerFetch: options.sellerFetch ?? (() => Promise.reject(new Error('no seller fetch in this test'))),
    ...(options.chain ? { chain: options.chain } : options.moved !== undefined ? { chain: { authorizationUsed: async () => options.moved! } } : {}),
    log: createLogger('silent'),
    clock: options.clock ?? (() => new Date('2025-06-01T12:00:00.000Z')),
  });
}

/** A seller's 402 asking `amounts` (atomic USDC, one option each) for `url`. */
export function paymentRequired(url: string, ...amounts: string[]): StubResponse {
  const required: PaymentRequired = {
    x402Version: 2,
    resource: { url, description: 'a paid resource', mimeType: 'application/json' },
    accepts: amounts.map((amount) => ({ scheme: 'exact', network: FIXTURE_NETWORK, amount, asset: FIXTURE_USDC, payTo: SELLER_PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } })),
  };
  return response({}, { status: 402, headers: { 'payment-required': encodePaymentRequiredHeader(required) } });
}

/** A seller's answer after settling a payment of `amount`. */
export function settledAnswer(body: object, amount: string, status = 200): StubResponse {
  const settlement = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: FIXTURE_NETWORK, payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', amount };
  return response(body, { status, headers: { 'payment-response': encodePaymentResponseHeader(settlement) } });
}

/** Answers a paid request with `paid`, any other with `unpaid` (a seller's 402). */
export function seller(unpaid: StubResponse | (() => StubResponse), paid: StubResponse | ((request: SafeRequest) => StubResponse)) {
  return (request: SafeRequest): StubResponse => {
    if (request.headers?.['PAYMENT-SIGNATURE'] ?? request.headers?.['payment-signature']) return typeof paid === 'function' ? paid(request) : paid;
    return typeof unpaid === 'function' ? unpaid() : unpaid;
  };
}
