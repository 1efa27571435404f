import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentPayload } from '@x402/core/types';
import type { DevChain } from '../src/devchain/stack.ts';
import { paymentKey } from '../src/payments/payment-key.ts';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import type { LedgerEntry, UnresolvedPayment } from '../src/store/types.ts';
import { freePort, startInstance, type Instance } from './helpers/instances.ts';
import { authorizationUsed, ledgerMatchesChain, markChain, type ChainMark } from './helpers/ledger-chain.ts';
import { paymentHeader, quote, settlementOf, signPayment } from './helpers/payments.ts';
import { startTestChain, tempDataDir } from './helpers/service.ts';

/**
 * The process itself going away while paid calls are in flight: killed outright (SIGKILL) and
 * restarted on the same data directory, or asked to stop (SIGTERM). The service runs as the
 * operator runs it (`percall start`, embedded store), on a test chain it joins with DEV_RPC_URL.
 */
let chain: DevChain;
const running: Instance[] = [];

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  // Only those still running: a process that already exited never reports it again.
  for (const instance of running) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.kill();
  await chain?.stop();
});

function instanceEnv(dataDir: string): Record<string, string> {
  return { DEV_RPC_URL: chain.rpcUrl, PERCALL_DATA_DIR: dataDir, RECONCILE_INTERVAL_MS: '300', FACILITATOR_TIMEOUT_MS: '3000', TELEMETRY_FLUSH_MS: '200' };
}

async function start(dataDir: string, port: number): Promise<Instance> {
  const instance = await startInstance(instanceEnv(dataDir), port);
  running.push(instance);
  return instance;
}

interface Outcome {
  payload: PaymentPayload;
  /** The request's own URL (the query carries its index). */
  url: string;
  status: number;
  body?: unknown;
  txHash?: string;
}

/** Fires one paid call per payload at once; a call whose process went away ends with status 0. `onServed` sees each 200 as it completes. */
function fire(url: string, payloads: PaymentPayload[], onServed: (count: number) => void): Promise<Outcome[]> {
  let served = 0;
  return Promise.all(
    payloads.map(async (payload, i): Promise<Outcome> => {
      const own = `${url}?i=${i}`;
      try {
        const response = await fetch(own, { headers: paymentHeader(payload) });
        const text = await response.text();
        const outcome: Outcome = { payload, url: own, status: response.status };
        if (response.status === 200) {
          outcome.body = JSON.parse(text);
          outcome.txHash = settlementOf(response)?.transaction.toLowerCase();
          onServed(++served);
        }
        return outcome;
      } catch {
        return { payload, url: own, status: 0 };
      }
    }),
  );
}

async function signedPayments(url: string, n: number): Promise<PaymentPayload[]> {
  const required = await quote(url);
  return Promise.all(Array.from({ length: n }, () => signPayment(chain.buyer.privateKey, required)));
}

function nonceOf(payload: PaymentPayload): `0x${string}` {
  return (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce;
}

/** Reads the embedded store of a stopped instance. */
async function readStore(dataDir: string): Promise<{ ledger: LedgerEntry[]; unresolved: UnresolvedPayment[] }> {
  const store = await openEmbeddedStore(dataDir);
  try {
    return { ledger: await store.ledger({ limit: 100_000 }), unresolved: await store.unresolvedPayments() };
  } finally {
    await store.close();
  }
}

/** Every 200 the clients got has its ledger row; every call not served charged nothing unless it stays collectable. */
function expectServedRecorded(outcomes: Outcome[], ledger: LedgerEntry[]): void {
  const byKey = new Map(ledger.map((e) => [e.paymentKey, e]));
  for (const o of outcomes.filter((o) => o.status === 200)) {
    const row = byKey.get(paymentKey(o.payload));
    expect(row, `ledger row of a served call (${o.txHash})`).toBeDefined();
    expect(row!.txHash.toLowerCase()).toBe(o.txHash);
  }
}

/** Waits (bounded) for a process to exit, returning its exit code. */
async function exitOf(instance: Instance, timeoutMs: number): Promise<number | null> {
  const { child } = instance;
  if (child.exitCode === null && child.signalCode === null) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms`)), timeoutMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  return child.exitCode;
}

describe('one process under load: killed, restarted on the same data directory, then asked to stop', () => {
  // One lifecycle shared by the steps below (each process start costs seconds): SIGKILL mid-run,
  // restart and collect, SIGTERM mid-run, then the stopped process's store against the chain.
  let dataDir: string;
  let url: string;
  let mark: ChainMark;
  let first: Instance;
  let restarted: Instance;
  const served: Outcome[] = [];
  let collected = 0;

  beforeAll(async () => {
    dataDir = await tempDataDir();
    first = await start(dataDir, await freePort());
    url = `${first.url}/api/v1/paid/echo`;
    mark = await markChain(chain, []);
  });

  it('SIGKILL with 40 paid calls in flight, restart: every call whose money moved is answered or collectable once', async () => {
    const payloads = await signedPayments(url, 40);
    let killed: Promise<void> | undefined;
    const outcomes = await fire(url, payloads, (count) => {
      if (count === 10) killed = first.kill();
    });
    await killed;
    served.push(...outcomes.filter((o) => o.status === 200));
    expect(served.length).toBeGreaterThanOrEqual(10);
    for (const o of served) expect(o.body).toMatchObject({ echo: new URL(o.url).search.slice(1) });

    // Same data directory and port; the restart reconciles what the dead process left before it quotes.
    restarted = await start(dataDir, Number(new URL(url).port));
    for (const o of outcomes.filter((o) => o.status !== 200)) {
      // Money moved only if the result can now be collected, once.
      if (!(await authorizationUsed(chain, nonceOf(o.payload)))) continue;
      const response = await fetch(o.url, { headers: paymentHeader(o.payload) });
      const body = (await response.json()) as { error?: string };
      expect(response.status, `a charged call collects its result (got ${body.error})`).toBe(200);
      expect(body).toMatchObject({ echo: new URL(o.url).search.slice(1) });
      const again = await fetch(o.url, { headers: paymentHeader(o.payload) });
      expect(again.status).toBe(402);
      await again.arrayBuffer();
      served.push({ ...o, status: 200, txHash: settlementOf(response)?.transaction.toLowerCase() });
      collected++;
    }
  });

  it('SIGTERM with 20 paid calls in flight: each gets its full answer or is refused without a charge, and the process exits with 0', async () => {
    const payloads = await signedPayments(url, 20);
    let terminated = false;
    const outcomes = await fire(url, payloads, (count) => {
      if (count === 3 && !terminated) {
        terminated = true;
        restarted.child.kill('SIGTERM');
      }
    });
    expect(terminated).toBe(true);
    expect(await exitOf(restarted, 20_000)).toBe(0);
    for (const o of outcomes) {
      if (o.status === 200) {
        expect(o.body).toMatchObject({ echo: new URL(o.url).search.slice(1) });
        served.push(o);
        continue;
      }
      // Not served: refused cleanly, nothing charged.
      expect([0, 503], 'status of a call not served').toContain(o.status);
      expect(await authorizationUsed(chain, nonceOf(o.payload)), 'a refused call was charged').toBe(false);
    }
  });

  it('afterwards the ledger equals the chain: one row per transfer, every 200 has its row, nothing unresolved reached the chain', async () => {
    const { ledger, unresolved } = await readStore(dataDir);
    const { rows } = await ledgerMatchesChain(chain, mark, ledger);
    expect(rows).toHaveLength(served.length);
    expect(collected).toBeLessThanOrEqual(rows.length);
    expectServedRecorded(served, ledger);
    // What stays unresolved never reached the chain (it fails once its authorization expires).
    for (const p of unresolved) expect(await authorizationUsed(chain, p.key.split(':').at(-1) as `0x${string}`)).toBe(false);
  });
});
