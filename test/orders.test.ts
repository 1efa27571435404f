import { describe, expect, it } from 'vitest';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { METRICS } from '../src/telemetry/counters.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;

useTestService((c, s) => ((chain = c), (service = s)));

const order = (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });

describe('order doors outside /api/v1/paid/', () => {
  for (const path of ['/api/v1/orders', '/api/v1/purchase']) {
    it(`${path}: challenges, sells through the same gate, and is counted under its own path`, async () => {
      const unpaid = await order(path, { product: 'time' });
      expect(unpaid.status).toBe(402);
      const quote = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
      expect(quote.resource.url).toBe(`${service.url}${path}?product=time`); // the order's resource names its product
      expect(quote.accepts[0]!.amount).toBe('10000');

      const before = await balances(chain);
      const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
      const paid = await pay(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ product: 'echo', input: { via: 'order' } }) });
      expect(paid.status).toBe(200);
      expect(await paid.json()).toMatchObject({ echo: 'via=order' });
      expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);

      await service.percall.telemetry.flush();
      const counters = (await service.percall.store.telemetry()).counters;
      expect(counters[METRICS.challenges]?.[`POST ${path}`]).toBeGreaterThanOrEqual(2);
      expect(counters[METRICS.paidCalls]?.[`POST ${path}`]).toBe(1);
    });
  }

  it('names the problem: unknown product, bad input, wrong method', async () => {
    expect((await order('/api/v1/orders', { product: 'nope' })).status).toBe(400);
    expect((await order('/api/v1/orders', { product: 'company-research' })).status).toBe(400); // declared, not on sale
    const badInput = await order('/api/v1/orders', { product: 'route-task', input: {} });
    expect(badInput.status).toBe(402);
    expect(((await badInput.json()) as { error: string }).error).toMatch(/^invalid_input: input.task/);
    expect((await fetch(`${service.url}/api/v1/orders`)).status).toBe(405);
  });
});
