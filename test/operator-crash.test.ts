import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware } from '@x402/hono';
import { createTestClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEV_ROLES, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import { freePort, startInstance, type Instance } from './helpers/instances.ts';
import { authorizationUsed, transferOf } from './helpers/ledger-chain.ts';
import { serveApp } from './helpers/local-site.ts';
import { paymentHeader, quote, signPayment } from './helpers/payments.ts';
import { startTestChain, tempDataDir } from './helpers/service.ts';

/**
 * The process going away between paying an upstream seller and answering its caller: percall
 * (`percall start`, embedded store, as a child process) sells service_gateway over a local
 * @x402/hono seller; the seller settles the operator's payment and holds its answer until percall
 * was SIGKILLed. Restarted on the same data directory, the reconciler ends both payments from the
 * chain: the caller's, never settled, is released (nothing charged); the operator's, used on chain,
 * is a settled `ledger_out` row with its transaction.
 */

const SELLER_PRICE = 1_000n;
const ADMIN = 'operator-crash-admin-token';
const operator = DEV_ROLES.operatorPayer.address;
const sellerPayTo = privateKeyToAccount(generatePrivateKey()).address;

let chain: DevChain;
let seller: Awaited<ReturnType<typeof startHoldingSeller>>;
const running: Instance[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  seller = await startHoldingSeller(chain);
});
afterAll(async () => {
  for (const instance of running) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.kill();
  await seller?.close();
  await chain?.stop();
});

/**
 * A seller built with the official @x402/hono middleware (its own facilitator, another gas wallet
 * than percall's). Its paid answer, once settled, is reported to the test and held until released.
 */
async function startHoldingSeller(chain: DevChain) {
  const facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: DEV_ROLES.spare.privateKey });
  const resourceServer = new x402ResourceServer(facilitator).register(chain.network, new ExactEvmScheme());
  let reportSettled!: (transaction: string) => void;
  const settled = new Promise<string>((resolve) => (reportSettled = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const app = new Hono();
  // Outermost: runs after the payment middleware below has settled and set PAYMENT-RESPONSE.
  app.use(async (c, next) => {
    await next();
    const header = c.res.headers.get('payment-response');
    if (!header) return;
    reportSettled(decodePaymentResponseHeader(header).transaction);
    await released;
  });
  app.use(
    paymentMiddleware(
      {
        'GET /api/v1/paid/quote': {
          accepts: { scheme: 'exact', network: chain.network, payTo: sellerPayTo, price: { amount: SELLER_PRICE.toString(), asset: chain.usdc, extra: { name: chain.usdcName, version: chain.usdcVersion } }, maxTimeoutSeconds: 60 },
          description: 'A quote of the day',
          mimeType: 'application/json',
        },
      },
      resourceServer,
    ),
  );
  app.get('/api/v1/paid/quote', (c) => c.json({ quote: 'The early bird pays the worm.' }));
  const server = await serveApp(app);
  return {
    url: server.url,
    settled,
    release,
    close: () => {
      release();
      return server.close();
    },
  };
}

async function start(env: Record<string, string>, port: number): Promise<Instance> {
  const instance = await startInstance(env, port);
  running.push(instance);
  return instance;
}

/** Everyone's USDC: the caller, percall's payTo, the operator's wallet, the seller. */
async function money() {
  const [caller, percall, wallet, sold] = await Promise.all([chain.buyer.address, chain.payTo, operator, sellerPayTo].map((a) => usdcBalance(chain.rpcUrl, chain.usdc, a)));
  return { caller: caller!, percall: percall!, operator: wallet!, seller: sold! };
}


/** Polls `check` until it holds (bounded): an observable outcome of the instance's background work. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('SIGKILL between paying the upstream and answering the caller', () => {
  it('loses neither record: the caller is not charged, the upstream payment is a settled ledger_out row with its transaction', async () => {
    const dataDir = await tempDataDir();
    const port = await freePort();
    // Nothing this test does not need starts with it: no block index, Bazaar snapshots or Python sandbox.
    const env = {
      DEV_RPC_URL: chain.rpcUrl,
      PERCALL_DATA_DIR: dataDir,
      GATEWAY_SELLERS: `clock=${seller.url}`,
      RECONCILE_INTERVAL_MS: '200',
      TELEMETRY_FLUSH_MS: '200',
      ADMIN_TOKEN: ADMIN,
      INDEX_CHAINS: 'off',
      BAZAAR_DISCOVERY_URLS: 'off',
      RUN_PYTHON: 'off',
    };
    const first = await start(env, port);
    const before = await money();

    const url = `${first.url}/api/v1/paid/service-gateway`;
    const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seller: 'clock', path: '/api/v1/paid/quote' }) };
    const payload = await signPayment(chain.buyer.privateKey, await quote(url, request));
    const call = fetch(url, { ...request, headers: { ...request.headers, ...paymentHeader(payload) } }).then(
      (response) => response.status,
      () => 0,
    );
    // The seller settled the operator's payment and holds its answer: percall dies now.
    const upstreamTx = await seller.settled;
    await first.kill();
    seller.release();
    expect(await call, 'the caller got no answer').toBe(0);
    expect(await transferOf(chain, upstreamTx)).toEqual({ from: operator, to: sellerPayTo, value: SELLER_PRICE });

    // Restarted on the same data directory; the chain's clock moved past the operator's authorization.
    const restarted = await start(env, port);
    const testClient = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
    await testClient.increaseTime({ seconds: 3_600 });
    await testClient.mine({ blocks: 1 });
    // The reconciler ended the upstream payment from the chain: the observatory counts it.
    const metrics = () => fetch(`${restarted.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
    await until(async () => (await metrics()).includes('percall_upstream_payments{product="service-gateway"} 1'), 'the upstream payment to be recorded');
    await restarted.stop();

    // Money: the operator paid the seller; the caller paid nothing and percall received nothing.
    const now = await money();
    expect({ caller: now.caller - before.caller, percall: now.percall - before.percall, operator: now.operator - before.operator, seller: now.seller - before.seller }).toEqual({
      caller: 0n,
      percall: 0n,
      operator: -SELLER_PRICE,
      seller: SELLER_PRICE,
    });
    const callerKey = paymentKey(payload);
    const callerNonce = (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    expect(await authorizationUsed(chain, callerNonce), 'the caller’s authorization was never used').toBe(false);

    const store = await openEmbeddedStore(dataDir);
    try {
      // The caller's payment: released (nothing moved), no sale in the ledger.
      expect(await store.settlement(callerKey)).toBeUndefined();
      expect((await store.unresolvedPayments()).map((p) => p.key)).not.toContain(callerKey);
      expect((await store.ledger()).filter((e) => e.product === 'service-gateway')).toEqual([]);
      // The operator's payment: settled with the seller's transaction, linked to the caller's payment, still counted in the day's spend.
      const out = await store.operatorLedger().rows();
      expect(out).toMatchObject([{ direction: 'out', state: 'settled', product: 'service-gateway', callerPaymentKey: callerKey, amount: SELLER_PRICE.toString(), payTo: sellerPayTo, payer: operator, txHash: upstreamTx }]);
      expect(out[0]!.nonce).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await store.operatorLedger().spent(out[0]!.day)).toBe(SELLER_PRICE);
    } finally {
      await store.close();
    }
  });
});
