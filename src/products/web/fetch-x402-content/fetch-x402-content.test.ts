import { describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { fixtureWallet, memoryLedger, paymentRequired, seller, settledAnswer } from '../../../providers/operator-wallet.fixture.ts';
import { fetchX402Content } from './index.ts';

const URL_ = 'https://paywalled.test/article';
const input = (extra: Record<string, unknown> = {}) => fetchX402Content.input.parse({ url: URL_, ...extra });

function setup(answer: Parameters<typeof stubFetch>[0][string], options: { fetchMaxPrice?: bigint } = {}) {
  const ledger = memoryLedger();
  const operator = fixtureWallet({ ledger, ...options });
  const fetch = stubFetch({ [URL_]: answer });
  return { ledger, ctx: (extra = {}) => fakeContext({ operator, fetch, ...extra }) };
}

describe('fetch_x402_content', () => {
  it('pays a 402 within max_price and the cap, and returns the content with the upstream’s settlement', async () => {
    const { ledger, ctx } = setup(seller(paymentRequired(URL_, '5000'), settledAnswer({ title: 'Tides' }, '5000')));
    const out = await fetchX402Content.run(input({ max_price: '0.05' }), ctx({ payment: { key: 'k1', amount: 20_000n } }));
    expect(out).toMatchObject({ status: 200, body: { title: 'Tides' }, paid: true, not_paid: null, terms: null, limit: '0.01', payment: { amount: '0.005', amount_atomic: '5000', settlement: { success: true } } });
    expect(ledger.all).toMatchObject([{ state: 'settled', product: 'fetch-x402-content', callerPaymentKey: 'k1', amount: '5000' }]);
  });

  it('priced above the limit: its terms, nothing paid (the answer is charged: it says what the resource costs)', async () => {
    const { ledger, ctx } = setup(paymentRequired(URL_, '50000'));
    const out = await fetchX402Content.run(input({ max_price: '1.00' }), ctx());
    expect(out).toMatchObject({ paid: false, payment: null, not_paid: 'price_above_limit', limit: '0.01', terms: { x402_version: 2, accepts: [{ amount_atomic: '50000', scheme: 'exact' }] } });
    const lower = await fetchX402Content.run(input({ max_price: '0.001' }), setup(paymentRequired(URL_, '5000')).ctx());
    expect(lower).toMatchObject({ not_paid: 'price_above_limit', limit: '0.001' });
    expect(ledger.all).toEqual([]);
  });

  it('a resource that asks no payment is returned as is; a missing one is the caller’s target (422), a failing one 502', async () => {
    expect(await fetchX402Content.run(input(), setup(response('<p>free</p>')).ctx())).toMatchObject({ paid: false, not_paid: 'no_payment_asked', body_encoding: 'text', body: '<p>free</p>' });
    await expect(fetchX402Content.run(input(), setup(response('gone', { status: 404 })).ctx())).rejects.toMatchObject({ status: 422, field: 'url' });
    await expect(fetchX402Content.run(input(), setup(response('down', { status: 503 })).ctx())).rejects.toMatchObject({ status: 502 });
    await expect(fetchX402Content.run(input(), setup(new SafeFetchError('blocked_address', 'private address')).ctx())).rejects.toMatchObject({ status: 422, field: 'url' });
  });

  it('a free-tier fetch pays within the cap too, with no caller payment to link', async () => {
    const { ledger, ctx } = setup(seller(paymentRequired(URL_, '1000'), settledAnswer({ ok: true }, '1000')));
    await fetchX402Content.run(input(), ctx({ tier: 'free', caller: '0xwallet' }));
    expect(ledger.all).toMatchObject([{ state: 'settled', caller: '0xwallet' }]);
    expect(ledger.all[0]!.callerPaymentKey).toBeUndefined();
  });
});
