import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { Challenge, Credential, Receipt } from 'mppx';
import { createMppClient } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paymentHeader } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// MPP through the whole service: the same 402 carries both rails, the official mppx client pays,
// settlement goes through our facilitator and gate, and credentials cannot be replayed on either rail.
describe('MPP rail on the service', () => {
  let chain: DevChain;
  let service: RunningService;
  let target: Awaited<ReturnType<typeof localSite>>;
  let route: string;

  beforeAll(async () => {
    target = await localSite((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    chain = await startTestChain();
    service = await startTestService({ chain, env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1', MPP_SECRET_KEY: 'test-secret-key-of-at-least-32-bytes!!' } });
    route = `${service.url}/api/v1/paid/endpoint-task-evaluation`;
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
    target?.close();
  });

  const body = () => JSON.stringify({ target_url: `${target.url}/status` });
  const post = (headers: Record<string, string> = {}) => fetch(route, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body() });

  // The dev chain and its test USDC are not in mppx's asset table: named with their EIP-712 domain.
  const mppClient = () => createMppClient(chain.buyer.privateKey, { chainId: chain.chainId, address: chain.usdc, name: chain.usdcName, version: chain.usdcVersion });

  it('answers an unpaid call with both challenges, each at the catalogue price', async () => {
    const response = await post();
    expect(response.status).toBe(402);
    const x402 = decodePaymentRequiredHeader(response.headers.get('payment-required')!);
    expect(x402.accepts.filter((a) => a.network === chain.network).map((a) => [a.scheme, a.amount])).toEqual([
      ['exact', '10000'],
      ['batch-settlement', '10000'],
    ]);
    const challenge = Challenge.deserialize(response.headers.get('www-authenticate')!);
    expect(challenge.method).toBe('evm');
    expect(challenge.intent).toBe('charge');
    const request = challenge.request as { amount: string; currency: string; recipient: string };
    expect(request.amount).toBe('10000');
    expect(request.currency.toLowerCase()).toBe(chain.usdc.toLowerCase());
    expect(request.recipient.toLowerCase()).toBe(chain.payTo.toLowerCase());
  });

  it('does not offer MPP on routes the catalogue keeps to x402', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/time`);
    expect(response.status).toBe(402);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  it('is paid by the official mppx client: one receipt, exactly 0.01 moved, served once', async () => {
    const before = await balances(chain);
    const challenged = await post();
    const credential = await mppClient().createCredential(challenged);
    const response = await post({ authorization: credential });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('private');
    const receipt = Receipt.deserialize(response.headers.get('payment-receipt')!);
    expect(receipt.status).toBe('success');
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(((await response.json()) as { status: number }).status).toBe(200);
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);

    // The same credential again: refused as a used challenge, nothing moves.
    const replay = await post({ authorization: credential });
    expect(replay.status).toBe(402);
    expect(replay.headers.get('content-type')).toContain('application/problem+json');
    expect(((await replay.json()) as { type: string }).type).toBe('https://paymentauth.org/problems/invalid-challenge');
    expect(replay.headers.get('www-authenticate')).toMatch(/^Payment /);

    // Its EIP-3009 authorization replayed on the x402 rail: the replay guard knows it.
    const { payload } = Credential.deserialize(credential) as { payload: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string; signature: string } };
    const x402Quote = decodePaymentRequiredHeader((await post()).headers.get('payment-required')!);
    const accepted = x402Quote.accepts.find((a) => a.network === chain.network && a.scheme === 'exact')!;
    const { signature, ...authorization } = payload;
    const crossRail = await post(paymentHeader({ x402Version: 2, resource: x402Quote.resource, accepted, payload: { authorization, signature } }));
    expect(crossRail.status).toBe(402);
    expect(decodePaymentRequiredHeader(crossRail.headers.get('payment-required')!).error).toBe('payment_already_used');
    expect(await balances(chain)).toEqual(after);
  });

  it('an Idempotency-Key makes the same credential a free retry of the same request; another request under that key is 409', async () => {
    const before = await balances(chain);
    const credential = await mppClient().createCredential(await post());
    const key = `idem-${crypto.randomUUID()}`;
    const first = await post({ authorization: credential, 'idempotency-key': key });
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const retry = await post({ authorization: credential, 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(firstBody);
    expect(Receipt.deserialize(retry.headers.get('payment-receipt')!).reference).toBe(Receipt.deserialize(first.headers.get('payment-receipt')!).reference);
    const other = await mppClient().createCredential(await post());
    expect((await post({ authorization: other, 'idempotency-key': key })).status).toBe(409);
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
  });

  it('also works end to end through the mppx fetch wrapper', async () => {
    const before = await balances(chain);
    const response = await mppClient().fetch(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body() });
    expect(response.status).toBe(200);
    expect(response.headers.get('payment-receipt')).toBeTruthy();
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
  });

  it('rejects a tampered challenge as invalid-challenge and charges nothing', async () => {
    const before = await balances(chain);
    const challenged = await post();
    const challenge = Challenge.deserialize(challenged.headers.get('www-authenticate')!);
    const cheaper = { ...challenge, request: { ...challenge.request, amount: '1' } };
    const forged = new Response(null, { status: 402, headers: { 'www-authenticate': Challenge.serialize(cheaper as never) } });
    const credential = await mppClient().createCredential(forged);
    const response = await post({ authorization: credential });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { type: string }).type).toBe('https://paymentauth.org/problems/invalid-challenge');
    expect(await balances(chain)).toEqual(before);
  });

  it('rejects bad input with 400 before the credential is used, so it still pays afterwards', async () => {
    const challenged = await post();
    const credential = await mppClient().createCredential(challenged);
    const bad = await fetch(route, { method: 'POST', headers: { 'content-type': 'application/json', authorization: credential }, body: '{"target_url":"not a url"}' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    const good = await post({ authorization: credential });
    expect(good.status).toBe(200);
  });

  it('lists MPP for this route in the discovery documents', async () => {
    const catalogue = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as { mpp?: { methods: string[] }; resources: { id: string; rails: string[] }[] };
    expect(catalogue.mpp?.methods).toEqual(['evm']);
    expect(catalogue.resources.find((r) => r.id === 'endpoint-task-evaluation')!.rails).toEqual(['x402', 'mpp']);
    expect(catalogue.resources.find((r) => r.id === 'time')!.rails).toEqual(['x402']);
  });
});
