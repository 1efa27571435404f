import { Hono } from 'hono';
import type { Hex } from 'viem';
import type { DevChain } from '../../src/devchain/stack.ts';
import { createLocalFacilitator } from '../../src/payments/facilitator.ts';
import { serveApp } from './local-site.ts';

/**
 * A facilitator reachable over the x402 facilitator HTTP API (`POST /verify`, `POST /settle`,
 * `GET /supported`), backed by the official facilitator on the test chain: what production mode
 * talks to through `HTTPFacilitatorClient`. `privateKey`: its gas wallet (default the chain's facilitator
 * account); `supportedDelayMs`: a slow facilitator, answering `/supported` that late.
 */
export async function startFacilitatorServer(
  chain: DevChain,
  options: { port?: number; privateKey?: Hex; supportedDelayMs?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: options.privateKey ?? chain.facilitatorKey });
  const app = new Hono();
  app.get('/supported', async (c) => {
    if (options.supportedDelayMs) await new Promise((r) => setTimeout(r, options.supportedDelayMs));
    return c.json(await facilitator.getSupported());
  });
  app.post('/verify', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json();
    return c.json(await facilitator.verify(paymentPayload, paymentRequirements));
  });
  app.post('/settle', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json();
    return c.json(await facilitator.settle(paymentPayload, paymentRequirements));
  });
  return serveApp(app, options.port);
}
