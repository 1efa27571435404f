/**
 * Several instances on one PostgreSQL database, one block index: only the instance holding the
 * index lease runs the index worker; the other answers index reads (a paid analytics query, the
 * index-backed products) through it; when the holder stops, the other takes the lease and indexes
 * itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http } from 'viem';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { fakeContext } from '../src/products/kit/fake-context.ts';
import { walletAnalyze } from '../src/products/chain/wallet-analyze/index.ts';
import { freePort } from './helpers/instances.ts';
import { paidPostJson } from './helpers/payments.ts';
import { freshDatabase, postgresRequired } from './helpers/postgres.ts';
import { startTestChain, startTestService } from './helpers/service.ts';

const database = await freshDatabase();
if (!database && postgresRequired) throw new Error('PostgreSQL is required (PERCALL_REQUIRE_POSTGRES)');

let chain: DevChain;
const instances: (RunningService & { dataDir: string })[] = [];

async function instance(): Promise<RunningService & { dataDir: string }> {
  const port = await freePort();
  const service = await startTestService({
    chain,
    env: {
      DATABASE_URL: database!.url,
      PORT: String(port),
      INDEX_CHAINS: 'base',
      INDEX_POLL_MS: '100',
      INDEX_PEER_URL: `http://127.0.0.1:${port}`,
      INDEX_PEER_TOKEN: 'index-peer-token-0123456789',
      INDEX_LEASE_RENEW_MS: '200',
    },
  });
  instances.push(service);
  return service;
}

/** The head block as one instance's index answers it (through the holder when it is not one). */
async function indexedHead(service: RunningService): Promise<number | undefined> {
  const outcome = await service.index!.query('base', 'SELECT max(number) FROM blocks');
  return outcome.kind === 'ok' ? (outcome.result.rows[0]?.[0] as number) : undefined;
}

async function until<T>(what: string, read: () => Promise<T | undefined>, ok: (v: T | undefined) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (ok(value)) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  if (!database) return;
  chain = await startTestChain();
});
afterAll(async () => {
  for (const s of instances) await s.stop().catch(() => undefined);
  await chain?.stop();
  await database?.drop();
});

describe.skipIf(!database)('one block index for several instances (PostgreSQL)', () => {
  it('only the lease holder indexes; the other reads through it; the lease moves when the holder stops', async () => {
    const head = async () => Number(await createPublicClient({ transport: http(chain.rpcUrl) }).getBlockNumber());
    const a = await instance();
    await until('the first instance to index the chain', () => indexedHead(a), (v) => v !== undefined && v >= 0);
    const b = await instance();
    // a holds the lease: its worker runs; b runs none, and answers through a.
    expect(a.index!.workerPid).toBeDefined();
    expect(b.index!.workerPid).toBeUndefined();
    const current = await head();
    await until('both to answer the head', async () => [await indexedHead(a), await indexedHead(b)], (v) => v?.[0] === current && v?.[1] === current);

    // A paid analytics query and an index-backed product on b, answered from a's index.
    const response = await paidPostJson(chain, `${b.url}/api/v1/paid/analytics-query`, { query: 'SELECT count(*) AS blocks FROM blocks' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { rows: number[][] } }).result.rows[0]![0]).toBeGreaterThan(0);
    // The payment above, once indexed.
    const analyse = () => walletAnalyze.run(walletAnalyze.input.parse({ wallet_address: chain.buyer.address }), fakeContext({ now: new Date(), index: b.index! }));
    await until('the payment to be indexed and read through the holder', analyse, (out) => (out?.transfers.out ?? 0) > 0);
    expect(await b.index!.status().catch((e: Error) => e.message)).toMatch(/does not run the block index; the instance at http:\/\/127\.0\.0\.1:\d+ does/);

    // The holder stops (and gives the lease back): b takes it, runs its own worker and indexes the chain.
    await a.stop();
    instances.splice(instances.indexOf(a), 1);
    await until('the second instance to take the lease', async () => b.index!.workerPid, (pid) => pid !== undefined);
    const later = await head();
    await until('the second instance to index the chain', () => indexedHead(b), (v) => v === later);
  });
});
