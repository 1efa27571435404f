import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { DevChain } from '../../src/devchain/stack.ts';
import { createLocalFacilitator } from '../../src/payments/facilitator.ts';

/**
 * A facilitator reachable over the x402 facilitator HTTP API (`POST /verify`, `POST /settle`,
 * `GET /supported`), backed by the official facilitator on the test chain: what production mode
 * talks to through `HTTPFacilitatorClient`.
 */
export async function startFacilitatorServer(chain: DevChain, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey });
  const app = new Hono();
  app.get('/supported', async (c) => c.json(await facilitator.getSupported()));
  app.post('/verify', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json();
    return c.json(await facilitator.verify(paymentPayload, paymentRequirements));
  });
  app.post('/settle', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json();
    return c.json(await facilitator.settle(paymentPayload, paymentRequirements));
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      }),
  };
}
