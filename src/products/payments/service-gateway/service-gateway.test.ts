import { describe, expect, it } from 'vitest';
import { fakeContext, stubFetch } from '../../kit/fake-context.ts';
import { ProductInputError, UpstreamError } from '../../kit/index.ts';
import { fixtureWallet, memoryLedger, paymentRequired, seller, settledAnswer } from '../../../providers/operator-wallet.fixture.ts';
import { ceilingFor, quoteFor, resolve, serviceGateway } from './index.ts';

const BASE = 'https://seller.test';
const TIME = `${BASE}/api/v1/paid/time`;

function gateway(answers: Parameters<typeof stubFetch>[0], options: { ledger?: ReturnType<typeof memoryLedger>; dailySpendCap?: bigint; moved?: boolean } = {}) {
  const fetch = stubFetch(answers);
  const operator = fixtureWallet({ sellers: { clock: BASE }, sellerFetch: fetch, ...options });
  return { operator, fetch };
}

const call = { seller: 'clock', path: '/api/v1/paid/time' };
const paidCtx = (operator: ReturnType<typeof fixtureWallet>, charged: bigint) => fakeContext({ operator, payment: { key: 'eip3009:caller-nonce', amount: charged }, caller: '0xcaller' });

describe('service_gateway', () => {
  it('quotes the seller’s current price plus 10%, rounded up to the atomic unit, never paying it', async () => {
    const { operator, fetch } = gateway({ [TIME]: paymentRequired(TIME, '1000', '900') });
    expect(await serviceGateway.dynamicPrice!(call, fakeContext({ operator }))).toBe('0.00099');
    expect(fetch.requests.every((r) => !r.request.headers?.['PAYMENT-SIGNATURE'])).toBe(true);
    expect(quoteFor(1n)).toBe(2n);
    // The ceiling recovers exactly the seller's price the caller was quoted on.
    for (const upstream of [1n, 7n, 9n, 10n, 999n, 1000n, 1187n, 123_456n]) expect(ceilingFor(quoteFor(upstream))).toBe(upstream);
  });

  it('pays the seller once, at most its quoted price, links the ledger row to the caller’s payment and returns the answer', async () => {
    const ledger = memoryLedger();
    const { operator } = gateway({ [TIME]: seller(paymentRequired(TIME, '1000'), settledAnswer({ now: '2025-06-01T12:00:00Z' }, '1000')) }, { ledger });
    const out = await serviceGateway.run(call, paidCtx(operator, 1100n));
    expect(out).toMatchObject({
      seller: 'clock',
      url: TIME,
      status: 200,
      body_encoding: 'json',
      body: { now: '2025-06-01T12:00:00Z' },
      price: { upstream: '0.001', charged: '0.0011', margin: '0.0001' },
      upstream_payment: { amount_atomic: '1000', settlement: { success: true } },
    });
    expect(ledger.all).toMatchObject([{ direction: 'out', state: 'settled', product: 'service-gateway', callerPaymentKey: 'eip3009:caller-nonce', amount: '1000', resource: TIME }]);
    expect(ledger.all[0]!.nonce).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('refuses (409, nothing paid) when the seller raised its price since the quote', async () => {
    const ledger = memoryLedger();
    const { operator } = gateway({ [TIME]: seller(paymentRequired(TIME, '2000'), settledAnswer({}, '2000')) }, { ledger });
    const error = await serviceGateway.run(call, paidCtx(operator, 1100n)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProductInputError);
    expect(error).toMatchObject({ status: 409, code: 'upstream_price_changed' });
    expect(ledger.all).toEqual([]);
  });

  it('a seller failing after payment is an upstream failure (502): the payment is the operator’s loss, recorded', async () => {
    const ledger = memoryLedger();
    const { operator } = gateway({ [TIME]: seller(paymentRequired(TIME, '1000'), settledAnswer({ error: 'boom' }, '1000', 500)) }, { ledger });
    await expect(serviceGateway.run(call, paidCtx(operator, 1100n))).rejects.toMatchObject({ status: 502 });
    expect(ledger.all).toMatchObject([{ state: 'settled', amount: '1000' }]);
  });

  it('a paid request the seller refuses (402 again, not used on chain) releases the reservation', async () => {
    const ledger = memoryLedger();
    const { operator } = gateway({ [TIME]: paymentRequired(TIME, '1000') }, { ledger, moved: false });
    await expect(serviceGateway.run(call, paidCtx(operator, 1100n))).rejects.toBeInstanceOf(UpstreamError);
    expect(ledger.all).toMatchObject([{ state: 'released' }]);
    expect(await ledger.spent('2025-06-01')).toBe(0n);
  });

  it('the daily cap refuses the payment before anything is signed (503 until the next UTC day)', async () => {
    const ledger = memoryLedger();
    const { operator } = gateway({ [TIME]: seller(paymentRequired(TIME, '1000'), settledAnswer({}, '1000')) }, { ledger, dailySpendCap: 1500n });
    await serviceGateway.run(call, paidCtx(operator, 1100n));
    await expect(serviceGateway.run(call, paidCtx(operator, 1100n))).rejects.toMatchObject({ status: 503, retryAfterSeconds: 12 * 3600 });
    expect(ledger.all).toHaveLength(1);
  });

  it('refuses sellers off the allowlist and paths that leave the seller’s base (400 naming the field, never fetched)', async () => {
    const { operator, fetch } = gateway({});
    await expect(serviceGateway.dynamicPrice!({ seller: 'other', path: '/x' }, fakeContext({ operator }))).rejects.toMatchObject({ status: 400, field: 'seller' });
    for (const path of ['/../admin', '/a/%2e%2e/b', '//evil.test/x', '/x?y=1', 'relative', '/a\\b', '/a%2fb']) {
      expect(() => resolve(operator, { seller: 'clock', path }), path).toThrow(expect.objectContaining({ status: 400, field: 'path' }));
    }
    expect(fetch.requests).toEqual([]);
  });

  it('sends input as the query of a GET or the JSON body of a POST', () => {
    const operator = fixtureWallet({ sellers: { clock: `${BASE}/base` } });
    expect(resolve(operator, { seller: 'clock', path: '/q', method: 'GET', input: { a: 'b', n: 1 } })).toEqual({ url: `${BASE}/base/q?a=b&n=1`, request: { method: 'GET' } });
    expect(resolve(operator, { seller: 'clock', path: '/q', input: { a: 1 } }).request).toEqual({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  });

  it('never runs without the payment of the call (a redemption re-run does not pay again)', async () => {
    const { operator } = gateway({});
    await expect(serviceGateway.run(call, fakeContext({ operator }))).rejects.toThrow(/payment of the call/);
  });
});
