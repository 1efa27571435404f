import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { startFacilitatorServer } from './helpers/facilitator-server.ts';
import { paymentHeader, quote, signPayment, tamper } from './helpers/payments.ts';
import { balances, capturingLogger, startTestChain, startTestService } from './helpers/service.ts';

const SOLANA_RECIPIENT = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** Production mode: a remote facilitator over the x402 facilitator HTTP API, real network settings. */
let chain: DevChain;
const logs = capturingLogger();

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain?.stop();
});

function productionEnv(facilitatorUrl: string): Record<string, string> {
  return {
    PERCALL_MODE: 'production',
    HOST: '127.0.0.1',
    FACILITATOR_URL: facilitatorUrl,
    FACILITATOR_TIMEOUT_MS: '5000',
    PAY_TO: chain.payTo,
    EVM_NETWORK: chain.network,
    USDC_ADDRESS: chain.usdc,
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('production mode with a remote facilitator', () => {
  let facilitator: Awaited<ReturnType<typeof startFacilitatorServer>>;
  let service: RunningService;

  beforeAll(async () => {
    facilitator = await startFacilitatorServer(chain);
    // A Solana recipient is configured, but this facilitator settles EVM only.
    service = await startTestService({ chain, env: { ...productionEnv(facilitator.url), SOLANA_PAY_TO: SOLANA_RECIPIENT }, log: logs.log });
  });
  afterAll(async () => {
    await service?.stop();
    await facilitator?.close();
  });

  it('the official client pays; USDC moves on chain; a ledger row is written', async () => {
    const before = await balances(chain);
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    const response = await pay(`${service.url}/api/v1/paid/time`);
    expect(response.status).toBe(200);
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
    expect((await service.percall.store.ledger())[0]).toMatchObject({ product: 'time', amount: '10000' });
    expect(service.dev).toBeUndefined();
  });

  it('offers only what the facilitator settles, with the default minimums of a hosted facilitator, and says why', async () => {
    const required = await quote(`${service.url}/api/v1/paid/time`);
    expect(required.accepts.map((a) => [a.network, a.scheme])).toEqual([[chain.network, 'exact']]);
    const catalogue = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as {
      networkMinimums: { network: string; minimumUsd: string }[];
      resources: { id: string; excludedNetworks?: { network: string; reason: string }[] }[];
    };
    expect(catalogue.networkMinimums).toEqual([
      expect.objectContaining({ network: chain.network, minimumUsd: '0.001' }),
      expect.objectContaining({ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', minimumUsd: '0.01' }),
    ]);
    expect(catalogue.resources.find((r) => r.id === 'time')!.excludedNetworks).toEqual([
      expect.objectContaining({ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', reason: 'scheme_not_supported_by_facilitator' }),
    ]);
  });

  it('a payment the facilitator rejects gets 402 with its reason', async () => {
    const url = `${service.url}/api/v1/paid/time`;
    const payload = await tamper(chain.buyer.privateKey, await signPayment(chain.buyer.privateKey, await quote(url)), {
      authorization: { to: '0x000000000000000000000000000000000000dEaD' },
    });
    const response = await fetch(url, { headers: paymentHeader(payload) });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toMatch(/recipient/);
  });

  it('when the facilitator goes away: quotes still work, paid calls get 503 with Retry-After and are not charged', async () => {
    const url = `${service.url}/api/v1/paid/echo?x=1`;
    const payload = await signPayment(chain.buyer.privateKey, await quote(url));
    await facilitator.close();
    const before = await balances(chain);
    expect((await fetch(url)).status).toBe(402);
    const response = await fetch(url, { headers: paymentHeader(payload) });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.headers.get('retry-after')).toBeTruthy();
    expect(await balances(chain)).toEqual(before);
  });
});

describe('production mode starting while the facilitator is down', () => {
  it('serves free endpoints, answers paid routes with 503, and recovers once the facilitator is up', async () => {
    const port = await freePort();
    const service = await startTestService({ chain, env: productionEnv(`http://127.0.0.1:${port}`), log: logs.log });
    let facilitator: Awaited<ReturnType<typeof startFacilitatorServer>> | undefined;
    try {
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      const unavailable = await fetch(`${service.url}/api/v1/paid/time`);
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('retry-after')).toBeTruthy();

      facilitator = await startFacilitatorServer(chain, { port });
      let status = 0;
      for (let i = 0; i < 60 && status !== 402; i++) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await fetch(`${service.url}/api/v1/paid/time`)).status;
      }
      expect(status).toBe(402);
    } finally {
      await service.stop();
      await facilitator?.close();
    }
  });
});

describe('logs', () => {
  it('hold no key and no payment signature, after all of the above at trace level', () => {
    const text = logs.lines.join('\n');
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const secret of [chain.buyer.privateKey, chain.facilitatorKey]) expect(text).not.toContain(secret.slice(2));
    expect(text).not.toMatch(/eyJ4NDAyVmVyc2lvbiI6Mi/); // base64 of '{"x402Version":2': no encoded payload
  });
});
