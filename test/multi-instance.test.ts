import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, parseAbiItem, type Hex } from 'viem';
import { DEV_ROLES } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import type { SqlStore } from '../src/store/sql-store.ts';
import { METRICS, TOTAL } from '../src/telemetry/counters.ts';
import { startInstance, type Instance } from './helpers/instances.ts';
import { paymentHeader, quote, signPayment } from './helpers/payments.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

/**
 * Several percall processes sharing one PostgreSQL and one chain. Each instance has its own gas
 * wallet (nonces are per process). Skipped without a PostgreSQL server, except in CI.
 */
const db = await freshDatabase();
const suite = db ? describe : describe.skip;

let chain: DevChain;
let store: SqlStore;
const instances: Instance[] = [];

function instanceEnv(gasWallet: Hex): Record<string, string> {
  return {
    DEV_RPC_URL: chain.rpcUrl,
    DATABASE_URL: db!.url,
    FACILITATOR_PRIVATE_KEY: gasWallet,
    TELEMETRY_FLUSH_MS: '200',
    RECONCILE_INTERVAL_MS: '500',
    // Long enough that a CPU-starved CI machine does not declare a live instance dead.
    OWNER_TIMEOUT_MS: '4000',
  };
}

const WALLET_A = DEV_ROLES.facilitator.privateKey;
const WALLET_B = DEV_ROLES.spare.privateKey;

async function signedHeaders(url: string, n: number): Promise<Record<string, string>[]> {
  const required = await quote(url);
  return Promise.all(Array.from({ length: n }, () => signPayment(chain.buyer.privateKey, required).then(paymentHeader)));
}

/** Fires requests with bounded concurrency; a request whose instance died resolves to status 0. */
async function fire(requests: { url: string; headers: Record<string, string> }[], concurrency: number): Promise<number[]> {
  const statuses: number[] = new Array(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const i = next++;
        const r = requests[i]!;
        statuses[i] = await fetch(r.url, { headers: r.headers })
          .then(async (res) => (await res.arrayBuffer(), res.status))
          .catch(() => 0);
      }
    }),
  );
  return statuses;
}

async function telemetryTotal(metric: string): Promise<number> {
  return (await store.telemetry()).counters[metric]?.[TOTAL] ?? 0;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

suite('two instances, one PostgreSQL, one chain', () => {
  beforeAll(async () => {
    chain = await startTestChain();
    store = openPostgresStore({ url: db!.url, poolSize: 2, statementTimeoutMs: 5000 });
    instances.push(await startInstance(instanceEnv(WALLET_A)), await startInstance(instanceEnv(WALLET_B)));
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => undefined);
    await store?.close();
    await chain?.stop();
    await db?.drop();
  });

  it('the same payment sent 20 times across both instances: exactly one 200 and one settlement', async () => {
    const [a, b] = instances as [Instance, Instance];
    const before = await balances(chain);
    const ledgerBefore = (await store.ledger()).length;
    const [headers] = await signedHeaders(`${a.url}/api/v1/paid/time`, 1);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/api/v1/paid/time`, { headers: headers! }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    expect(before.buyer - (await balances(chain)).buyer).toBe(10_000n);
    expect((await store.ledger()).length).toBe(ledgerBefore + 1);
  });

  it('200 different payments over both instances: 200 ledger rows, 200 transfers, telemetry adds up', async () => {
    const [a, b] = instances as [Instance, Instance];
    await new Promise((r) => setTimeout(r, 500)); // let earlier counts flush
    const paidBefore = await telemetryTotal(METRICS.paidCalls);
    const revenueBefore = await telemetryTotal(METRICS.revenueAtomic);
    const before = await balances(chain);
    const ledgerBefore = (await store.ledger({ limit: 100_000 })).length;
    const headers = await signedHeaders(`${a.url}/api/v1/paid/time`, 200);
    const statuses = await fire(
      headers.map((h, i) => ({ url: `${(i % 2 ? a : b).url}/api/v1/paid/time`, headers: h })),
      10,
    );
    // Every status that is not 200, so a failure says what the call got.
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(before.buyer - (await balances(chain)).buyer).toBe(200n * 10_000n);
    expect((await balances(chain)).payTo - before.payTo).toBe(200n * 10_000n);
    expect((await store.ledger({ limit: 100_000 })).length).toBe(ledgerBefore + 200);
    await waitFor(async () => (await telemetryTotal(METRICS.paidCalls)) - paidBefore === 200, 'telemetry to flush');
    expect((await telemetryTotal(METRICS.revenueAtomic)) - revenueBefore).toBe(200 * 10_000);
  });

  it('an instance killed with SIGKILL mid-run: after restart and reconciliation every transfer has exactly one ledger row', async () => {
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const fromBlock = await client.getBlockNumber();
    const [a, b] = instances as [Instance, Instance];
    const headers = await signedHeaders(`${a.url}/api/v1/paid/echo`, 120);
    const run = fire(
      headers.map((h, i) => ({ url: `${(i % 2 ? a : b).url}/api/v1/paid/echo`, headers: h })),
      12,
    );
    await new Promise((r) => setTimeout(r, 400));
    await a.kill();
    await run;
    instances[0] = await startInstance(instanceEnv(WALLET_A));

    // The dead instance's unfinished payments are taken over: none stays in flight.
    await waitFor(async () => (await store.unresolvedPayments()).every((p) => p.state === 'pending'), 'reconciliation of the dead instance');
    const asset = chain.usdc;
    const authorizationState = parseAbiItem('function authorizationState(address, bytes32) view returns (bool)');
    const transfers = await client.getLogs({
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      address: chain.usdc,
      args: { from: chain.buyer.address, to: chain.payTo },
      fromBlock: fromBlock + 1n,
    });
    const ledger = await store.ledger({ limit: 100_000 });
    const ledgerTx = ledger.map((e) => e.txHash.toLowerCase());
    expect(transfers.length).toBeGreaterThan(0);
    for (const t of transfers) {
      expect(ledgerTx.filter((h) => h === t.transactionHash!.toLowerCase()), t.transactionHash!).toHaveLength(1);
    }
    expect(new Set(ledgerTx).size).toBe(ledgerTx.length);
    // What stays pending never reached the chain: it waits for its authorization to expire, then fails.
    for (const pending of await store.unresolvedPayments()) {
      const nonce = pending.key.split(':').at(-1) as Hex;
      expect(await client.readContract({ address: asset, abi: [authorizationState], functionName: 'authorizationState', args: [chain.buyer.address, nonce] })).toBe(false);
    }
  });
});

suite('PostgreSQL unreachable', () => {
  it('paid routes answer 503 with Retry-After, free routes keep working, nothing is served unpaid', async () => {
    const localChain = await startTestChain();
    const service = await startTestService({ chain: localChain, env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/percall' } });
    try {
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      expect((await fetch(`${service.url}/openapi.json`)).status).toBe(200);
      const before = await balances(localChain);
      for (const init of [{}, { headers: paymentHeader(await signPayment(localChain.buyer.privateKey, await quoteWhileDown(service.url, localChain))) }]) {
        const response = await fetch(`${service.url}/api/v1/paid/time`, init);
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(response.headers.get('retry-after')).toBeTruthy();
      }
      expect(await balances(localChain)).toEqual(before);
    } finally {
      await service.stop();
      await localChain.stop();
    }
  });
});

/** The quote a client would have kept from before the outage (built from the rail directly). */
async function quoteWhileDown(baseUrl: string, c: DevChain) {
  return {
    x402Version: 2,
    resource: { url: `${baseUrl}/api/v1/paid/time` },
    accepts: [{ scheme: 'exact', network: c.network, amount: '10000', asset: c.usdc, payTo: c.payTo, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }],
  };
}
