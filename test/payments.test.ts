import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import { runPayCommand } from '../src/client/pay-command.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { balances, startTestChain, startTestService, tempDataDir } from './helpers/service.ts';
import { payAndHangUp, paymentHeader, quote, settlementOf, signPayment, tamper, untilOwed } from './helpers/payments.ts';
import { TEST_PRODUCTS } from './helpers/products.ts';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';

let chain: DevChain;
let service: RunningService & { dataDir: string };

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ chain, products: TEST_PRODUCTS, dataDir: await tempDataDir() });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const PRICE_0_01 = 10_000n;

describe('x402 exact on a real chain with the official @x402/fetch client', () => {
  it('pays for time: the buyer loses exactly the price, the pay-to gains it, one ledger row', async () => {
    const before = await balances(chain);
    const ledgerBefore = (await service.percall.store.ledger()).length;
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const response = await pay(`${service.url}/api/v1/paid/time`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { time: string; unix: number };
    expect(new Date(body.time).toISOString()).toBe(body.time);
    expect(Number.isInteger(body.unix)).toBe(true);
    const settlement = settlementOf(response)!;
    expect(settlement.success).toBe(true);
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE_0_01);
    expect(after.payTo - before.payTo).toBe(PRICE_0_01);

    const ledger = await service.percall.store.ledger();
    expect(ledger.length).toBe(ledgerBefore + 1);
    expect(ledger[0]).toMatchObject({
      txHash: settlement.transaction,
      product: 'time',
      surface: 'http',
      amount: '10000',
      asset: chain.usdc,
      network: chain.network,
      payer: chain.buyer.address,
      payTo: chain.payTo,
    });
  });

  it('pays for echo and echoes the query parameters', async () => {
    const before = await balances(chain);
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const response = await pay(`${service.url}/api/v1/paid/echo?a=1&b=two`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { echo: string; timestamp: string };
    expect(body.echo).toBe('a=1&b=two');
    expect(typeof body.timestamp).toBe('string');
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE_0_01);
    expect((await service.percall.store.ledger())[0]).toMatchObject({ product: 'echo', txHash: settlementOf(response)!.transaction });
  });

  it('answers an unpaid call with 402: PAYMENT-REQUIRED header equal to the JSON body, no-store, bazaar block', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/time`);
    expect(response.status).toBe(402);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const header = decodePaymentRequiredHeader(response.headers.get('payment-required')!);
    const body = await response.json();
    expect(body).toEqual(header);
    expect(header.x402Version).toBe(2);
    expect(header.resource.url).toBe(`${service.url}/api/v1/paid/time`);
    expect(header.accepts).toEqual([
      expect.objectContaining({ scheme: 'exact', network: chain.network, amount: '10000', asset: chain.usdc, payTo: chain.payTo }),
      expect.objectContaining({ scheme: 'batch-settlement', network: chain.network, amount: '10000', asset: chain.usdc, payTo: chain.payTo }),
      expect.objectContaining({ scheme: 'exact', network: service.solanaDev!.network, amount: '10000', payTo: service.solanaDev!.payTo }),
    ]);
    const bazaar = (header.extensions as Record<string, { info: { input: unknown; output: { example: unknown } } }>).bazaar!;
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' });
    expect(bazaar.info.output.example).toMatchObject({ time: expect.any(String), unix: expect.any(Number) });
  });

  it('quotes HEAD and GET on a POST route too (crawlers read prices that way)', async () => {
    for (const method of ['HEAD', 'GET', 'POST']) {
      const response = await fetch(`${service.url}/api/v1/paid/test-strict`, { method });
      expect(response.status, method).toBe(402);
      expect(response.headers.get('payment-required'), method).toBeTruthy();
    }
  });
});

describe('the paying CLI (npx percall pay)', () => {
  it('pays with the dev buyer from dev.json and prints the result and the settlement', async () => {
    const lines: string[] = [];
    const previous = process.env.PERCALL_DATA_DIR;
    process.env.PERCALL_DATA_DIR = service.dataDir;
    try {
      const code = await runPayCommand(['GET', `${service.url}/api/v1/paid/echo?via=cli`], (line) => lines.push(line));
      expect(code).toBe(0);
    } finally {
      // Assigning undefined would store the string "undefined" for the files that run after this one.
      if (previous === undefined) delete process.env.PERCALL_DATA_DIR;
      else process.env.PERCALL_DATA_DIR = previous;
    }
    const output = lines.join('\n');
    expect(output).toContain('HTTP 200');
    expect(output).toContain('"echo": "via=cli"');
    expect(output).toMatch(/transaction: 0x[0-9a-f]{64}/);
    expect(output).toContain('amount:      0.01 USDC (10000 atomic)');
  });
});

describe('replay guard: one signed payment buys exactly one response', () => {
  it('the same payment twice in sequence: one 200, then 402 with a reason, one settlement', async () => {
    const before = await balances(chain);
    const url = `${service.url}/api/v1/paid/time`;
    const headers = paymentHeader(await signPayment(chain.buyer.privateKey, await quote(url)));
    const first = await fetch(url, { headers });
    expect(first.status).toBe(200);
    const second = await fetch(url, { headers });
    expect(second.status).toBe(402);
    expect(((await second.json()) as { error: string }).error).toBe('payment_already_used');
    expect(before.buyer - (await balances(chain)).buyer).toBe(PRICE_0_01);
  });

  it('the same payment 20 times concurrently: exactly one 200 and one on-chain settlement', async () => {
    const before = await balances(chain);
    const ledgerBefore = (await service.percall.store.ledger()).length;
    const url = `${service.url}/api/v1/paid/echo?n=1`;
    const headers = paymentHeader(await signPayment(chain.buyer.privateKey, await quote(url)));
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetch(url, { headers })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    for (const r of responses.filter((r) => r.status === 402)) {
      expect(((await r.json()) as { error: string }).error).toMatch(/^payment_already_(used|in_progress)$/);
    }
    expect(before.buyer - (await balances(chain)).buyer).toBe(PRICE_0_01);
    expect((await service.percall.store.ledger()).length).toBe(ledgerBefore + 1);
  });

  it('after a restart on the same data directory the used payment is still refused', async () => {
    const url = `${service.url}/api/v1/paid/time`;
    const payload = await signPayment(chain.buyer.privateKey, await quote(url));
    expect((await fetch(url, { headers: paymentHeader(payload) })).status).toBe(200);
    const before = await balances(chain);

    const dataDir = service.dataDir;
    await service.stop();
    service = await startTestService({ chain, products: TEST_PRODUCTS, dataDir });
    const replay = await fetch(`${service.url}/api/v1/paid/time`, { headers: paymentHeader(payload) });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { error: string }).error).toBe('payment_already_used');
    expect((await balances(chain)).buyer).toBe(before.buyer);
  });
});

describe('delivery is part of the payment', () => {
  it('a payer who pays and hangs up is charged once and collects the very same result with the same payment and request, once', async () => {
    const url = new URL(`${service.url}/api/v1/paid/echo?dropped=yes`);
    const payload = await signPayment(chain.buyer.privateKey, await quote(url.toString()));
    const before = await balances(chain);
    await payAndHangUp(url, payload);
    await untilOwed(service.percall.store, payload);
    // The authorization is public on chain once settled: another request presenting it collects nothing.
    const stranger = await fetch(`${service.url}/api/v1/paid/echo?dropped=someone-else`, { headers: paymentHeader(payload) });
    expect(stranger.status).toBe(402);
    expect(((await stranger.json()) as { error: string }).error).toBe('payment_already_used');
    const redeemStarted = Date.now();
    const redeemed = await fetch(url, { headers: paymentHeader(payload) });
    expect(redeemed.status).toBe(200);
    const body = (await redeemed.json()) as { echo: string; timestamp: string };
    expect(body.echo).toBe('dropped=yes');
    // The stored result of the paid run, not a new run.
    expect(new Date(body.timestamp).getTime()).toBeLessThanOrEqual(redeemStarted);
    expect(settlementOf(redeemed)?.success).toBe(true);
    const again = await fetch(url, { headers: paymentHeader(payload) });
    expect(again.status).toBe(402);
    expect(((await again.json()) as { error: string }).error).toBe('payment_already_used');
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE_0_01);
    expect(after.payTo - before.payTo).toBe(PRICE_0_01);
  });
});

describe('idempotent retries with the x402 payment-identifier extension', () => {
  const withId = async (url: string, id: string) => {
    const required = await quote(url);
    expect(required.extensions?.['payment-identifier']).toMatchObject({ info: { required: false } });
    appendPaymentIdentifierToExtensions(required.extensions!, id);
    return signPayment(chain.buyer.privateKey, required);
  };

  it('the same id, payment and request get the identical stored response and settlement, free; anything else with that id is 409', async () => {
    const id = generatePaymentId('test_');
    const url = `${service.url}/api/v1/paid/echo?idem=1`;
    const payload = await withId(url, id);
    const before = await balances(chain);
    const first = await fetch(url, { headers: paymentHeader(payload) });
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const replay = await fetch(url, { headers: paymentHeader(payload) });
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe(firstBody);
    expect(settlementOf(replay)?.transaction).toBe(settlementOf(first)?.transaction);
    // Another request under the same id, and another payment under the same id: conflicts, nothing charged.
    const otherRequest = `${service.url}/api/v1/paid/echo?idem=2`;
    const conflict = await fetch(otherRequest, { headers: paymentHeader(await withId(otherRequest, id)) });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('content-type')).toContain('application/problem+json');
    expect((await fetch(url, { headers: paymentHeader(await withId(url, id)) })).status).toBe(409);
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE_0_01);
  });

  it('a malformed payment identifier is refused before anything is reserved', async () => {
    const url = `${service.url}/api/v1/paid/echo?idem=bad`;
    const required = await quote(url);
    const payload = await signPayment(chain.buyer.privateKey, required);
    const bad = { ...payload, extensions: { ...payload.extensions, 'payment-identifier': { info: { required: false, id: 'short!' } } } };
    const response = await fetch(url, { headers: paymentHeader(bad) });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_payment_identifier');
  });
});

describe('a payment is bound to the resource it was quoted for', () => {
  const time = () => `${service.url}/api/v1/paid/time`;
  const echo = () => `${service.url}/api/v1/paid/echo`;

  it('a payment quoted for echo is refused at time (same price), settles nothing, and still buys echo', async () => {
    const before = await balances(chain);
    const forEcho = await signPayment(chain.buyer.privateKey, await quote(echo()));
    const elsewhere = await fetch(time(), { headers: paymentHeader(forEcho) });
    expect(elsewhere.status).toBe(402);
    expect(((await elsewhere.json()) as { error: string }).error).toBe('payment_resource_mismatch');
    expect(await balances(chain)).toEqual(before);
    expect((await fetch(echo(), { headers: paymentHeader(forEcho) })).status).toBe(200);
  });

  it('a payment that names no resource is refused', async () => {
    const { resource: _resource, ...anonymous } = await signPayment(chain.buyer.privateKey, await quote(time()));
    const response = await fetch(time(), { headers: paymentHeader(anonymous) });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toBe('payment_resource_missing');
  });

  it('an order names its product: an order payment for one product does not buy another', async () => {
    const before = await balances(chain);
    const order = (product: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ product, input: {} }) });
    const forTime = await signPayment(chain.buyer.privateKey, await quote(`${service.url}/api/v1/orders`, order('time')));
    expect(forTime.resource?.url).toBe(`${service.url}/api/v1/orders?product=time`);
    const wrong = await fetch(`${service.url}/api/v1/orders`, { ...order('echo'), headers: { ...order('echo').headers, ...paymentHeader(forTime) } });
    expect(wrong.status).toBe(402);
    expect(((await wrong.json()) as { error: string }).error).toBe('payment_resource_mismatch');
    // Nor the product's own route.
    expect(((await (await fetch(time(), { headers: paymentHeader(forTime) })).json()) as { error: string }).error).toBe('payment_resource_mismatch');
    expect(await balances(chain)).toEqual(before);
  });
});

describe('tampered payments get 402 with the reason and settle nothing', () => {
  const cases: [string, (p: Awaited<ReturnType<typeof signPayment>>) => Promise<Awaited<ReturnType<typeof signPayment>>>, RegExp][] = [
    ['amount too low (signed for less, claims the quote)', (p) => tamper(chain.buyer.privateKey, p, { authorization: { value: '1' } }), /value|amount/],
    ['amount too low (claims a cheaper quote)', (p) => tamper(chain.buyer.privateKey, p, { accepted: { amount: '1' }, authorization: { value: '1' } }), /no_matching_payment_requirements/],
    ['wrong recipient', (p) => tamper(chain.buyer.privateKey, p, { authorization: { to: '0x000000000000000000000000000000000000dEaD' } }), /recipient/],
    ['expired validBefore', (p) => tamper(chain.buyer.privateKey, p, { authorization: { validBefore: String(Math.floor(Date.now() / 1000) - 60) } }), /valid_before/],
    [
      'bad signature',
      async (p) => {
        const sig = (p.payload as { signature: string }).signature;
        const flipped = `${sig.slice(0, 10)}${sig[10] === 'a' ? 'b' : 'a'}${sig.slice(11)}` as `0x${string}`;
        return tamper(chain.buyer.privateKey, p, { signature: flipped });
      },
      /signature/,
    ],
    ['wrong network', (p) => tamper(chain.buyer.privateKey, p, { accepted: { network: 'eip155:8453' }, chainId: 8453 }), /no_matching_payment_requirements/],
  ];

  for (const [name, makeTampered, reason] of cases) {
    it(name, async () => {
      const before = await balances(chain);
      const ledgerBefore = (await service.percall.store.ledger()).length;
      const url = `${service.url}/api/v1/paid/time`;
      const payload = await makeTampered(await signPayment(chain.buyer.privateKey, await quote(url)));
      const response = await fetch(url, { headers: paymentHeader(payload) });
      expect(response.status).toBe(402);
      expect(response.headers.get('payment-required')).toBeTruthy();
      expect(((await response.json()) as { error: string }).error).toMatch(reason);
      expect(await balances(chain)).toEqual(before);
      expect((await service.percall.store.ledger()).length).toBe(ledgerBefore);
    });
  }

  it('malformed payment headers get 402 naming the header, never a 500 (PAYMENT-SIGNATURE and X-PAYMENT)', async () => {
    const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const signed = await signPayment(chain.buyer.privateKey, await quote(`${service.url}/api/v1/paid/time`));
    const malformed = [
      b64(42),
      b64([]),
      b64('null'),
      b64({ x402Version: '2', accepted: [], payload: 1 }),
      b64({ ...signed, accepted: null }),
      b64({ ...signed, accepted: { ...signed.accepted, amount: 5 } }),
      b64({ ...signed, payload: 'x' }),
      b64(deep),
      b64({ x402Version: 1, scheme: 'exact', network: 'base', payload: signed.payload }),
      b64('{"x402Version":2'),
      '%%%',
    ];
    for (const header of malformed) {
      for (const name of ['payment-signature', 'x-payment']) {
        const response = await fetch(`${service.url}/api/v1/paid/time`, { headers: { [name]: header } });
        expect(response.status, `${name}: ${header.slice(0, 40)}`).toBe(402);
        expect(((await response.json()) as { error: string }).error).toMatch(/^invalid_payment_header/);
      }
    }
  });

  it('a PAYMENT-SIGNATURE that is not a payment at all', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/time`, { headers: { 'payment-signature': 'not-base64-json' } });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toMatch(/^invalid_payment_header/);
  });
});
