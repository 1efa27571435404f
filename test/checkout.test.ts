import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { available, FIXED, ProductInputError, unavailable, X402_AND_MPP, X402_BOTH, type AvailableProduct, type Product } from '../src/catalogue/types.ts';
import { Checkout, type CheckoutDeps } from '../src/checkout/checkout.ts';
import type { CheckoutRequest, CheckoutResult } from '../src/checkout/types.ts';
import { createLogger } from '../src/log.ts';
import type { GateResult } from '../src/payments/gate.ts';
import type { MppProblem } from '../src/payments/mpp/index.ts';
import { encodeQuote } from '../src/payments/x402-rail.ts';

/*
 * The checkout's decision table with fakes for the rail, gate, store, proofs, free tier and limits:
 * no chain, no database, no HTTP. The doors' wire formats are tested elsewhere (payments, orders, mcp…).
 */

const greet = available({
  id: 'greet',
  title: 'Greet',
  description: 'Greets.',
  category: 'utility',
  http: { method: 'POST', path: '/api/v1/paid/greet', price: '0.01' },
  mcp: { tool: 'greet_tool', price: '0.02' },
  mode: FIXED,
  rails: X402_AND_MPP,
  input: z.object({ name: z.string().min(1) }),
  run: async (input) => ({ hello: input.name }),
});
const clock = available({
  id: 'clock',
  title: 'Clock',
  description: 'Tells the time.',
  category: 'utility',
  http: { method: 'GET', path: '/api/v1/paid/clock', price: '0.01' },
  mode: FIXED,
  rails: X402_BOTH,
  input: z.object({ tz: z.string().optional() }),
  freeTier: { note: 'free for proven wallets' },
  run: async () => ({ now: 0 }),
});
const gated = available({
  id: 'gated',
  title: 'Gated',
  description: 'Needs a proof.',
  category: 'web',
  http: { method: 'POST', path: '/api/v1/paid/gated', price: '0.01' },
  mcp: { tool: 'gated', price: '0.01' },
  mode: FIXED,
  rails: X402_BOTH,
  input: z.object({ urls: z.array(z.string()), proof: z.string().optional() }),
  requiresProof: true,
  run: async (input) => ({ urls: input.urls }),
});
const later = unavailable({
  id: 'later',
  title: 'Later',
  description: 'Not yet.',
  category: 'utility',
  http: { method: 'GET', path: '/api/v1/paid/later', price: '0.01' },
  mode: FIXED,
  rails: X402_BOTH,
  input: z.object({}),
  reason: 'not implemented yet',
});
const PRODUCTS: Product[] = [greet, clock, gated, later];

const REQUIREMENTS: PaymentRequirements = { scheme: 'exact', network: 'eip155:31337', asset: '0xasset', amount: '10000', payTo: '0xpayto', maxTimeoutSeconds: 300, extra: {} };
const PAYLOAD = { x402Version: 2, resource: { url: 'x' }, accepts: REQUIREMENTS, accepted: REQUIREMENTS, payload: {} } as unknown as PaymentPayload;
const SETTLEMENT: SettleResponse = { success: true, transaction: '0xtx', network: 'eip155:31337', payer: '0xpayer' };

function fakes(overrides: { ready?: boolean; healthy?: boolean; gate?: GateResult; limited?: boolean; mpp?: boolean } = {}) {
  const gateResult = overrides.gate ?? { status: 'served', output: { ok: true }, settlement: SETTLEMENT, paymentKey: 'key-1' };
  const paymentRequired = (_product: AvailableProduct, surface: string, url: string, error?: string): PaymentRequired =>
    ({ x402Version: 2, ...(error ? { error } : {}), resource: { url }, accepts: [{ ...REQUIREMENTS, amount: surface }], extensions: {} }) as PaymentRequired;
  const held = { spent: [] as string[], released: [] as string[] };
  const mppProblem = (detail: string): MppProblem => ({ status: 402, type: 'https://paymentauth.org/problems/verification-failed', title: 'Verification Failed', detail, challengeId: 'c1', wwwAuthenticate: 'Payment id="c1"' });
  const deps = {
    catalogue: { products: PRODUCTS, byToolName: (tool: string) => PRODUCTS.find((p) => p.mcp?.tool === tool) },
    rail: { ready: overrides.ready ?? true, paymentRequired, encodedPaymentRequired: (p: AvailableProduct, s: string, u: string, e?: string) => encodeQuote(paymentRequired(p, s, u, e)) },
    gate: {
      execute: vi.fn(async () => gateResult),
      executeExternal: vi.fn(async () => gateResult),
      claimIdempotency: vi.fn(async () => 'claimed' as const),
      finishIdempotency: vi.fn(async () => undefined),
    },
    store: { healthy: overrides.healthy ?? true },
    freeTier: {
      challenge: () => ({ 'sign-in-with-x': { nonce: 'n' } }),
      serve: vi.fn(async (_p: AvailableProduct, _i: unknown, proof: unknown) =>
        proof === 'good' ? { status: 'served' as const, output: { free: true }, wallet: '0xwallet', remaining: 2 } : { status: 'denied' as const, reason: 'invalid_siwx_signature' },
      ),
    },
    proofs: {
      check: vi.fn(async (_route: string, body: unknown, options: { hold: boolean }) =>
        (body as { proof?: string }).proof === 'valid' ? { ok: true as const, subject: 's', nonce: options.hold ? 'held-nonce' : 'open-nonce' } : { ok: false as const, reason: 'proof_missing' },
      ),
      proofRequest: vi.fn(async (route: string) => ({ type: 'PROOF-REQUEST', route, nonce: 'fresh' }) as never),
      whileHeld: async <T,>(nonce: string | undefined, run: () => Promise<T>, served: (r: T) => boolean) => {
        const result = await run();
        if (nonce) (served(result) ? held.spent : held.released).push(nonce);
        return result;
      },
    },
    limits: { check: vi.fn(async () => (overrides.limited ? { problem: { status: 429, code: 'rate-limited', title: 'Too Many Requests' }, retryAfter: 7 } : undefined)) },
    telemetry: { challenge: vi.fn(), failure: vi.fn() },
    log: createLogger('silent'),
    maxBodyBytes: 100,
    ...(overrides.mpp
      ? {
          mpp: {
            verify: vi.fn(async ({ authorization }: { authorization: string | null | undefined }) =>
              authorization === 'Payment good'
                ? { ok: true as const, method: 'evm' as const, payload: PAYLOAD, requirements: REQUIREMENTS, challengeId: 'c1', expiresAt: new Date(), payer: '0xpayer' as const, source: 'did' }
                : { ok: false as const, problem: mppProblem('bad credential') },
            ),
            gateFailureProblem: vi.fn(async (failure: { reason: string }) => mppProblem(failure.reason)),
          },
          mppAccepts: (product: AvailableProduct) => product.rails.mpp,
        }
      : {}),
  };
  return { deps, held, checkout: new Checkout(deps as unknown as CheckoutDeps) };
}

const caller = { origin: () => ({ country: 'ZZ' }), key: () => '203.0.113.1' };

/** A route request: POST routes take `body`, GET routes `query`. */
function route(product: Product, init: { method?: string; body?: unknown; query?: Record<string, string>; x402?: 'paid' | 'malformed'; mpp?: string; freeClaim?: CheckoutRequest['freeClaim'] } = {}): CheckoutRequest {
  const text = init.body === undefined ? '' : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  return {
    door: { kind: 'route' },
    product,
    method: init.method ?? product.http!.method,
    input: { kind: 'http', query: () => init.query ?? {}, body: async () => (text.length > 100 ? undefined : text) },
    payment: {
      ...(init.x402 ? { x402: init.x402 === 'paid' ? { payload: PAYLOAD } : { malformed: 'invalid_payment_header: not base64' } } : {}),
      ...(init.mpp ? { mpp: { authorization: init.mpp } } : {}),
    },
    ...(init.freeClaim ? { freeClaim: init.freeClaim } : {}),
    publicOrigin: 'https://api.test',
    caller,
  };
}

function tool(product: AvailableProduct, args: unknown, paid = false): CheckoutRequest {
  return { door: { kind: 'tool' }, product, input: { kind: 'value', value: args }, payment: paid ? { x402: { payload: PAYLOAD } } : {}, publicOrigin: 'https://api.test', caller };
}

function order(named: unknown, input: unknown, paid = false): CheckoutRequest {
  return { door: { kind: 'order', path: '/api/v1/orders' }, product: { named }, method: 'POST', input: { kind: 'value', value: input, at: 'input' }, payment: paid ? { x402: { payload: PAYLOAD } } : {}, publicOrigin: 'https://api.test', caller };
}

function problemOf(result: CheckoutResult) {
  expect(result.kind).toBe('problem');
  return result as Extract<CheckoutResult, { kind: 'problem' }>;
}

function quoteOf(result: CheckoutResult) {
  expect(result.kind).toBe('quote');
  return result as Extract<CheckoutResult, { kind: 'quote' }>;
}

describe('checkout: what is decided before any payment', () => {
  it('a method a route never quotes is 405 naming the allowed methods', async () => {
    const { checkout } = fakes();
    const result = problemOf(await checkout.decide(route(greet, { method: 'PUT' })));
    expect(result.problem).toMatchObject({ status: 405, code: 'method-not-allowed' });
    expect(result.allow).toEqual(['POST', 'GET', 'HEAD']);
    expect(problemOf(await checkout.decide(route(clock, { method: 'DELETE' }))).allow).toEqual(['GET', 'HEAD']);
  });

  it('an unavailable product is 501 on its route, whatever the payment; nothing reaches the gate', async () => {
    const { checkout, deps } = fakes();
    for (const request of [route(later), route(later, { x402: 'paid' })]) {
      expect(problemOf(await checkout.decide(request)).problem).toMatchObject({ status: 501, code: 'product-unavailable' });
    }
    expect(deps.gate.execute).not.toHaveBeenCalled();
  });

  it('not ready is one answer on every door: 503 with retry-after, facilitator first, then the database', async () => {
    for (const [overrides, code] of [
      [{ ready: false }, 'payment-facilitator-unavailable'],
      [{ healthy: false }, 'payment-database-unavailable'],
    ] as const) {
      const { checkout, deps } = fakes(overrides);
      for (const request of [route(greet, { body: { name: 'a' } }), route(greet, { body: { name: 'a' }, x402: 'paid' }), order('greet', { name: 'a' }, true), tool(greet, { name: 'a' }, true)]) {
        const result = problemOf(await checkout.decide(request));
        expect(result.problem).toMatchObject({ status: 503, code });
        expect(result.retryAfter).toBe(5);
      }
      expect(deps.gate.execute).not.toHaveBeenCalled();
    }
  });

  it('a proof-gated route without its proof is 401 with a PROOF-REQUEST, paid or not; past the limit 429', async () => {
    const { checkout, deps } = fakes();
    for (const request of [route(gated, { body: { urls: [] } }), route(gated, { body: { urls: [] }, x402: 'paid' }), tool(gated, { urls: [] })]) {
      const result = await checkout.decide(request);
      expect(result).toMatchObject({ kind: 'proof_required', route: 'POST /api/v1/paid/gated', request: { type: 'PROOF-REQUEST', error: 'proof_missing' } });
    }
    expect(deps.gate.execute).not.toHaveBeenCalled();
    const limited = problemOf(await fakes({ limited: true }).checkout.decide(route(gated, { body: { urls: [] } })));
    expect(limited.problem.status).toBe(429);
    expect(limited.retryAfter).toBe(7);
    // An order cannot carry the route-scoped proof.
    expect(problemOf(await checkout.decide(order('gated', { urls: [] }))).problem.errors).toEqual([{ field: 'product', message: expect.stringContaining('route-scoped proof') }]);
  });

  it('a proven unpaid call gets the quote; a proven paid call holds the nonce, spent once served, given back otherwise', async () => {
    const { checkout, held } = fakes();
    expect((await checkout.decide(route(gated, { body: { urls: [], proof: 'valid' } }))).kind).toBe('quote');
    expect((await checkout.decide(route(gated, { body: { urls: [], proof: 'valid' }, x402: 'paid' }))).kind).toBe('served');
    expect(held.spent).toEqual(['held-nonce']);
    const failing = fakes({ gate: { status: 'product_failed', error: new Error('boom') } });
    await failing.checkout.decide(route(gated, { body: { urls: [], proof: 'valid' }, x402: 'paid' }));
    expect(failing.held.released).toEqual(['held-nonce']);
  });
});

describe('checkout: input', () => {
  it('unpaid with bad input: the quote says why; paid: 400 naming the field, never the gate', async () => {
    const { checkout, deps } = fakes();
    const unpaid = quoteOf(await checkout.decide(route(greet, { body: { name: '' } })));
    expect(unpaid.quote.error).toMatch(/^invalid_input: name: /);
    expect(unpaid.quote.terms().error).toBe(unpaid.quote.error);
    const paid = problemOf(await checkout.decide(route(greet, { body: { name: '' }, x402: 'paid' })));
    expect(paid.problem).toMatchObject({ status: 400, code: 'invalid-input', errors: [{ field: 'name' }] });
    expect(problemOf(await checkout.decide(route(greet, { body: '{oops', x402: 'paid' }))).problem.errors).toEqual([{ field: 'body', message: expect.stringContaining('malformed JSON') }]);
    expect(deps.gate.execute).not.toHaveBeenCalled();
  });

  it('a body over the limit is 413', async () => {
    const { checkout } = fakes();
    const result = problemOf(await checkout.decide(route(greet, { body: { name: 'x'.repeat(200) }, x402: 'paid' })));
    expect(result.problem).toMatchObject({ status: 413, code: 'payload-too-large', errors: [{ field: 'body' }] });
  });

  it("an order's fields are named under input; a tool's bad arguments come first, even before readiness", async () => {
    const { checkout } = fakes();
    expect(quoteOf(await checkout.decide(order('greet_tool', { name: '' }))).quote.error).toMatch(/^invalid_input: input\.name: /);
    expect(problemOf(await checkout.decide(order('greet', { name: '' }, true))).problem.errors).toEqual([{ field: 'input.name', message: expect.any(String) }]);
    const unready = fakes({ ready: false });
    expect(problemOf(await unready.checkout.decide(tool(greet, { name: 5 }))).problem).toMatchObject({ status: 400, code: 'invalid-input', errors: [{ field: 'name' }] });
  });

  it('an order naming nothing on sale is 400 on the product field', async () => {
    const { checkout } = fakes();
    for (const named of ['nope', 'later', 42, undefined]) {
      expect(problemOf(await checkout.decide(order(named, {}))).problem.errors).toEqual([{ field: 'product', message: expect.any(String) }]);
    }
  });
});

describe('checkout: unpaid calls', () => {
  it('get the quote for their door: resource, surface price, telemetry challenge', async () => {
    const { checkout, deps } = fakes();
    const viaRoute = quoteOf(await checkout.decide(route(greet, { body: { name: 'a' } })));
    expect(viaRoute.quote.error).toBeUndefined();
    expect(viaRoute.quote.terms()).toMatchObject({ resource: { url: 'https://api.test/api/v1/paid/greet' }, accepts: [{ amount: 'http' }] });
    expect(viaRoute.offerMpp).toBe(false);
    const viaTool = quoteOf(await checkout.decide(tool(greet, { name: 'a' })));
    expect(viaTool.quote.terms()).toMatchObject({ error: 'payment_required', resource: { url: 'mcp://tool/greet_tool' }, accepts: [{ amount: 'mcp' }] });
    const viaOrder = quoteOf(await checkout.decide(order('greet', { name: 'a' })));
    expect(JSON.parse(viaOrder.quote.encoded().body)).toMatchObject({ resource: { url: 'https://api.test/api/v1/orders?product=greet' } });
    expect(deps.telemetry.challenge.mock.calls.map((c) => c[0])).toEqual(['POST /api/v1/paid/greet', 'tool greet_tool', 'POST /api/v1/orders']);
  });

  it('offer MPP beside the quote where the product takes it and the rail is on', async () => {
    const { checkout } = fakes({ mpp: true });
    expect(quoteOf(await checkout.decide(route(greet, { body: { name: 'a' } }))).offerMpp).toBe(true);
    expect(quoteOf(await checkout.decide(route(clock))).offerMpp).toBe(false);
  });

  it('a free tier invites a wallet proof and serves a proven wallet; a bad proof gets the quote with the reason', async () => {
    const { checkout, deps } = fakes();
    expect(quoteOf(await checkout.decide(route(clock))).quote.terms().extensions).toHaveProperty('sign-in-with-x');
    expect(await checkout.decide(route(clock, { freeClaim: { proof: 'good' } }))).toEqual({ kind: 'free', output: { free: true }, wallet: '0xwallet', remaining: 2 });
    expect(quoteOf(await checkout.decide(route(clock, { freeClaim: { proof: 'bad' } }))).quote.error).toBe('invalid_siwx_signature');
    expect(quoteOf(await checkout.decide(route(clock, { freeClaim: { malformed: true } }))).quote.error).toBe('invalid_siwx_payload');
    // HEAD never runs the product.
    expect((await checkout.decide(route(clock, { method: 'HEAD', freeClaim: { proof: 'good' } }))).kind).toBe('quote');
    expect(deps.freeTier.serve).toHaveBeenCalledTimes(2);
    expect(problemOf(await fakes({ limited: true }).checkout.decide(route(clock, { freeClaim: { proof: 'good' } }))).problem.status).toBe(429);
  });
});

describe('checkout: paid calls', () => {
  it('a paid call on the wrong method is 405; a malformed payment gets the quote with the reason', async () => {
    const { checkout, deps } = fakes();
    expect(problemOf(await checkout.decide(route(greet, { method: 'GET', x402: 'paid' }))).problem.status).toBe(405);
    expect(problemOf(await checkout.decide(route(clock, { method: 'HEAD', x402: 'paid' }))).problem.status).toBe(405);
    expect(quoteOf(await checkout.decide(route(greet, { body: { name: 'a' }, x402: 'malformed' }))).quote.error).toBe('invalid_payment_header: not base64');
    expect(deps.telemetry.failure).toHaveBeenCalledWith('POST /api/v1/paid/greet', 'payment_processing_error', 'invalid_payment_header', undefined);
    expect(deps.gate.execute).not.toHaveBeenCalled();
  });

  it('hands the gate the door\'s resource, surface and telemetry key', async () => {
    const { checkout, deps } = fakes();
    await checkout.decide(route(greet, { body: { name: 'a' }, x402: 'paid' }));
    await checkout.decide(order('greet_tool', { name: 'b' }, true));
    await checkout.decide(tool(greet, { name: 'c' }, true));
    expect(deps.gate.execute.mock.calls.map((c) => (c as unknown[])[0])).toEqual([
      expect.objectContaining({ surface: 'http', resource: 'https://api.test/api/v1/paid/greet', input: { name: 'a' }, endpoint: 'POST /api/v1/paid/greet', origin: { country: 'ZZ' } }),
      expect.objectContaining({ surface: 'http', resource: 'https://api.test/api/v1/orders?product=greet', input: { name: 'b' }, endpoint: 'POST /api/v1/orders' }),
      expect.objectContaining({ surface: 'mcp', resource: 'mcp://tool/greet_tool', input: { name: 'c' }, endpoint: 'tool greet_tool' }),
    ]);
  });

  const outcomes: [string, GateResult, (r: CheckoutResult) => void][] = [
    ['served', { status: 'served', output: { ok: 1 }, settlement: SETTLEMENT, paymentKey: 'k' }, (r) => expect(r).toEqual({ kind: 'served', rail: 'x402', output: { ok: 1 }, settlement: SETTLEMENT, paymentKey: 'k' })],
    ['payment_failed', { status: 'payment_failed', failure: { category: 'settlement_failed', reason: 'transaction_failed' }, settlement: { ...SETTLEMENT, success: false } }, (r) => {
      const q = quoteOf(r);
      expect(q.quote.error).toBe('transaction_failed');
      expect(q.settlement?.success).toBe(false);
    }],
    ['product_failed (input)', { status: 'product_failed', error: new ProductInputError('target does not resolve', 422, 'url') }, (r) => {
      const p = problemOf(r);
      expect(p.problem).toMatchObject({ status: 422, code: 'input-rejected', errors: [{ field: 'url', message: 'target does not resolve' }] });
      expect(p.message).toBe('target does not resolve. Nothing was charged');
    }],
    ['product_failed', { status: 'product_failed', error: new Error('upstream exploded') }, (r) => expect(problemOf(r).problem).toMatchObject({ status: 502, code: 'product-failed' })],
    ['unavailable', { status: 'unavailable', detail: 'the payment facilitator could not be reached' }, (r) => expect(problemOf(r)).toMatchObject({ problem: { status: 503, code: 'payment-service-unavailable' }, retryAfter: 5 })],
    ['pending', { status: 'pending', detail: 'settlement_timeout' }, (r) => expect(problemOf(r)).toMatchObject({ problem: { status: 503, code: 'settlement-pending' }, retryAfter: 30 })],
    ['conflict (in progress)', { status: 'conflict', detail: 'still running', inProgress: true }, (r) => expect(problemOf(r)).toMatchObject({ problem: { status: 409, code: 'idempotency-conflict' }, retryAfter: 5 })],
    ['conflict', { status: 'conflict', detail: 'another payment', inProgress: false }, (r) => expect(problemOf(r).retryAfter).toBeUndefined()],
  ];
  for (const [name, gate, check] of outcomes) {
    it(`maps the gate's ${name}`, async () => {
      const { checkout } = fakes({ gate });
      check(await checkout.decide(route(greet, { body: { name: 'a' }, x402: 'paid' })));
      // The tool door gets the same decision; its words name the tool.
      check(await checkout.decide(tool(greet, { name: 'a' }, true)));
    });
  }

  it('MPP: one payment at a time; a refused credential is an MPP problem; a verified one goes through the gate', async () => {
    const { checkout, deps } = fakes({ mpp: true });
    expect(problemOf(await checkout.decide(route(greet, { body: { name: 'a' }, x402: 'paid', mpp: 'Payment good' }))).problem).toMatchObject({ status: 400, code: 'bad-request' });
    expect(await checkout.decide(route(greet, { body: { name: 'a' }, mpp: 'Payment bad' }))).toMatchObject({ kind: 'mpp_problem', problem: { detail: 'bad credential' } });
    expect(deps.telemetry.failure).toHaveBeenCalledWith('POST /api/v1/paid/greet', 'payment_verification_failed', 'mpp_verification-failed', undefined);
    expect(await checkout.decide(route(greet, { body: { name: 'a' }, mpp: 'Payment good' }))).toMatchObject({ kind: 'served', rail: 'mpp', paymentKey: 'key-1' });
    expect(deps.gate.execute).toHaveBeenCalledWith(expect.objectContaining({ surface: 'http', requirements: REQUIREMENTS, input: { name: 'a' } }));
    // Bad input is refused before the credential is verified (its challenge stays unused).
    expect(problemOf(await checkout.decide(route(greet, { body: { name: '' }, mpp: 'Payment good' }))).problem.status).toBe(400);
    expect(deps.mpp!.verify).toHaveBeenCalledTimes(2);
    // A product that does not take MPP ignores the credential: the call is unpaid.
    expect((await checkout.decide(route(clock, { mpp: 'Payment good' }))).kind).toBe('quote');
  });

  it('MPP: a payment the gate refuses is an MPP problem with a fresh challenge', async () => {
    const { checkout } = fakes({ mpp: true, gate: { status: 'payment_failed', failure: { category: 'payment_verification_failed', reason: 'payment_already_used' } } });
    expect(await checkout.decide(route(greet, { body: { name: 'a' }, mpp: 'Payment good' }))).toMatchObject({ kind: 'mpp_problem', problem: { detail: 'payment_already_used' } });
  });
});
