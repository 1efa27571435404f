import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, SettleResponse, VerifyResponse } from '@x402/core/types';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import { DEV_ROLES } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { createLogger } from '../src/log.ts';
import { createRemoteFacilitator } from '../src/payments/facilitator.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import type { RunningService } from '../src/runtime.ts';
import { sleep, startFaultyFacilitator, type FaultyFacilitator } from './helpers/faulty-facilitator.ts';
import { ledgerMatchesChain, markChain, transfersSince, type ChainMark } from './helpers/ledger-chain.ts';
import { paymentHeader, quote, settlementOf, signPayment } from './helpers/payments.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { startTestChain, startTestService } from './helpers/service.ts';
import { storeSwitch } from './helpers/switchable-store.ts';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.ts';

/**
 * Fault injection against one running service. For every fault: no double charge, no charge
 * without a delivered or redeemable result, and after reconciliation the ledger equals the chain.
 *
 * The service meets its dependencies as production does, each behind something the test controls:
 * - the facilitator is remote (x402 facilitator HTTP API through HTTPFacilitatorClient), reached
 *   through a loopback proxy that can refuse or hang, and its answers can be slow, garbled or
 *   failures after the transfer was broadcast; `inProcess` faults sit between the gate and that client;
 * - the chain (the facilitator's RPC and the reconciler's) is reached through another proxy;
 * - the embedded database can be taken away (`wrapStore`), PostgreSQL through a third proxy;
 * - the service's clock can be skewed.
 * The test itself reads the chain directly.
 */
const TIMEOUT_MS = 1000;
const MINUTES_10 = 10 * 60_000;
const ENV = { DEV_SOLANA: 'off', FACILITATOR_TIMEOUT_MS: String(TIMEOUT_MS), DATABASE_STATEMENT_TIMEOUT_MS: '2000', RECONCILE_INTERVAL_MS: '3600000', OWNER_TIMEOUT_MS: '3600000' };
// PERCALL_TEST_SERVICE_LOGS=1 shows the services' warnings, for diagnosing a failure.
const log = process.env.PERCALL_TEST_SERVICE_LOGS ? { log: createLogger('warn') } : {};

const db = await freshDatabase();
const pgSuite = db ? describe : describe.skip;

let chain: DevChain;
/** The service's (and the facilitator's) way to the chain. */
let rpc: TcpProxy;
let facilitator: FaultyFacilitator;
/** The service's way to the facilitator. */
let proxy: TcpProxy;
let service: RunningService & { dataDir: string };
/** The service's embedded database, which the test can take away. */
const database = storeSwitch();
/** The service's clock runs this far ahead of (or behind) the real one. */
let skewMs = 0;

type ClientFaults = {
  verify?: (real: () => Promise<VerifyResponse>) => Promise<unknown>;
  settle?: (real: () => Promise<SettleResponse>) => Promise<unknown>;
};
/** Faults between the gate and the facilitator client, in process (answers no HTTP client would let through). */
const inProcess: ClientFaults = {};

function faultable(inner: FacilitatorClient): FacilitatorClient {
  return {
    verify: (p, r) => (inProcess.verify ? (inProcess.verify(() => inner.verify(p, r)) as Promise<VerifyResponse>) : inner.verify(p, r)),
    settle: (p, r) => (inProcess.settle ? (inProcess.settle(() => inner.settle(p, r)) as Promise<SettleResponse>) : inner.settle(p, r)),
    getSupported: () => inner.getSupported(),
  };
}

beforeAll(async () => {
  chain = await startTestChain();
  rpc = await startTcpProxy(chain.rpcUrl);
  const viaProxy = { ...chain, rpcUrl: rpc.url() };
  facilitator = await startFaultyFacilitator(viaProxy, { receiptTimeoutMs: TIMEOUT_MS });
  proxy = await startTcpProxy(facilitator.url);
  service = await startTestService({
    chain: viaProxy,
    // Background passes out of the way: each test reconciles when it means to.
    env: ENV,
    wrapFacilitator: () => faultable(createRemoteFacilitator(proxy.url(), TIMEOUT_MS)),
    wrapStore: database.wrap,
    clock: () => new Date(Date.now() + skewMs),
    ...log,
  });
});

afterAll(async () => {
  database.up();
  await service?.stop();
  await proxy?.close();
  await facilitator?.close();
  await rpc?.close();
  await chain?.stop();
  await db?.drop();
});

afterEach(async () => {
  delete facilitator.faults.verify;
  delete facilitator.faults.settle;
  delete inProcess.verify;
  delete inProcess.settle;
  proxy.tap = undefined;
  rpc.tap = undefined;
  skewMs = 0;
  database.up();
  await proxy.forward();
  await rpc.forward();
  await chainRpc('evm_setAutomine', [true]);
  // A store that failed reports itself unhealthy until a statement succeeds (the background pass's job).
  await store().paymentState('any');
});

const store = () => service.percall.store;

async function signed(path: string): Promise<PaymentPayload> {
  return signPayment(chain.buyer.privateKey, await quote(`${service.url}${path}`));
}

function present(path: string, payload: PaymentPayload): Promise<Response> {
  return fetch(`${service.url}${path}`, { headers: paymentHeader(payload) });
}

async function errorOf(response: Response): Promise<string | undefined> {
  const body = (await response.json()) as { error?: string; code?: string };
  return body.error ?? body.code;
}

/** Nothing was charged and the payment is free to be presented again. */
async function expectNothingCharged(payload: PaymentPayload, mark: ChainMark): Promise<void> {
  expect(await store().paymentState(paymentKey(payload))).toBeUndefined();
  expect(await transfersSince(chain, mark)).toEqual([]);
}

/** The payment buys its result once with the facilitator healthy again; a second presentation is refused. */
async function buysOnce(path: string, payload: PaymentPayload, echo: string): Promise<void> {
  const bought = await present(path, payload);
  expect(bought.status).toBe(200);
  expect(await bought.json()).toMatchObject({ echo });
  const again = await present(path, payload);
  expect(again.status).toBe(402);
  expect(await errorOf(again)).toBe('payment_already_used');
}

/**
 * A settlement whose outcome the facilitator could not tell, although its transfer landed. The gate
 * asks the chain at once: found, the caller gets its result now (200, the transfer's hash). Not
 * found yet: 503 settlement-pending, no result; after a reconciliation pass the ledger has its row and
 * the payer collects the result once with the same payment. Either way one transfer, one row, one
 * result, and a further presentation is refused.
 */
async function pendingThenRedeemedOnce(path: string, payload: PaymentPayload, response: Response, echo: string, mark: ChainMark, via: 'pass' | 'presentation' = 'pass'): Promise<void> {
  if (response.status === 200) {
    const transfers = await transfersSince(chain, mark);
    expect(transfers).toHaveLength(1);
    expect(await response.json()).toMatchObject({ echo });
    expect(settlementOf(response)).toMatchObject({ success: true, transaction: transfers[0]!.txHash });
    const again = await present(path, payload);
    expect(again.status).toBe(402);
    expect(await errorOf(again)).toBe('payment_already_used');
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
    return;
  }
  expect(response.status).toBe(503);
  expect(await errorOf(response)).toBe('settlement-pending');
  expect(response.headers.get('retry-after')).toBeTruthy();
  const key = paymentKey(payload);
  expect(await store().paymentState(key)).toBe('pending');
  const transfers = await transfersSince(chain, mark);
  expect(transfers).toHaveLength(1);

  if (via === 'pass') {
    await service.percall.reconciler.runOnce();
    expect(await store().paymentState(key)).toBe('settled');
    expect(await store().settlement(key)).toMatchObject({ txHash: transfers[0]!.txHash, amount: '10000' });
  }
  const collected = await present(path, payload);
  expect(collected.status).toBe(200);
  expect(await collected.json()).toMatchObject({ echo });
  expect(settlementOf(collected)).toMatchObject({ success: true, transaction: transfers[0]!.txHash });
  const third = await present(path, payload);
  expect(third.status).toBe(402);
  expect(await errorOf(third)).toBe('payment_already_used');
  const { rows } = await ledgerMatchesChain(chain, mark, store());
  expect(rows).toHaveLength(1);
}

/** A raw JSON-RPC call to the chain itself (not through the proxy). */
async function chainRpc(method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** The payer collects the result of its settled payment once; a further presentation is refused. */
async function collectsOnce(path: string, payload: PaymentPayload, echo: string, txHash: string): Promise<void> {
  const collected = await present(path, payload);
  expect(collected.status).toBe(200);
  expect(await collected.json()).toMatchObject({ echo });
  expect(settlementOf(collected)).toMatchObject({ success: true, transaction: txHash });
  const again = await present(path, payload);
  expect(again.status).toBe(402);
  expect(await errorOf(again)).toBe('payment_already_used');
}

describe('facilitator down', () => {
  it('refusing connections: 503 with Retry-After and nothing charged; back up, the same payment buys the result once', async () => {
    const path = '/api/v1/paid/echo?fault=refused';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    await proxy.refuse();
    const refused = await present(path, payload);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    await expectNothingCharged(payload, mark);

    await proxy.forward();
    await buysOnce(path, payload, 'fault=refused');
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });

  it('hanging (accepts, never answers): 503 within the timeout, nothing charged; back up, the same payment buys once', async () => {
    const path = '/api/v1/paid/echo?fault=hung';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    await proxy.blackhole({ cut: true });
    const hung = await present(path, payload);
    expect(hung.status).toBe(503);
    await expectNothingCharged(payload, mark);

    await proxy.forward();
    await buysOnce(path, payload, 'fault=hung');
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });

  it('refusing connections between verify and settle: nothing was broadcast, 503, nothing charged; the payment buys once later', async () => {
    const path = '/api/v1/paid/echo?fault=refused-at-settle';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    const settleCalls = facilitator.calls.settle;
    inProcess.verify = async (real) => {
      const verified = await real();
      await proxy.refuse();
      await sleep(20); // the client sees its pooled sockets close before settling
      return verified;
    };
    const refused = await present(path, payload);
    expect(refused.status).toBe(503);
    expect(facilitator.calls.settle).toBe(settleCalls);
    await expectNothingCharged(payload, mark);

    delete inProcess.verify;
    await proxy.forward();
    await buysOnce(path, payload, 'fault=refused-at-settle');
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });
});

describe('facilitator slow beyond its timeout', () => {
  it('on verify: 503, nothing charged; the same payment buys once when it is quick again', async () => {
    const path = '/api/v1/paid/echo?fault=slow-verify';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.verify = async (real) => {
      await sleep(TIMEOUT_MS + 500);
      return real();
    };
    const slow = await present(path, payload);
    expect(slow.status).toBe(503);
    expect(slow.headers.get('retry-after')).toBeTruthy();
    await expectNothingCharged(payload, mark);

    delete facilitator.faults.verify;
    await buysOnce(path, payload, 'fault=slow-verify');
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });

  it('on settle, after its broadcast: pending, money moved once; reconciled, the payer collects the result once', async () => {
    const path = '/api/v1/paid/echo?fault=slow-settle';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.settle = async (real) => {
      const settled = await real();
      await sleep(TIMEOUT_MS + 1000);
      return settled;
    };
    const slow = await present(path, payload);
    await pendingThenRedeemedOnce(path, payload, slow, 'fault=slow-settle', mark);
  });
});

describe('facilitator answering garbage', () => {
  const garbage: [string, unknown][] = [
    ['an empty object', {}],
    ['a string', 'yes'],
    ['null', null],
    ['an array', [true]],
    ['isValid as a string', { isValid: 'true', payer: '0x0' }],
  ];

  for (const [what, answer] of garbage) {
    it(`verify answering ${what} over HTTP: not a 500, nothing charged, the payment stays usable`, async () => {
      const path = `/api/v1/paid/echo?fault=verify-garbage-${encodeURIComponent(what)}`;
      const payload = await signed(path);
      const mark = await markChain(chain, store());
      facilitator.faults.verify = async () => answer;
      const response = await present(path, payload);
      expect([402, 503]).toContain(response.status);
      await expectNothingCharged(payload, mark);
    });
  }

  it('verify answering non-JSON over HTTP: 503, nothing charged; the payment buys once afterwards', async () => {
    const path = '/api/v1/paid/echo?fault=verify-html';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.verify = async () => new Response('<html>gateway</html>', { status: 200, headers: { 'content-type': 'text/html' } });
    const response = await present(path, payload);
    expect(response.status).toBe(503);
    await expectNothingCharged(payload, mark);
    delete facilitator.faults.verify;
    await buysOnce(path, payload, 'fault=verify-html');
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });

  for (const [what, answer] of [
    ['an empty object', {}],
    ['null', null],
  ] as const) {
    it(`verify answering ${what} in process: not a 500, nothing charged`, async () => {
      const path = `/api/v1/paid/echo?fault=verify-in-process-${encodeURIComponent(what)}`;
      const payload = await signed(path);
      const mark = await markChain(chain, store());
      inProcess.verify = async () => answer;
      const response = await present(path, payload);
      expect([402, 503]).toContain(response.status);
      await expectNothingCharged(payload, mark);
    });
  }

  it('settle answering {success: "yes"} over HTTP after a real settlement: pending, reconciled, redeemable once', async () => {
    const path = '/api/v1/paid/echo?fault=settle-garbage-http';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.settle = async (real) => {
      await real();
      return { success: 'yes' };
    };
    const response = await present(path, payload);
    await pendingThenRedeemedOnce(path, payload, response, 'fault=settle-garbage-http', mark);
  });

  it('settle answering {success: "yes"} in process after a real settlement: never a result without its ledger row', async () => {
    const path = '/api/v1/paid/echo?fault=settle-garbage-in-process';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    inProcess.settle = async (real) => {
      await real();
      return { success: 'yes' };
    };
    const response = await present(path, payload);
    expect(response.status).not.toBe(500);
    await response.arrayBuffer();
    await service.percall.reconciler.runOnce();
    // Whatever the call answered, the money that moved has exactly its row, and nothing moved twice.
    const { rows } = await ledgerMatchesChain(chain, mark, store());
    expect(rows).toHaveLength(1);
  });

  it('settle claiming success with an empty transaction hash after a real settlement: the ledger still matches the chain', async () => {
    const path = '/api/v1/paid/echo?fault=settle-no-hash';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.settle = async (real) => {
      await real();
      return { success: true, transaction: '', network: chain.network, payer: chain.buyer.address };
    };
    const response = await present(path, payload);
    expect(response.status).not.toBe(500);
    await response.arrayBuffer();
    await service.percall.reconciler.runOnce();
    const { rows } = await ledgerMatchesChain(chain, mark, store());
    expect(rows).toHaveLength(1);
  });
});

describe('facilitator failing after its broadcast', () => {
  it('HTTP 500 after the real settlement: pending, reconciled, redeemable once', async () => {
    const path = '/api/v1/paid/echo?fault=settle-500';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.settle = async (real) => {
      await real();
      return new Response('internal error', { status: 500 });
    };
    const response = await present(path, payload);
    await pendingThenRedeemedOnce(path, payload, response, 'fault=settle-500', mark);
  });

  it('a generic Error in process after the real settlement: pending; presenting the payment again resolves it and collects once', async () => {
    const path = '/api/v1/paid/echo?fault=settle-throws';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    inProcess.settle = async (real) => {
      await real();
      throw new Error('facilitator exploded after broadcasting');
    };
    const response = await present(path, payload);
    delete inProcess.settle;
    // No reconciliation pass: the payer's own retry checks the chain.
    await pendingThenRedeemedOnce(path, payload, response, 'fault=settle-throws', mark, 'presentation');
  });

  it('a definite failure (success: false) although its transfer landed: the money is never left without a row', async () => {
    const path = '/api/v1/paid/echo?fault=settle-false-after-broadcast';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    facilitator.faults.settle = async (real) => {
      await real();
      return { success: false, errorReason: 'unexpected_settle_error', transaction: '', network: chain.network };
    };
    const response = await present(path, payload);
    expect(response.status).not.toBe(500);
    await response.arrayBuffer();
    delete facilitator.faults.settle;
    await service.percall.reconciler.runOnce();
    const { rows } = await ledgerMatchesChain(chain, mark, store());
    expect(rows).toHaveLength(1);
    // The payer gets what it paid for once: at once (the gate found the transfer) or by presenting it again.
    if (response.status !== 200) expect((await present(path, payload)).status).toBe(200);
    expect((await present(path, payload)).status).toBe(402);
  });
});
describe('the RPC going down in the middle of a settlement', () => {
  it('cut once the broadcast was answered: pending, money moved once; RPC back, reconciled, redeemable once', async () => {
    const path = '/api/v1/paid/echo?fault=rpc-cut-after-broadcast';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    // The broadcast goes through and is answered; the RPC is gone from the next request on (the receipt).
    let phase: 'idle' | 'broadcast' | 'answered' | 'cut' = 'idle';
    rpc.tap = (direction, chunk) => {
      if (direction === 'up' && phase === 'idle' && chunk.includes('eth_sendRawTransaction')) phase = 'broadcast';
      else if (direction === 'down' && phase === 'broadcast') phase = 'answered';
      else if (direction === 'up' && phase === 'answered') {
        phase = 'cut';
        void rpc.refuse();
        return 'drop';
      }
    };
    const response = await present(path, payload);
    expect(phase).toBe('cut');
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toBe('settlement-pending');
    const key = paymentKey(payload);
    expect(await store().paymentState(key)).toBe('pending');
    const transfers = await transfersSince(chain, mark);
    expect(transfers).toHaveLength(1);

    // With the RPC still down nothing can be judged: the payment stays pending, neither failed nor released.
    await service.percall.reconciler.runOnce();
    expect(await store().paymentState(key)).toBe('pending');
    expect((await present(path, payload)).status).toBe(503);

    await rpc.forward();
    await service.percall.reconciler.runOnce();
    expect(await store().paymentState(key)).toBe('settled');
    await collectsOnce(path, payload, 'fault=rpc-cut-after-broadcast', transfers[0]!.txHash);
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });

  it('cut after the broadcast reached the chain but before its answer: the money that moved is recorded and redeemable once', async () => {
    const path = '/api/v1/paid/echo?fault=rpc-cut-during-broadcast';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    // The chain receives (and mines) the transfer; its answer never reaches the facilitator.
    let phase: 'idle' | 'broadcast' | 'cut' = 'idle';
    rpc.tap = (direction, chunk) => {
      if (direction === 'up' && phase === 'idle' && chunk.includes('eth_sendRawTransaction')) phase = 'broadcast';
      else if (direction === 'down' && phase === 'broadcast') {
        phase = 'cut';
        void rpc.refuse();
        return 'drop';
      }
    };
    const response = await present(path, payload);
    expect(phase).toBe('cut');
    expect(response.status).not.toBe(500);
    expect(response.status).not.toBe(200);
    await response.arrayBuffer();
    const transfers = await transfersSince(chain, mark);
    expect(transfers).toHaveLength(1);

    await rpc.forward();
    await service.percall.reconciler.runOnce();
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
    await collectsOnce(path, payload, 'fault=rpc-cut-during-broadcast', transfers[0]!.txHash);
  });
});

describe('clock skew of ten minutes', () => {
  const pay = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });

  for (const [name, skew] of [
    ['ahead', MINUTES_10],
    ['behind', -MINUTES_10],
  ] as const) {
    it(`clock ${name}: a paid call is served and charged once, and the ledger equals the chain`, async () => {
      skewMs = skew;
      const mark = await markChain(chain, store());
      const response = await pay()(`${service.url}/api/v1/paid/echo?skew=${name}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ echo: `skew=${name}` });
      const { rows } = await ledgerMatchesChain(chain, mark, store());
      expect(rows).toHaveLength(1);
      expect(rows[0]!.txHash).toBe(settlementOf(response)!.transaction);
    });
  }

  it('a reconciler ten minutes ahead does not fail a pending settlement the chain can still mine; once mined it settles and is redeemed once', async () => {
    skewMs = MINUTES_10;
    const path = '/api/v1/paid/echo?fault=unmined';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    // The transfer waits in the mempool past the facilitator's receipt timeout.
    await chainRpc('evm_setAutomine', [false]);
    const response = await present(path, payload);
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toBe('settlement-pending');
    const key = paymentKey(payload);
    expect(await store().paymentState(key)).toBe('pending');

    // By the local clock validBefore (+5 min) has passed; by the chain's it has not.
    await service.percall.reconciler.runOnce();
    expect(await store().paymentState(key)).toBe('pending');
    expect(await transfersSince(chain, mark)).toEqual([]);

    await chainRpc('evm_setAutomine', [true]);
    await chainRpc('evm_mine');
    const transfers = await transfersSince(chain, mark);
    expect(transfers).toHaveLength(1);
    await service.percall.reconciler.runOnce();
    expect(await store().paymentState(key)).toBe('settled');
    await collectsOnce(path, payload, 'fault=unmined', transfers[0]!.txHash);
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });
});

interface Harness {
  service: RunningService & { dataDir: string };
  down(): Promise<void>;
  up(): Promise<void>;
  /** The database goes away right after the next real settlement (its transfer mined). */
  downAfterSettle(): void;
}

/** The same fault cases against whichever store the harness takes away. */
function databaseFaults(harness: () => Harness): void {
  const store = () => harness().service.percall.store;
  const url = (path: string) => `${harness().service.url}${path}`;
  const signed = async (path: string): Promise<PaymentPayload> => signPayment(chain.buyer.privateKey, await quote(url(path)));
  const present = (path: string, payload: PaymentPayload) => fetch(url(path), { headers: paymentHeader(payload) });

  it('down before the call: 503 with Retry-After, nothing charged; back, the same payment buys once', async () => {
    const h = harness();
    const path = '/api/v1/paid/echo?fault=db-down-before';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    await h.down();
    for (let i = 0; i < 2; i++) {
      // The first call finds the database gone; the next is refused before anything is reserved.
      const refused = await present(path, payload);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBeTruthy();
    }
    expect(await transfersSince(chain, mark)).toEqual([]);

    await h.up();
    // The background pass (heartbeat) is what notices the database is back.
    await h.service.percall.reconciler.runOnce();
    const bought = await present(path, payload);
    expect(bought.status).toBe(200);
    expect(await bought.json()).toMatchObject({ echo: 'fault=db-down-before' });
    expect((await present(path, payload)).status).toBe(402);
    expect((await ledgerMatchesChain(chain, mark, store())).rows).toHaveLength(1);
  });

  it('down between the settlement and its ledger write: the result still reaches the caller (or stays redeemable); back and reconciled, exactly one ledger row', async () => {
    const h = harness();
    const path = '/api/v1/paid/echo?fault=db-down-after-settle';
    const payload = await signed(path);
    const mark = await markChain(chain, store());
    h.downAfterSettle();
    const response = await present(path, payload);
    const transfers = await transfersSince(chain, mark);
    expect(transfers).toHaveLength(1);
    let delivered = false;
    if (response.status === 200) {
      expect(await response.json()).toMatchObject({ echo: 'fault=db-down-after-settle' });
      expect(settlementOf(response)).toMatchObject({ success: true, transaction: transfers[0]!.txHash });
      delivered = true;
    } else {
      // Not delivered now: it must be collectable once the database is back.
      expect(response.status).toBe(503);
      await response.arrayBuffer();
    }

    await h.up();
    await h.service.percall.reconciler.runOnce();
    const { rows } = await ledgerMatchesChain(chain, mark, store());
    expect(rows).toHaveLength(1);
    expect(rows[0]!.paymentKey).toBe(paymentKey(payload));
    const again = await present(path, payload);
    if (delivered) {
      expect(again.status).toBe(402);
    } else {
      expect(again.status).toBe(200);
      expect((await present(path, payload)).status).toBe(402);
    }
  });
}

describe('embedded database taken away and given back', () => {
  databaseFaults(() => ({
    service,
    down: async () => database.down(),
    up: async () => database.up(),
    downAfterSettle: () => {
      inProcess.settle = async (real) => {
        const settled = await real();
        database.down();
        return settled;
      };
    },
  }));
});

pgSuite('PostgreSQL behind a proxy, cut and restored', () => {
  let pgProxy: TcpProxy;
  let pgService: (RunningService & { dataDir: string }) | undefined;
  let cutAfterSettle = false;
  beforeAll(async () => {
    const direct = new URL(db!.url);
    pgProxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(db!.url);
    viaProxy.host = `127.0.0.1:${pgProxy.port}`;
    pgService = await startTestService({
      chain,
      // Its own gas wallet: the facilitator of the other service shares this chain.
      env: { ...ENV, DATABASE_URL: viaProxy.toString(), FACILITATOR_PRIVATE_KEY: DEV_ROLES.spare.privateKey },
      wrapFacilitator: (inner) => ({
        verify: (p, r) => inner.verify(p, r),
        settle: async (p, r) => {
          const settled = await inner.settle(p, r);
          if (cutAfterSettle) {
            cutAfterSettle = false;
            await pgProxy.refuse();
          }
          return settled;
        },
        getSupported: () => inner.getSupported(),
      }),
      ...log,
    });
  });
  afterEach(async () => {
    cutAfterSettle = false;
    await pgProxy.forward();
    await pgService!.percall.store.paymentState('any');
  });
  afterAll(async () => {
    await pgProxy?.forward();
    await pgService?.stop();
    await pgProxy?.close();
  });
  databaseFaults(() => ({
    service: pgService!,
    down: () => pgProxy.refuse(),
    up: () => pgProxy.forward(),
    downAfterSettle: () => void (cutAfterSettle = true),
  }));
});
