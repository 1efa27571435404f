import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware } from '@x402/hono';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PaymentRequired } from '@x402/core/types';
import { createSIWxPayload, type CompleteSIWxInfo, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import { DEV_ROLES, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { payAndHangUp, paymentHeader, quote, settlementOf, signPayment, untilOwed } from './helpers/payments.ts';
import { payTool } from './helpers/mcp-payments.ts';
import { startFacilitatorServer } from './helpers/facilitator-server.ts';
import { serveApp } from './helpers/local-site.ts';
import { startTestChain, startTestService } from './helpers/service.ts';
import { checkSpendCap } from './helpers/operator-ledger.ts';
import { transferOf as chainTransfer } from './helpers/ledger-chain.ts';

// percall paying other x402 sellers from the operator's wallet, on anvil: a local seller built with the
// official @x402/hono middleware (its facilitator over HTTP, the official one), the caller paying
// percall with @x402/fetch over HTTP and over MCP. Every figure is read back from the chain and the
// ledger: caller → percall, operator → seller, the margin kept; refusals and failures move nothing.

const SELLER_PRICE = 1_000n; // 0.001 USD
const GATEWAY_PRICE = 1_100n; // the seller's price plus 10%
const DEAR_PRICE = 500_000n; // above the daily cap of this service

let chain: DevChain;
let service: RunningService;
let seller: Awaited<ReturnType<typeof startSeller>>;
let slow: { url: string; close(): Promise<void> };
const sellerPayTo = privateKeyToAccount(generatePrivateKey()).address;
const operator = DEV_ROLES.operatorPayer.address;
const ADMIN = 'operator-payments-admin-token';
let failNextSettle = false;

beforeAll(async () => {
  chain = await startTestChain();
  seller = await startSeller(chain);
  // Its own gas wallet: percall's in-process facilitator settles from the dev facilitator account.
  slow = await startFacilitatorServer(chain, { privateKey: DEV_ROLES.spare.privateKey, supportedDelayMs: 1_600 });
  service = await startTestService({
    chain,
    // The caller's settlement can be made to fail once, after the seller was paid.
    wrapFacilitator: (f) => ({
      getSupported: () => f.getSupported(),
      verify: (payload, requirements) => f.verify(payload, requirements),
      settle: async (payload, requirements) => {
        if (!failNextSettle) return f.settle(payload, requirements);
        failNextSettle = false;
        return { success: false, errorReason: 'unexpected_settle_error', transaction: '', network: requirements.network };
      },
    }),
    env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1', GATEWAY_SELLERS: `clock=${seller.url}`, OPERATOR_DAILY_SPEND_CAP_USD: '0.10', ADMIN_TOKEN: ADMIN },
  });
});
afterAll(async () => {
  await mcpClient?.close();
  await service?.stop();
  await seller?.close();
  await slow?.close();
  await chain?.stop();
});

/** A seller on loopback built with the official @x402/hono middleware; its price can be raised after a number of unpaid requests. */
async function startSeller(chain: DevChain) {
  const facilitator = await startFacilitatorServer(chain, { privateKey: DEV_ROLES.spare.privateKey });
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register(chain.network, new ExactEvmScheme());
  let price = SELLER_PRICE;
  let raise: { after: number; to: bigint } | undefined;
  let unpaid = 0;
  const option = (amount: () => bigint) => ({
    scheme: 'exact',
    network: chain.network,
    payTo: sellerPayTo,
    price: () => ({ amount: amount().toString(), asset: chain.usdc, extra: { name: chain.usdcName, version: chain.usdcVersion } }),
    maxTimeoutSeconds: 120,
  });
  const app = new Hono();
  app.use(async (c, next) => {
    if (!c.req.header('payment-signature')) {
      unpaid++;
      if (raise && unpaid > raise.after) price = raise.to;
    }
    await next();
  });
  app.use(
    paymentMiddleware(
      {
        'GET /api/v1/paid/quote': { accepts: option(() => price), description: 'A quote of the day', mimeType: 'application/json' },
        'GET /api/v1/paid/fail': { accepts: option(() => SELLER_PRICE), description: 'Always fails', mimeType: 'application/json' },
        'GET /api/v1/paid/dear': { accepts: option(() => DEAR_PRICE), description: 'Expensive', mimeType: 'application/json' },
      },
      resourceServer,
    ),
  );
  app.get('/api/v1/paid/quote', (c) => c.json({ quote: 'The early bird pays the worm.', topic: c.req.query('topic') ?? null }));
  app.get('/api/v1/paid/fail', (c) => c.json({ error: 'broken' }, 500));
  app.get('/api/v1/paid/dear', (c) => c.json({ dear: true }));
  const server = await serveApp(app);
  return {
    url: server.url,
    facilitatorUrl: facilitator.url,
    get unpaid() {
      return unpaid;
    },
    raiseAfter(after: number, to: bigint) {
      unpaid = 0;
      raise = { after, to };
    },
    reset() {
      raise = undefined;
      price = SELLER_PRICE;
    },
    close: async () => {
      await server.close();
      await facilitator.close();
    },
  };
}

const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
const route = (path: string) => `${service.url}/api/v1/paid/${path}`;
const post = (path: string, body: unknown) => pay()(route(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Everyone's USDC: the caller, percall's payTo, the operator's wallet, the seller. */
async function money() {
  const [caller, percall, wallet, sold] = await Promise.all([chain.buyer.address, chain.payTo, operator, sellerPayTo].map((a) => usdcBalance(chain.rpcUrl, chain.usdc, a)));
  return { caller: caller!, percall: percall!, operator: wallet!, seller: sold! };
}

/** The money that moved since `before`, per party. */
async function moved(before: Awaited<ReturnType<typeof money>>) {
  const now = await money();
  return { caller: now.caller - before.caller, percall: now.percall - before.percall, operator: now.operator - before.operator, seller: now.seller - before.seller };
}
const NOTHING = { caller: 0n, percall: 0n, operator: 0n, seller: 0n };

/** The transfer a settlement transaction made on chain. */
const transferOf = (txHash: string) => chainTransfer(chain, txHash);

/** The caller's ledger row (direction in) of a settlement, and the upstream rows (direction out) linked to it. */
async function ledgerOf(callerTx: string) {
  const inRow = (await service.percall.store.ledger()).find((e) => e.txHash === callerTx)!;
  const out = await service.percall.store.operatorLedger().rows({ callerPaymentKey: inRow.paymentKey });
  return { inRow, out };
}

let mcpClient: Client | undefined;
async function mcp(): Promise<Client> {
  if (mcpClient) return mcpClient;
  const client = new Client({ name: 'operator-payments-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
  await client.listTools();
  return (mcpClient = client);
}

describe('service_gateway', () => {
  it('quotes the seller’s current price plus 10%; paid over HTTP it pays the seller from the operator’s wallet and keeps the margin', async () => {
    const before = await money();
    const response = await post('service-gateway', { seller: 'clock', path: '/api/v1/paid/quote', input: { topic: 'birds' }, method: 'GET' });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(await moved(before)).toEqual({ caller: -GATEWAY_PRICE, percall: GATEWAY_PRICE, operator: -SELLER_PRICE, seller: SELLER_PRICE });
    expect(body).toMatchObject({
      seller: 'clock',
      url: `${seller.url}/api/v1/paid/quote?topic=birds`,
      status: 200,
      body: { quote: 'The early bird pays the worm.', topic: 'birds' },
      price: { upstream: '0.001', charged: '0.0011', margin: '0.0001' },
      upstream_payment: { amount_atomic: '1000', network: chain.network, pay_to: sellerPayTo, settlement: { success: true, payer: operator } },
    });
    // Both settlements on chain: the caller's to percall, the operator's to the seller.
    const caller = settlementOf(response)!;
    expect(await transferOf(caller.transaction)).toEqual({ from: chain.buyer.address, to: getAddress(chain.payTo), value: GATEWAY_PRICE });
    const upstreamTx = (body.upstream_payment as { settlement: { transaction: string } }).settlement.transaction;
    expect(await transferOf(upstreamTx)).toEqual({ from: operator, to: sellerPayTo, value: SELLER_PRICE });
    // The ledger: the caller's charge (in) and the upstream payment (out) linked to it.
    const { inRow, out } = await ledgerOf(caller.transaction);
    expect(inRow).toMatchObject({ product: 'service-gateway', amount: '1100', payer: chain.buyer.address });
    expect(out).toMatchObject([{ direction: 'out', state: 'settled', product: 'service-gateway', amount: '1000', txHash: upstreamTx, payTo: sellerPayTo, payer: operator }]);
  });

  it('over MCP: the tool’s payment-required result quotes the same dynamic price, and the call pays the seller', async () => {
    const before = await money();
    const result = await payTool(await mcp(), chain, 'service_gateway', { seller: 'clock', path: '/api/v1/paid/quote' }, GATEWAY_PRICE);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 200, price: { upstream: '0.001', charged: '0.0011' } });
    expect(await moved(before)).toEqual({ caller: -GATEWAY_PRICE, percall: GATEWAY_PRICE, operator: -SELLER_PRICE, seller: SELLER_PRICE });
  });

  it('a failing upstream call charges the caller nothing (502), and the seller, which did not settle, got nothing', async () => {
    const before = await money();
    const response = await post('service-gateway', { seller: 'clock', path: '/api/v1/paid/fail' });
    expect(response.status).toBe(502);
    expect(await moved(before)).toEqual(NOTHING);
  });

  it('the caller’s settlement failing after the seller was paid: the caller is not charged, the seller’s payment stays in the ledger as the operator’s loss', async () => {
    const before = await money();
    failNextSettle = true;
    const response = await post('service-gateway', { seller: 'clock', path: '/api/v1/paid/quote' });
    expect(response.status).not.toBe(200);
    expect(await moved(before)).toEqual({ caller: 0n, percall: 0n, operator: -SELLER_PRICE, seller: SELLER_PRICE });
    const [row] = await service.percall.store.operatorLedger().rows({ limit: 1 });
    expect(row).toMatchObject({ direction: 'out', state: 'settled', product: 'service-gateway', amount: '1000' });
    expect(await service.percall.store.settlement(row!.callerPaymentKey!)).toBeUndefined();
  });

  it('a seller that raised its price after the quote is not paid, and the caller is not charged (409)', async () => {
    // Unpaid requests: the caller's quote, its paid call's re-quote, then the operator's own read sees the raise.
    seller.raiseAfter(2, 2n * SELLER_PRICE);
    try {
      const before = await money();
      const response = await post('service-gateway', { seller: 'clock', path: '/api/v1/paid/quote' });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: 'upstream_price_changed' });
      expect(await moved(before)).toEqual(NOTHING);
    } finally {
      seller.reset();
    }
  });

  it('a paid result that never reached its caller is redeemed with the same payment at the price it was paid at, the seller neither asked again nor paid again', async () => {
    const url = new URL(route('service-gateway'));
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seller: 'clock', path: '/api/v1/paid/quote', input: { topic: 'owed' }, method: 'GET' }) };
    const payload = await signPayment(chain.buyer.privateKey, await quote(url.toString(), init));
    const before = await money();
    await payAndHangUp(url, payload, init);
    await untilOwed(service.percall.store, payload);
    // The seller's price is now another: a fresh quote would differ from the one paid.
    seller.raiseAfter(0, 3n * SELLER_PRICE);
    try {
      const unpaid = seller.unpaid;
      const redeemed = await fetch(url, { ...init, headers: { ...init.headers, ...paymentHeader(payload) } });
      expect(redeemed.status).toBe(200);
      expect(await redeemed.json()).toMatchObject({ body: { topic: 'owed' }, price: { charged: '0.0011' } });
      expect(seller.unpaid).toBe(unpaid);
      expect(await moved(before)).toEqual({ caller: -GATEWAY_PRICE, percall: GATEWAY_PRICE, operator: -SELLER_PRICE, seller: SELLER_PRICE });
      const again = await fetch(url, { ...init, headers: { ...init.headers, ...paymentHeader(payload) } });
      expect(again.status).toBe(402);
      expect(((await again.json()) as { error: string }).error).toBe('payment_already_used');
    } finally {
      seller.reset();
    }
  });

  it('the daily spend cap refuses a payment that would pass it (503), nothing signed, nothing charged', async () => {
    const before = await money();
    const response = await post('service-gateway', { seller: 'clock', path: '/api/v1/paid/dear' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await moved(before)).toEqual(NOTHING);
  });

  it('a seller off the allowlist or a path leaving the seller is refused (400 naming the field), never fetched, never charged', async () => {
    const before = await money();
    const unpaid = seller.unpaid;
    const other = await post('service-gateway', { seller: 'elsewhere', path: '/api/v1/paid/quote' });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ errors: [{ field: 'seller' }] });
    const escape = await post('service-gateway', { seller: 'clock', path: '/api/v1/paid/../../admin' });
    expect(escape.status).toBe(400);
    expect(await escape.json()).toMatchObject({ errors: [{ field: 'path' }] });
    expect(seller.unpaid).toBe(unpaid);
    expect(await moved(before)).toEqual(NOTHING);
  });
});

describe('fetch_x402_content', () => {
  it('pays a paywalled URL within the cap over HTTP and returns it with the upstream’s settlement', async () => {
    const before = await money();
    const response = await post('fetch-x402', { url: `${seller.url}/api/v1/paid/quote`, max_price: '0.005' });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ paid: true, status: 200, body: { quote: 'The early bird pays the worm.' }, payment: { amount: '0.001', settlement: { success: true } }, limit: '0.005' });
    expect(await moved(before)).toEqual({ caller: -20_000n, percall: 20_000n, operator: -SELLER_PRICE, seller: SELLER_PRICE });
    const { out } = await ledgerOf(settlementOf(response)!.transaction);
    expect(out).toMatchObject([{ product: 'fetch-x402-content', state: 'settled', amount: '1000' }]);
  });

  it('over MCP: a resource priced above the limit gets its terms back, nothing paid upstream (the answer is charged)', async () => {
    const before = await money();
    const result = await payTool(await mcp(), chain, 'fetch_x402_content', { url: `${seller.url}/api/v1/paid/dear`, max_price: '1.00' }, 20_000n);
    expect(result.structuredContent).toMatchObject({ paid: false, not_paid: 'price_above_limit', limit: '0.01', terms: { accepts: [{ amount_atomic: '500000', pay_to: sellerPayTo }] } });
    expect(await moved(before)).toEqual({ caller: -20_000n, percall: 20_000n, operator: 0n, seller: 0n });
  });
});

describe('fetch_x402_content’s free tier', () => {
  it('one free fetch per proven wallet per day: the operator pays the upstream, the wallet pays nothing; the second asks for payment', async () => {
    const client = await mcp();
    const wallet = generatePrivateKey();
    const args = { url: `${seller.url}/api/v1/paid/quote` };
    const prove = async () => {
      const challenge = ((await client.callTool({ name: 'fetch_x402_content', arguments: args })) as unknown as { structuredContent: PaymentRequired }).structuredContent;
      const extension = (challenge.extensions as Record<string, SIWxExtension>)['sign-in-with-x']!;
      const info: CompleteSIWxInfo = { ...extension.info, chainId: extension.supportedChains[0]!.chainId, type: extension.supportedChains[0]!.type };
      return { 'sign-in-with-x': await createSIWxPayload(info, privateKeyToAccount(wallet), `${service.url}/mcp`) };
    };
    const before = await money();
    const free = (await client.callTool({ name: 'fetch_x402_content', arguments: args, _meta: await prove() })) as { isError?: boolean; structuredContent: Record<string, unknown> };
    expect(free.isError).toBeFalsy();
    expect(free.structuredContent).toMatchObject({ paid: true, payment: { amount_atomic: '1000' } });
    expect(await moved(before)).toEqual({ caller: 0n, percall: 0n, operator: -SELLER_PRICE, seller: SELLER_PRICE });
    const again = (await client.callTool({ name: 'fetch_x402_content', arguments: args, _meta: await prove() })) as unknown as { isError?: boolean; structuredContent: PaymentRequired };
    expect(again.isError).toBe(true);
    expect(again.structuredContent.error).toBe('free_tier_exhausted');
  });
});

describe('the local seller and a slow facilitator as targets of the payments products', () => {
  it('b402_preflight says go for the @x402/hono seller; facilitator health finds the slow one degraded', async () => {
    const preflight = (await (await post('b402-preflight', { url: `${seller.url}/api/v1/paid/quote`, payer: operator })).json()) as Record<string, unknown>;
    expect(preflight).toMatchObject({ go: true, recommended: `x402 exact@${chain.network}`, x402_version: 2 });
    const health = await pay()(`${route('x402-facilitator-health')}?${new URLSearchParams({ facilitator_url: slow.url })}`);
    const report = (await health.json()) as { status: string; reasons: string[] };
    expect(report.status).toBe('degraded');
    expect(report.reasons.join(' ')).toMatch(/slow/i);
  });
});

describe('the ledger’s out direction on the embedded store', () => {
  it('reservations against the daily cap are atomic; releases give back once', async () => {
    await checkSpendCap(service.percall.store, service.percall.store, '2000-01-01', '2000-01-02');
  });
});

describe('observatory', () => {
  it('shows the upstream volume, spend and margin of the products paying sellers, in the report and /metrics', async () => {
    await service.percall.telemetry.flush();
    const report = (await (await fetch(`${service.url}/observatory/report.json`)).json()) as { operator_payments: { products: { product: string }[] } };
    const gateway = report.operator_payments.products.find((p) => p.product === 'service-gateway');
    // Three paid gateway calls (HTTP, MCP, the one redeemed after its caller hung up) and the one whose
    // caller settlement failed (the operator's loss); the failed seller and the refusals moved nothing.
    expect(gateway).toEqual({ product: 'service-gateway', upstream_payments: 4, upstream_spend_usdc: 0.004, revenue_usdc: 0.0033, margin_usdc: -0.0007 });
    // One paid fetch and one free one: the free one is the operator's cost, so it counts in the spend.
    expect(report.operator_payments.products.find((p) => p.product === 'fetch-x402-content')).toEqual({ product: 'fetch-x402-content', upstream_payments: 2, upstream_spend_usdc: 0.002, revenue_usdc: 0.04, margin_usdc: 0.038 });
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toContain('percall_upstream_payments{product="service-gateway"} 4');
    expect(metrics).toContain('percall_upstream_spend_usdc{product="service-gateway"} 0.004');
    expect(metrics).toMatch(/percall_operator_margin_usdc\{product="service-gateway"\} -0\.0007/);
  });
});
