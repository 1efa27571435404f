import { describe, expect, it } from 'vitest';
import { paymentKey } from '../src/payments/payment-key.ts';
import type { FacilitatorClient } from '@x402/core/server';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { balances, useTestService } from './helpers/service.ts';
import { paymentHeader, quote, settlementOf, signPayment } from './helpers/payments.ts';
import { TEST_PRODUCTS } from './helpers/products.ts';

let chain: DevChain;
let service: RunningService & { dataDir: string };
/** Flip to simulate facilitator trouble in the shared service. */
const faults = { verifyUnreachable: false, settleFails: false, settleUnknown: false };

function faultyFacilitator(inner: FacilitatorClient): FacilitatorClient {
  return {
    getSupported: () => inner.getSupported(),
    verify: async (payload, requirements) => {
      if (faults.verifyUnreachable) throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      return inner.verify(payload, requirements);
    },
    settle: async (payload, requirements) => {
      // Refused before any broadcast (funds moved away since verify): nothing can have moved.
      if (faults.settleFails) return { success: false, errorReason: 'insufficient_funds', transaction: '', network: requirements.network };
      // A failure that may follow a broadcast: only the chain can tell.
      if (faults.settleUnknown) return { success: false, errorReason: 'transaction_failed', transaction: '', network: requirements.network };
      return inner.settle(payload, requirements);
    },
  };
}

useTestService((c, s) => ((chain = c), (service = s)), { products: TEST_PRODUCTS, wrapFacilitator: faultyFacilitator, env: { MAX_BODY_BYTES: '2048' } });

const strictUrl = () => `${service.url}/api/v1/paid/test-strict`;
const validBody = { name: 'ada', count: 2, url: 'https://example.com/' };

/** Sends `body` to the strict product with a genuine payment; the payment is signed for that very route. */
async function paidPost(body: string, contentType = 'application/json'): Promise<Response> {
  const payload = await signPayment(chain.buyer.privateKey, await quote(strictUrl(), { method: 'POST' }));
  return fetch(strictUrl(), { method: 'POST', headers: { ...paymentHeader(payload), 'content-type': contentType }, body });
}

async function expectProblem(response: Response, status: number, field?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  const problem = (await response.json()) as { status: number; title: string; errors?: { field: string }[] };
  expect(problem.status).toBe(status);
  expect(problem.title).toBeTruthy();
  if (field) expect(problem.errors?.map((e) => e.field)).toContain(field);
  return problem;
}

describe('bad input with a valid payment: right status, problem+json naming the field, never charged', () => {
  const cases: [string, string, number, string][] = [
    ['malformed JSON', '{"name": "ada", ', 400, 'body'],
    ['wrong types', JSON.stringify({ ...validBody, count: 'two' }), 400, 'count'],
    ['missing required field', JSON.stringify({ count: 1, url: 'https://example.com/' }), 400, 'name'],
    ['invalid URL', JSON.stringify({ ...validBody, url: 'not a url' }), 400, 'url'],
    ['oversized body', JSON.stringify({ ...validBody, name: 'x'.repeat(5000) }), 413, 'body'],
  ];
  for (const [name, body, status, field] of cases) {
    it(name, async () => {
      const before = await balances(chain);
      const ledgerBefore = (await service.percall.store.ledger()).length;
      await expectProblem(await paidPost(body), status, field);
      expect(await balances(chain)).toEqual(before);
      expect((await service.percall.store.ledger()).length).toBe(ledgerBefore);
    });
  }

  it('the same valid payment still works once the input is fixed (it was never consumed)', async () => {
    const payload = await signPayment(chain.buyer.privateKey, await quote(strictUrl(), { method: 'POST' }));
    const headers = { ...paymentHeader(payload), 'content-type': 'application/json' };
    expect((await fetch(strictUrl(), { method: 'POST', headers, body: '{"name":1}' })).status).toBe(400);
    const fixed = await fetch(strictUrl(), { method: 'POST', headers, body: JSON.stringify(validBody) });
    expect(fixed.status).toBe(200);
    expect(await fixed.json()).toEqual({ greeting: 'hello adahello ada', url: 'https://example.com/' });
  });

  it('an unpaid request with bad input still gets the 402 quote, which also says what is wrong', async () => {
    const response = await fetch(strictUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"count": 0}' });
    expect(response.status).toBe(402);
    const body = (await response.json()) as { error: string; accepts: unknown[] };
    expect(body.accepts.length).toBeGreaterThan(0);
    expect(body.error).toMatch(/^invalid_input: .*name/);
    expect(body.error).toMatch(/count/);
  });
});

describe('failures on our side never charge and never release a body', () => {
  it('a product that fails is not settled', async () => {
    const before = await balances(chain);
    const url = `${service.url}/api/v1/paid/test-failing`;
    const payload = await signPayment(chain.buyer.privateKey, await quote(url));
    await expectProblem(await fetch(url, { headers: paymentHeader(payload) }), 502);
    expect(await balances(chain)).toEqual(before);
  });

  it('an unreachable facilitator gives 503 with Retry-After and records nothing', async () => {
    const before = await balances(chain);
    const ledgerBefore = (await service.percall.store.ledger()).length;
    const url = `${service.url}/api/v1/paid/time`;
    const payload = await signPayment(chain.buyer.privateKey, await quote(url));
    faults.verifyUnreachable = true;
    try {
      const response = await fetch(url, { headers: paymentHeader(payload) });
      await expectProblem(response, 503);
      expect(response.headers.get('retry-after')).toBeTruthy();
    } finally {
      faults.verifyUnreachable = false;
    }
    expect(await balances(chain)).toEqual(before);
    expect((await service.percall.store.ledger()).length).toBe(ledgerBefore);
    // Nothing was consumed: the same payment goes through once the facilitator is back.
    expect((await fetch(url, { headers: paymentHeader(payload) })).status).toBe(200);
  });

  it('a failed settlement releases no body', async () => {
    const url = `${service.url}/api/v1/paid/echo?secret=result`;
    const payload = await signPayment(chain.buyer.privateKey, await quote(url));
    faults.settleFails = true;
    try {
      const response = await fetch(url, { headers: paymentHeader(payload) });
      expect(response.status).toBe(402);
      const text = await response.text();
      expect(text).not.toContain('secret=result');
      expect(JSON.parse(text).error).toBe('insufficient_funds');
      expect(settlementOf(response)?.success).toBe(false);
    } finally {
      faults.settleFails = false;
    }
  });

  it('a settle failure that may follow a broadcast releases no body and parks the payment for the chain to judge', async () => {
    const url = `${service.url}/api/v1/paid/echo?secret=parked`;
    const payload = await signPayment(chain.buyer.privateKey, await quote(url));
    faults.settleUnknown = true;
    try {
      const response = await fetch(url, { headers: paymentHeader(payload) });
      await expectProblem(response, 503);
      expect(response.headers.get('retry-after')).toBeTruthy();
      expect(await service.percall.store.paymentState(paymentKey(payload))).toBe('pending');
    } finally {
      faults.settleUnknown = false;
    }
  });
});

describe('routing errors', () => {
  it('unknown path: 404 problem+json', async () => {
    await expectProblem(await fetch(`${service.url}/api/v1/paid/nope`), 404);
    await expectProblem(await fetch(`${service.url}/nothing-here`), 404);
  });

  it('known path, unsupported method: 405 with Allow', async () => {
    const paid = await fetch(`${service.url}/api/v1/paid/time`, { method: 'DELETE' });
    await expectProblem(paid, 405);
    expect(paid.headers.get('allow')).toContain('GET');
    const free = await fetch(`${service.url}/health`, { method: 'POST' });
    await expectProblem(free, 405);
  });

  it('a declared but unimplemented product answers 501 and never quotes or charges', async () => {
    const before = await balances(chain);
    const response = await fetch(`${service.url}/api/v1/paid/company-research`, { method: 'POST', body: '{}' });
    await expectProblem(response, 501);
    expect(response.headers.get('payment-required')).toBeNull();
    expect(await balances(chain)).toEqual(before);
  });

  it('never leaks keys: the buyer key appears in no response', async () => {
    for (const path of ['/health', '/openapi.json', '/llms-full.txt', '/.well-known/x402.json', '/api/v1/paid/time']) {
      const text = await (await fetch(`${service.url}${path}`)).text();
      expect(text).not.toContain(chain.buyer.privateKey.slice(2));
      expect(text).not.toContain(chain.facilitatorKey.slice(2));
    }
  });
});
