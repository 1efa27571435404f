/**
 * The reference for `npm run bench`: the official `@x402/hono` paymentMiddleware protecting the same
 * route at the same price, settling through the same in-process facilitator on the same chain.
 * Run as a child process by bench/run.ts; configured through the environment.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { paymentMiddleware, x402ResourceServer } from '@x402/hono';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { Network } from '@x402/core/types';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';

const env = process.env as Record<string, string>;
const network = env.NETWORK as Network;
const facilitator = createLocalFacilitator({
  rpcUrl: env.RPC_URL!,
  chainId: Number(env.CHAIN_ID),
  network,
  privateKey: env.FACILITATOR_KEY as `0x${string}`,
});
const server = new x402ResourceServer(facilitator).register(network, new ExactEvmScheme());

const app = new Hono();
app.use(
  paymentMiddleware(
    {
      'GET /api/v1/paid/time': {
        accepts: {
          scheme: 'exact',
          network,
          payTo: env.PAY_TO!,
          price: { amount: env.AMOUNT!, asset: env.ASSET!, extra: { name: 'USD Coin', version: '2' } },
          maxTimeoutSeconds: 300,
        },
        description: 'Returns the current server time.',
        mimeType: 'application/json',
        extensions: declareDiscoveryExtension({ method: 'GET', input: {}, inputSchema: { type: 'object', properties: {} }, output: { example: { time: '2025-06-01T12:00:00.000Z', unix: 1748779200 } } } as never),
      },
    },
    server,
  ),
);
app.get('/api/v1/paid/time', (c) => {
  const now = new Date();
  return c.json({ time: now.toISOString(), unix: Math.floor(now.getTime() / 1000) });
});

serve({ fetch: app.fetch, port: Number(env.PORT), hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`ready ${info.port}\n`);
});

// Exit cleanly on SIGTERM so `--cpu-prof` can write its profile.
process.on('SIGTERM', () => process.exit(0));
