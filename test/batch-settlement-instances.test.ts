import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { BATCH_SETTLEMENT_ADDRESS, batchSettlementAbi } from '../src/devchain/batch-settlement.ts';
import { devChain, DEV_ROLES } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import type { SqlStore } from '../src/store/sql-store.ts';
import { startInstance, type Instance } from './helpers/instances.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { balances, startTestChain } from './helpers/service.ts';

// batch-settlement across two percall processes on one PostgreSQL: the channel store serialises
// each channel across instances, and vouchers charged by a process that is then killed are still
// claimed. Skipped without a PostgreSQL server, except in CI.
const db = await freshDatabase();
const suite = db ? describe : describe.skip;

let chain: DevChain;
let store: SqlStore;
let a: Instance;
let b: Instance;

const env = (gasWallet: Hex) => ({
  DEV_RPC_URL: chain.rpcUrl,
  DATABASE_URL: db!.url,
  FACILITATOR_PRIVATE_KEY: gasWallet,
  RECONCILE_INTERVAL_MS: '500',
  OWNER_TIMEOUT_MS: '4000',
  // Claims are triggered by the test (a long interval) except where it waits for them.
  BATCH_CLAIM_INTERVAL_MS: '600000',
});

beforeAll(async () => {
  if (!db) return;
  chain = await startTestChain();
  store = openPostgresStore({ url: db.url, poolSize: 2, statementTimeoutMs: 5000 });
  [a, b] = await Promise.all([startInstance(env(DEV_ROLES.facilitator.privateKey)), startInstance(env(DEV_ROLES.spare.privateKey))]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await store?.close();
  await chain?.stop();
  await db?.drop();
});

const publicClient = () => createPublicClient({ chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl), cacheTime: 0 });

function buyer(calls: number) {
  const signer = toClientEvmSigner(privateKeyToAccount(chain.buyer.privateKey), publicClient());
  const salt = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex;
  const scheme = new BatchSettlementEvmScheme(signer, { salt, depositStrategy: ({ requestAmount }) => (BigInt(requestAmount) * BigInt(calls)).toString() });
  const client = new x402Client().register(chain.network, scheme);
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  return { client, payingFetch: wrapFetchWithPayment(fetch, client) };
}

const time = (instance: Instance) => `${instance.url}/api/v1/paid/time`;

suite('batch-settlement on two instances sharing PostgreSQL', () => {
  it('one voucher presented to both instances at once, 10 times over: each served exactly once', async () => {
    const { client, payingFetch } = buyer(30);
    expect((await payingFetch(time(a))).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const required = decodePaymentRequiredHeader((await fetch(time(a))).headers.get('payment-required')!);
      const payload = await client.createPaymentPayload({ ...required, accepts: required.accepts.filter((x) => x.scheme === 'batch-settlement') });
      const header = Buffer.from(JSON.stringify(payload)).toString('base64');
      const statuses = await Promise.all([a, b, a, b].map((instance) => fetch(time(instance), { headers: { 'payment-signature': header } }).then(async (r) => (await r.text(), r.status))));
      expect(statuses.filter((s) => s === 200), JSON.stringify(statuses)).toHaveLength(1);
      expect(statuses.filter((s) => s !== 200).every((s) => s === 402 || s === 409 || s === 503)).toBe(true);
      // The client learns the new cumulative from the terms it is sent back.
      await payingFetch(time(b)).then((r) => r.text());
    }
  });

  it('20 calls on one channel over both instances at once: every charge matches a served call', async () => {
    const { payingFetch } = buyer(40);
    expect((await payingFetch(time(a))).status).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => payingFetch(time(i % 2 ? b : a)).then(async (r) => (await r.text(), r.status))));
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const channels = await store.channelStorage().list();
    const charged = channels.reduce((sum, c) => sum + BigInt(c.chargedCumulativeAmount), 0n);
    const ledger = (await store.ledger({ limit: 1000 })).filter((e) => e.scheme === 'batch-settlement');
    expect(ledger.reduce((sum, e) => sum + BigInt(e.amount), 0n)).toBe(charged);
  });

  it('an instance killed after serving vouchers: a restarted one claims them; payTo, the contract and the ledger agree', async () => {
    const { payingFetch } = buyer(20);
    for (let i = 0; i < 5; i++) expect((await payingFetch(time(a))).status).toBe(200);
    await a.kill();
    const before = await balances(chain);
    const charged = (await store.channelStorage().list()).reduce((sum, c) => sum + BigInt(c.chargedCumulativeAmount) - BigInt(c.totalClaimed), 0n);
    expect(charged).toBeGreaterThan(0n);
    // The restarted process claims at once (a short interval) and settles to payTo.
    a = await startInstance({ ...env(DEV_ROLES.facilitator.privateKey), BATCH_CLAIM_INTERVAL_MS: '300' });
    for (let i = 0; (await balances(chain)).payTo - before.payTo < charged; i++) {
      if (i > 300) throw new Error('vouchers were not claimed after the restart');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await balances(chain)).payTo - before.payTo).toBe(charged);
    let claimedOnChain = 0n;
    for (const channel of await store.channelStorage().list()) {
      const onChain = await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: 'channels', args: [channel.channelId as Hex] });
      expect(onChain[1]).toBe(BigInt(channel.chargedCumulativeAmount));
      claimedOnChain += onChain[1];
    }
    const ledger = (await store.ledger({ limit: 1000 })).filter((e) => e.scheme === 'batch-settlement');
    expect(ledger.reduce((sum, e) => sum + BigInt(e.amount), 0n)).toBe(claimedOnChain);
  });
});
