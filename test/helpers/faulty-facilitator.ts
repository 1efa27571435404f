import { Hono } from 'hono';
import type { FacilitatorClient } from '@x402/core/server';
import type { DevChain } from '../../src/devchain/stack.ts';
import { createLocalFacilitator } from '../../src/payments/facilitator.ts';
import { serveApp } from './local-site.ts';

/**
 * How the facilitator answers one request: `real()` runs the genuine verify or settle on the chain;
 * the fault returns what goes over the wire (a Response, or a value sent as JSON with status 200).
 */
export type Fault = (real: () => Promise<unknown>) => Promise<Response | unknown>;

export interface FaultyFacilitator {
  url: string;
  /** The genuine facilitator behind it. */
  real: FacilitatorClient;
  /** Faults of the next requests, until set back to undefined. */
  faults: { verify?: Fault; settle?: Fault };
  calls: { verify: number; settle: number };
  close(): Promise<void>;
}

/**
 * The official facilitator on the test chain behind the x402 facilitator HTTP API (what production
 * talks to through HTTPFacilitatorClient), whose answers a test can delay, garble or fail.
 */
export async function startFaultyFacilitator(chain: DevChain, options: { privateKey?: `0x${string}`; receiptTimeoutMs?: number } = {}): Promise<FaultyFacilitator> {
  const real = createLocalFacilitator({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    network: chain.network,
    privateKey: options.privateKey ?? chain.facilitatorKey,
    receiptTimeoutMs: options.receiptTimeoutMs,
  });
  const faults: FaultyFacilitator['faults'] = {};
  const calls = { verify: 0, settle: 0 };
  const app = new Hono();
  app.get('/supported', async (c) => c.json(await real.getSupported()));
  for (const op of ['verify', 'settle'] as const) {
    app.post(`/${op}`, async (c) => {
      calls[op]++;
      const { paymentPayload, paymentRequirements } = await c.req.json();
      const genuine = () => real[op](paymentPayload, paymentRequirements);
      const fault = faults[op];
      const answer = fault ? await fault(genuine) : await genuine();
      return answer instanceof Response ? answer : c.json(answer as object);
    });
  }
  const server = await serveApp(app);
  return { url: server.url, real, faults, calls, close: server.close };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
