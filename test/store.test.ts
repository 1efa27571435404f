import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import { bindLiterals } from '../src/store/literals.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import { StoreUnavailableError } from '../src/store/sql-store.ts';
import type { LedgerEntry, PaymentReservation, Store } from '../src/store/types.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { storeTemplate, tempDataDir } from './helpers/service.ts';
import { pooledStore } from './helpers/store-pool.ts';

function entry(key: string, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    paymentKey: key,
    payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    network: 'eip155:31337',
    scheme: 'exact',
    amount: '10000',
    asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    txHash: `0x${'ab'.repeat(32)}`,
    product: 'time',
    surface: 'http',
    settledAt: new Date('2026-01-02T03:04:05.678Z'),
    ...overrides,
  };
}

function reservation(key: string, overrides: Partial<PaymentReservation> = {}): PaymentReservation {
  return {
    key,
    product: 'time',
    surface: 'http',
    network: 'eip155:31337',
    scheme: 'exact',
    asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    amount: '10000',
    payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    validBefore: 2_000_000_000,
    owner: 'instance-a',
    ...overrides,
  };
}

/**
 * A fresh database of one kind: every `open()` opens that same database (a second open is a
 * restart). `restartable: false` lets a backend give one that lives only as long as its store.
 */
interface Backend {
  fresh(options: { restartable: boolean }): Promise<{ open(): Promise<Store> }>;
  teardown(): Promise<void>;
}

/** The store conformance suite: every implementation must behave the same. */
function conformance(name: string, makeBackend: () => Promise<Backend | undefined>) {
  describe(`store conformance: ${name}`, () => {
    let backend: Backend | undefined;
    const opened: Store[] = [];
    beforeAll(async () => {
      backend = await makeBackend();
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
    });
    afterAll(async () => {
      await backend?.teardown();
    });
    /** Opens a store on a fresh database; `reopen` opens the same database again. */
    const fresh = async (restartable = true) => {
      const db = await backend!.fresh({ restartable });
      const open = async () => {
        const store = await db.open();
        opened.push(store);
        return store;
      };
      return { store: await open(), reopen: open };
    };
    const open = async () => (await fresh(false)).store;
    const test = (title: string, fn: () => Promise<void>) =>
      it(title, async (ctx) => {
        if (!backend) return ctx.skip(); // no PostgreSQL server here (CI requires one)
        await fn();
      });

    test('exactly one of 20 concurrent reservations of the same payment wins', async () => {
      const store = await open();
      const results = await Promise.all(Array.from({ length: 20 }, () => store.reservePayment(reservation('k1'))));
      expect(results.filter((r) => r.reserved)).toHaveLength(1);
      expect(results.filter((r) => !r.reserved).every((r) => !r.reserved && r.state === 'verifying')).toBe(true);
    });

    test('a released reservation can be taken again; a settled one never', async () => {
      const store = await open();
      expect(await store.reservePayment(reservation('k2'))).toEqual({ reserved: true });
      await store.releasePayment('k2');
      expect(await store.reservePayment(reservation('k2'))).toEqual({ reserved: true });
      await store.markSettling('k2');
      await store.recordSettlement(entry('k2'), { delivered: true });
      await store.releasePayment('k2');
      expect(await store.reservePayment(reservation('k2'))).toEqual({ reserved: false, state: 'settled', delivered: true });
    });

    test('writes the ledger row with exact values and keeps it across a restart', async () => {
      const { store: first, reopen } = await fresh();
      await first.reservePayment(reservation('k3'));
      await first.recordSettlement(entry('k3', { amount: '123456789012345678901234567890' }), { delivered: true });
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const second = await reopen();
      expect(await second.settlement('k3')).toEqual(entry('k3', { amount: '123456789012345678901234567890' }));
      expect(await second.paymentState('k3')).toBe('settled');
    });

    test('never records a settlement twice; one whose reservation is gone (owner presumed dead) is recorded anyway', async () => {
      const store = await open();
      await store.recordSettlement(entry('orphan'), { delivered: true });
      expect(await store.paymentState('orphan')).toBe('settled');
      expect((await store.settlement('orphan'))?.txHash).toBe(entry('orphan').txHash);
      await expect(store.recordSettlement(entry('orphan'), { delivered: true })).rejects.toThrow(/already recorded/);
      await store.reservePayment(reservation('k4'));
      await store.recordSettlement(entry('k4'), { delivered: true });
      await expect(store.recordSettlement(entry('k4'), { delivered: true })).rejects.toThrow(/already recorded/);
    });

    test('an undelivered settlement is claimed by exactly one caller, and can be given back', async () => {
      const store = await open();
      await store.reservePayment(reservation('k5'));
      await store.recordSettlement(entry('k5'), { delivered: false });
      expect(await store.reservePayment(reservation('k5'))).toEqual({ reserved: false, state: 'settled', delivered: false });
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimDelivery('k5', 60_000)));
      expect(claims.filter((c) => c === 'claimed')).toHaveLength(1);
      await store.unclaimDelivery('k5');
      expect(await store.claimDelivery('k5', 60_000)).toBe('claimed');
    });

    test('a response handed over is in delivery until confirmed; unconfirmed past the limit, owed again', async () => {
      const store = await open();
      await store.reservePayment(reservation('k6'));
      await store.recordSettlement(entry('k6'), { delivered: true });
      expect(await store.claimDelivery('k6', 60_000)).toBe('in_delivery');
      // The process that handed it over died before confirming: past the limit it is owed once more.
      expect(await store.claimDelivery('k6', -1)).toBe('claimed');
      expect(await store.claimDelivery('k6', 60_000)).toBe('in_delivery');
      await store.confirmDelivery('k6');
      expect(await store.claimDelivery('k6', -1)).toBe('not_owed');
    });

    test('lists unresolved payments with what reconciliation needs; pending and failed transitions', async () => {
      const store = await open();
      await store.reservePayment(reservation('u1'));
      await store.reservePayment(reservation('u2', { owner: 'instance-b', validBefore: undefined, payer: undefined }));
      await store.markSettling('u2');
      await store.reservePayment(reservation('u3'));
      await store.markPending('u3', { txHash: '0x01', reason: 'settlement_timeout' });
      const rows = await store.unresolvedPayments();
      const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
      expect(byKey.u1).toMatchObject({ state: 'verifying', owner: 'instance-a', validBefore: 2_000_000_000, amount: '10000' });
      expect(byKey.u2).toMatchObject({ state: 'settling', owner: 'instance-b' });
      expect(byKey.u2!.validBefore).toBeUndefined();
      expect(byKey.u3).toMatchObject({ state: 'pending', txHash: '0x01' });
      await store.markFailed('u3', 'authorization expired unused');
      expect(await store.paymentState('u3')).toBe('failed');
      expect(await store.reservePayment(reservation('u3'))).toMatchObject({ reserved: false, state: 'failed' });
    });

    test('heartbeats tell live instances from dead ones', async () => {
      const store = await open();
      await store.heartbeat('alive');
      expect((await store.liveInstances(60_000)).has('alive')).toBe(true);
      expect((await store.liveInstances(-60_000)).has('alive')).toBe(false);
    });

    test('daily quotas hold under concurrency', async () => {
      const store = await open();
      const takes = await Promise.all(Array.from({ length: 10 }, () => store.consumeQuota('0xAbC', 'route-task', '2026-11-21', 3)));
      expect(takes.filter(Boolean)).toHaveLength(3);
      expect(await store.consumeQuota('0xabc', 'route-task', '2026-11-22', 3)).toBe(true);
      expect(await store.consumeQuota('0xabc', 'other', '2026-11-21', 0)).toBe(false);
    });

    test('telemetry counters add up; payers are counted once', async () => {
      const store = await open();
      await store.addTelemetry([{ metric: 'paid_calls', dimension: 'GET /x', value: 2 }], ['0xA', '0xB']);
      await store.addTelemetry([{ metric: 'paid_calls', dimension: 'GET /x', value: 3 }, { metric: 'challenges', dimension: '*', value: 7 }], ['0xa']);
      const snapshot = await store.telemetry();
      expect(snapshot.counters.paid_calls?.['GET /x']).toBe(5);
      expect(snapshot.counters.challenges?.['*']).toBe(7);
      expect(snapshot.uniquePayers).toBe(2);
      expect(snapshot.observingSince).toBeInstanceOf(Date);
    });

    test('a proof nonce is held by one request at a time, only for its route, only before it expires; spent or released after', async () => {
      const store = await open();
      const issue = (nonce: string, expiresInMs: number, client = 'c1') => store.issueProofNonce({ nonce, route: 'POST /x', client, issuedAt: new Date(), expiresAt: new Date(Date.now() + expiresInMs), budget: 5 });
      await issue('n1', 60_000);
      await issue('n2', -1000);
      expect(await store.proofNonceOpen('n1', 'POST /x')).toBe(true);
      expect(await store.holdProofNonce('n1', 'POST /y', 60_000)).toBe(false);
      const holds = await Promise.all(Array.from({ length: 10 }, () => store.holdProofNonce('n1', 'POST /x', 60_000)));
      expect(holds.filter(Boolean)).toHaveLength(1);
      // A request that was not served gives it back: the honest retry can hold it again.
      await store.releaseProofNonce('n1');
      expect(await store.holdProofNonce('n1', 'POST /x', 60_000)).toBe(true);
      await store.consumeProofNonce('n1');
      expect(await store.proofNonceOpen('n1', 'POST /x')).toBe(false);
      expect(await store.holdProofNonce('n1', 'POST /x', 60_000)).toBe(false);
      expect(await store.holdProofNonce('n2', 'POST /x', 60_000)).toBe(false);
      // A hold whose owner died lapses.
      await issue('n3', 60_000);
      expect(await store.holdProofNonce('n3', 'POST /x', -1)).toBe(true);
      expect(await store.holdProofNonce('n3', 'POST /x', 60_000)).toBe(true);
    });

    test('a client gets new proof nonces up to its budget, then its newest one again', async () => {
      const store = await open();
      const issued: Awaited<ReturnType<Store['issueProofNonce']>>[] = [];
      for (let i = 0; i < 8; i++) issued.push(await store.issueProofNonce({ nonce: `b${i}`, route: 'POST /x', client: 'flooder', issuedAt: new Date(Date.now() + i), expiresAt: new Date(Date.now() + 60_000), budget: 3 }));
      expect(new Set(issued.map((n) => n.nonce)).size).toBe(3);
      expect(issued.slice(3).every((n) => n.nonce === issued[2]!.nonce && n.expiresAt.getTime() === issued[2]!.expiresAt.getTime())).toBe(true);
      // Another client has its own budget.
      expect((await store.issueProofNonce({ nonce: 'other', route: 'POST /x', client: 'someone', issuedAt: new Date(), expiresAt: new Date(Date.now() + 60_000), budget: 3 })).nonce).toBe('other');
    });

    test('rate-limit windows count per bucket and client, and tell when they end', async () => {
      const store = await open();
      const hits = [];
      for (let i = 0; i < 5; i++) hits.push(await store.hitRateLimit('registration', '192.0.2.1', 3600));
      expect(hits.map((h) => h.hits)).toEqual([1, 2, 3, 4, 5]);
      expect(hits[0]!.resetAt.getTime()).toBe(hits[4]!.resetAt.getTime());
      expect(hits[0]!.resetAt.getTime()).toBeGreaterThan(Date.now());
      expect(hits[0]!.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);
      expect((await store.hitRateLimit('registration', '192.0.2.2', 3600)).hits).toBe(1);
      expect((await store.hitRateLimit('token', '192.0.2.1', 60)).hits).toBe(1);
    });

    test('expired registrations, proof nonces and revocations are purged', async () => {
      const store = await open();
      await store.createRegistration('reg_old', new Date(Date.now() - 1000));
      await store.createRegistration('reg_live', new Date(Date.now() + 60_000));
      await store.issueProofNonce({ nonce: 'old', route: 'POST /x', client: 'c', issuedAt: new Date(), expiresAt: new Date(Date.now() - 1000), budget: 5 });
      await store.revokeToken('jti_old', new Date(Date.now() - 1000));
      const purged = await store.purgeExpired();
      expect(purged).toMatchObject({ registrations: 1, proof_nonces: 1, revoked_tokens: 1 });
      expect(await store.registration('reg_live')).toBeDefined();
      expect(await store.registration('reg_old')).toBeUndefined();
    });

    test('signing keys: one active key even when instances race; rotation retires the old one', async () => {
      const store = await open();
      const key = (kid: string) => ({ kid, publicJwk: '{}', privateJwk: '{}' });
      const first = await Promise.all(['a', 'b', 'c'].map((kid) => store.addSigningKey(key(kid), { rotate: false })));
      expect(first.filter(Boolean)).toHaveLength(1);
      expect(await store.addSigningKey(key('d'), { rotate: true })).toBe(true);
      const keys = await store.signingKeys();
      expect(keys.filter((k) => !k.retiredAt).map((k) => k.kid)).toEqual(['d']);
      expect(keys).toHaveLength(2);
    });

    test('registrations and revocations', async () => {
      const store = await open();
      await store.createRegistration('reg_1', new Date('2030-01-01T00:00:00Z'));
      expect(await store.registration('reg_1')).toMatchObject({ id: 'reg_1', expiresAt: new Date('2030-01-01T00:00:00Z') });
      expect(await store.isRevoked('jti-1')).toBe(false);
      await store.revokeToken('jti-1', new Date(Date.now() + 3600_000));
      await store.revokeToken('jti-1', new Date(Date.now() + 3600_000));
      expect(await store.isRevoked('jti-1')).toBe(true);
    });

    test('stores hostile strings verbatim', async () => {
      const store = await open();
      const nasty = `x'); DROP TABLE ledger; -- \\ $1 "' ''`;
      await store.reservePayment(reservation(nasty, { product: nasty }));
      await store.recordSettlement(entry(nasty, { product: nasty, payer: nasty }), { delivered: true });
      expect(await store.settlement(nasty)).toMatchObject({ paymentKey: nasty, product: nasty, payer: nasty });
    });
  });
}

conformance('embedded (PGlite)', async () => ({
  fresh: async ({ restartable }) => {
    // From the run's migrated template: the conformance is about the SQL, not PGlite's initdb; on
    // disk only where the test restarts it.
    // A database that is never restarted lives in a reused engine (test/helpers/store-pool.ts).
    if (!restartable) return { open: () => pooledStore(storeTemplate()!) };
    const dir = await tempDataDir();
    return { open: () => openEmbeddedStore(dir, { template: storeTemplate() }) };
  },
  teardown: async () => {},
}));

conformance('PostgreSQL', async () => {
  const databases: { url: string; drop(): Promise<void> }[] = [];
  if (!(await freshDatabase().then((db) => db && databases.push(db)))) return undefined;
  let unused: (typeof databases)[number] | undefined = databases[0];
  return {
    fresh: async () => {
      const db = unused ?? (await freshDatabase())!;
      if (db !== unused) databases.push(db);
      unused = undefined;
      return { open: async () => openPostgresStore({ url: db.url, poolSize: 5, statementTimeoutMs: 5000 }) };
    },
    teardown: async () => {
      for (const db of databases) await db.drop();
    },
  };
});

describe('embedded store specifics', () => {
  it('one process at a time: a second open of the same directory is refused', async () => {
    const dir = await tempDataDir();
    const store = await openEmbeddedStore(dir, { template: storeTemplate() });
    try {
      await expect(openEmbeddedStore(dir)).rejects.toThrow(/in use/);
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL specifics', () => {
  it('an unreachable server: opening works, statements fail as StoreUnavailableError, nothing hangs', async () => {
    const store = openPostgresStore({ url: 'postgres://postgres@127.0.0.1:1/none', poolSize: 2, statementTimeoutMs: 1000 });
    try {
      await expect(store.reservePayment(reservation('x'))).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ensureSchema()).rejects.toThrow();
    } finally {
      await store.close();
    }
  });
});

describe('literal binding', () => {
  it('quotes strings, dates and numbers; never re-reads inserted text', () => {
    expect(bindLiterals('SELECT $1, $2, $3, $4, $10', ["it's", 5, null, new Date(0), ...Array(5).fill(0), '$1'])).toBe(
      `SELECT 'it''s', 5, NULL, '1970-01-01T00:00:00.000Z', '$1'`,
    );
    expect(() => bindLiterals('SELECT $2', ['a'])).toThrow();
    expect(() => bindLiterals('SELECT $1', ['a\0b'])).toThrow(/NUL/);
  });
});
