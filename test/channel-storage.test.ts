import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { InMemoryChannelStorage, type Channel, type ChannelUpdateResult } from '@x402/evm/batch-settlement/server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ErrInvalidChannelId, type BatchChannelStorage } from '../src/store/channel-storage.ts';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import { StoreUnavailableError, type SqlStore } from '../src/store/sql-store.ts';
import { freshDatabase } from './helpers/postgres.ts';

// The batch-settlement channel storage on percall's SQL store: the SDK's ChannelStorage contract
// (statuses as its InMemoryChannelStorage, exact round trip) on PGlite and PostgreSQL, and on
// PostgreSQL its atomicity across two instances sharing one database. Reproducible: fixed seed.
const SEED = 4021;

/** The run's migrated template (test/global-setup.ts): a memory store without PGlite's initdb. */
function storeTemplate(): string | undefined {
  try {
    return inject('storeTemplate');
  } catch {
    return undefined;
  }
}

let idCounter = 0;
/** A channel id no other test of this file uses (canonical, lowercase). */
function newId(): `0x${string}` {
  idCounter++;
  return `0x${randomBytes(28).toString('hex')}${idCounter.toString(16).padStart(8, '0')}`;
}

const hex = (text: string, bytes: number) => `0x${text.repeat(bytes)}` as `0x${string}`;

function fullChannel(channelId: string, overrides: Partial<Channel> = {}): Channel {
  return {
    channelId,
    channelConfig: {
      payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      payerAuthorizer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      receiver: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      receiverAuthorizer: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      withdrawDelay: 900,
      salt: hex('11', 32),
    },
    chargedCumulativeAmount: (2n ** 128n - 1n).toString(),
    signedMaxClaimable: (2n ** 128n - 1n).toString(),
    signature: hex('ab', 65),
    balance: '18446744073709551617',
    totalClaimed: '12',
    withdrawRequestedAt: 0,
    refundNonce: 3,
    onchainSyncedAt: 1_767_000_000_123,
    lastRequestTimestamp: 1_767_000_000_456,
    pendingRequest: { pendingId: 'pending-1', signedMaxClaimable: '20', expiresAt: 1_767_000_060_000 },
    ...overrides,
  };
}

function minimalChannel(channelId: string): Channel {
  const { onchainSyncedAt: _synced, pendingRequest: _pending, ...rest } = fullChannel(channelId);
  return rest;
}

/** What a JSON-backed storage gives back: keys whose value is undefined are absent. */
const asStored = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as `0x${string}`);
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as `0x${string}`);
const anyText = fc.string({ unit: 'binary', maxLength: 24 });
// Mostly what the SDK writes (decimal uint256), sometimes anything: the record must survive either way.
const amount = fc.oneof({ weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String) }, { weight: 1, arbitrary: anyText });
const time = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)) },
);
const arbitraryChannel = (channelId: string): fc.Arbitrary<Channel> =>
  fc
    .record(
      {
        channelConfig: fc.record({
          payer: address,
          payerAuthorizer: address,
          receiver: address,
          receiverAuthorizer: address,
          token: address,
          withdrawDelay: fc.integer({ min: 0, max: 2 ** 40 - 1 }),
          salt: bytes32,
        }, { noNullPrototype: true }),
        chargedCumulativeAmount: amount,
        signedMaxClaimable: amount,
        signature: fc.oneof(fc.uint8Array({ minLength: 65, maxLength: 65 }).map((b) => `0x${Buffer.from(b).toString('hex')}`), anyText),
        balance: amount,
        totalClaimed: amount,
        withdrawRequestedAt: time,
        refundNonce: fc.nat(),
        onchainSyncedAt: time,
        lastRequestTimestamp: time,
        pendingRequest: fc.record({ pendingId: anyText, signedMaxClaimable: amount, expiresAt: time }, { noNullPrototype: true }),
      },
      {
        noNullPrototype: true,
        requiredKeys: ['channelConfig', 'chargedCumulativeAmount', 'signedMaxClaimable', 'signature', 'balance', 'totalClaimed', 'withdrawRequestedAt', 'refundNonce', 'lastRequestTimestamp'],
      },
    )
    .map((rest) => ({ channelId, ...rest }));

/** Two stores on one database: two instances on PostgreSQL; the one process PGlite allows, twice. */
interface Backend {
  a: SqlStore;
  b: SqlStore;
  close(): Promise<void>;
}

function suite(name: string, open: () => Promise<Backend | undefined>) {
  describe(`channel storage: ${name}`, () => {
    let backend: Backend | undefined;
    let a: BatchChannelStorage;
    let b: BatchChannelStorage;
    beforeAll(async () => {
      backend = await open();
      if (!backend) return;
      a = backend.a.channelStorage();
      b = backend.b.channelStorage();
    });
    afterAll(async () => {
      await backend?.close();
    });
    const test = (title: string, fn: () => Promise<void>) =>
      it(title, async (ctx) => {
        if (!backend) return ctx.skip(); // no PostgreSQL server here (CI requires one)
        await fn();
      });

    test('a full and a minimal channel round-trip exactly, from either instance', async () => {
      for (const channel of [fullChannel(newId()), minimalChannel(newId())]) {
        const result = await a.updateChannel(channel.channelId, () => channel);
        expect(result.status).toBe('updated');
        expect(result.channel).toBe(channel); // the callback's own object, as the SDK's storages return it
        for (const storage of [a, b]) {
          const read = await storage.get(channel.channelId);
          expect(read).toStrictEqual(channel);
          expect(JSON.stringify(read)).toBe(JSON.stringify(channel)); // key order too
        }
      }
    });

    test('keys set to undefined (the SDK clears pendingRequest so) come back absent; ids are case-insensitive', async () => {
      const id = newId();
      const upper = `0x${id.slice(2).toUpperCase()}`;
      await a.updateChannel(upper, () => ({ ...fullChannel(id), pendingRequest: undefined, onchainSyncedAt: undefined }));
      const read = await b.get(id);
      expect(read).toStrictEqual(minimalChannel(id));
      expect(Object.keys(read!)).not.toContain('pendingRequest');
      expect(await b.get(upper)).toStrictEqual(read);
    });

    test("statuses match the SDK's InMemoryChannelStorage over any sequence of updates (property)", async () => {
      type Op = { slot: number; upper: boolean; kind: 'keep' | 'delete' | 'copy' | 'mutate-in-place' } | { slot: number; upper: boolean; kind: 'write'; channel: Channel };
      const op: fc.Arbitrary<Op> = fc.oneof(
        fc.record({ slot: fc.nat(2), upper: fc.boolean(), kind: fc.constantFrom('keep' as const, 'delete' as const, 'copy' as const, 'mutate-in-place' as const) }, { noNullPrototype: true }),
        fc.record({ slot: fc.nat(2), upper: fc.boolean(), kind: fc.constant('write' as const), channel: arbitraryChannel('0x') }, { noNullPrototype: true }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
          const ids = [newId(), newId(), newId()];
          const reference = new InMemoryChannelStorage();
          for (const [i, o] of ops.entries()) {
            const id = o.upper ? `0x${ids[o.slot]!.slice(2).toUpperCase()}` : ids[o.slot]!;
            const callback = (current: Channel | undefined): Channel | undefined => {
              switch (o.kind) {
                case 'keep':
                  return current;
                case 'delete':
                  return undefined;
                case 'copy':
                  return current && { ...current };
                case 'mutate-in-place':
                  // Both return `current` itself: 'unchanged'. (The in-memory storage keeps the mutation,
                  // its map holds that very object; a storage that reads fresh copies writes nothing.)
                  if (current) current.refundNonce += 1;
                  return current;
                case 'write':
                  return { ...o.channel, channelId: id };
              }
            };
            const storage = i % 2 === 0 ? a : b;
            const [expected, actual] = await Promise.all([reference.updateChannel(id, callback), storage.updateChannel(id, callback)]);
            const view = (r: ChannelUpdateResult) => ({ status: r.status, channel: asStored(r.channel) });
            if (o.kind !== 'mutate-in-place') expect(view(actual)).toStrictEqual(view(expected));
            else expect(actual.status).toBe(expected.status);
            if (o.kind === 'mutate-in-place' && expected.channel) {
              // Align the reference with what was (not) stored, then compare the whole state.
              await reference.updateChannel(id, (c) => c && { ...c, refundNonce: c.refundNonce - 1 });
            }
            for (const slot of ids) expect(await storage.get(slot)).toStrictEqual(asStored(await reference.get(slot)));
          }
        }),
        { numRuns: 20, seed: SEED },
      );
    });

    test('any channel round-trips exactly (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => arbitraryChannel(newId())),
          async (channel) => {
            await a.updateChannel(channel.channelId, () => channel);
            const read = await b.get(channel.channelId);
            expect(read).toStrictEqual(channel);
            expect(JSON.stringify(read)).toBe(JSON.stringify(channel));
          },
        ),
        { numRuns: 40, seed: SEED },
      );
    });

    test('an error thrown by the callback passes through unchanged; nothing is written, the channel stays usable', async () => {
      const id = newId();
      const channel = fullChannel(id);
      await a.updateChannel(id, () => channel);
      const boom = new TypeError('the callback failed');
      await expect(
        a.updateChannel(id, () => {
          throw boom;
        }),
      ).rejects.toBe(boom);
      const missing = newId();
      await expect(
        b.updateChannel(missing, () => {
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(backend!.a.healthy && backend!.b.healthy).toBe(true);
      expect(await b.get(id)).toStrictEqual(channel);
      expect(await b.get(missing)).toBeUndefined();
      // Locks were released with the rollback: the next update of either channel goes through at once.
      expect((await b.updateChannel(id, (c) => c && { ...c, refundNonce: 4 })).status).toBe('updated');
      expect((await a.updateChannel(missing, () => fullChannel(missing))).status).toBe('updated');
    });

    test("malformed channel ids are refused as the SDK's storages refuse them, before any callback", async () => {
      const reference = new InMemoryChannelStorage();
      for (const bad of ['0x12', `${'ab'.repeat(32)}`, `0x${'g'.repeat(64)}`, `0x${'a'.repeat(64)} `]) {
        await expect(reference.get(bad)).rejects.toThrow(ErrInvalidChannelId);
        await expect(a.get(bad)).rejects.toThrow(ErrInvalidChannelId);
        let called = false;
        await expect(a.updateChannel(bad, () => ((called = true), undefined))).rejects.toThrow(ErrInvalidChannelId);
        expect(called).toBe(false);
      }
    });

    test('list is ordered by id and pages; channelTotals sums charged and claimed as bigints', async () => {
      const before = await a.channelTotals();
      const prefix = `0x${'f'.repeat(54)}`; // sorts after every random id of this file (almost surely)
      const ids = ['0003', 'a001', '0001', 'ff02', '00b0'].map((s) => `${prefix}${s.padStart(10, '0')}`);
      const charged = [2n ** 130n, 5n, 0n, 7n, 2n ** 64n];
      for (const [i, id] of ids.entries()) {
        await (i % 2 ? a : b).updateChannel(id, () => fullChannel(id, { chargedCumulativeAmount: charged[i]!.toString(), totalClaimed: String(i) }));
      }
      const sorted = [...ids].sort();
      const start = `${prefix}${'0'.repeat(10)}`;
      expect((await a.list({ after: start })).map((c) => c.channelId)).toEqual(sorted);
      expect((await b.list()).map((c) => c.channelId).slice(-5)).toEqual(sorted);
      const page1 = await a.list({ after: start, limit: 2 });
      const page2 = await a.list({ after: page1.at(-1)!.channelId.toUpperCase().replace('0X', '0x'), limit: 2 });
      expect([...page1, ...page2].map((c) => c.channelId)).toEqual(sorted.slice(0, 4));
      expect(await a.list({ limit: 0 })).toEqual([]);
      await expect(a.list({ limit: -1 })).rejects.toThrow(RangeError);

      const after = await b.channelTotals();
      expect(after.channels - before.channels).toBe(5);
      expect(after.charged - before.charged).toBe(charged.reduce((x, y) => x + y));
      expect(after.claimed - before.claimed).toBe(0n + 1n + 2n + 3n + 4n);
      await a.updateChannel(ids[0]!, () => undefined);
      const deleted = await a.channelTotals();
      expect(after.charged - deleted.charged).toBe(charged[0]);
      expect(after.channels - deleted.channels).toBe(1);
    });

    test('20 concurrent increments through two instances: none is lost', async () => {
      const id = newId();
      const base = 2n ** 100n;
      await a.updateChannel(id, () => fullChannel(id, { chargedCumulativeAmount: base.toString(), pendingRequest: undefined }));
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).updateChannel(id, (current) => current && { ...current, chargedCumulativeAmount: (BigInt(current.chargedCumulativeAmount) + 7n).toString() }),
        ),
      );
      expect(results.every((r) => r.status === 'updated')).toBe(true);
      expect((await a.get(id))?.chargedCumulativeAmount).toBe((base + 20n * 7n).toString());
      // Each racer saw a distinct predecessor: the results are the 20 successive amounts.
      expect(new Set(results.map((r) => r.channel!.chargedCumulativeAmount)).size).toBe(20);
    });

    test('a compare-style callback raced from two instances accepts exactly once', async () => {
      const id = newId();
      const expected = '1000';
      await a.updateChannel(id, () => fullChannel(id, { chargedCumulativeAmount: expected }));
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).updateChannel(id, (current) =>
            current?.chargedCumulativeAmount === expected ? { ...current, chargedCumulativeAmount: '1001', signature: `racer-${i}` } : current,
          ),
        ),
      );
      const winners = results.filter((r) => r.status === 'updated');
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.status === 'unchanged')).toHaveLength(19);
      expect(await b.get(id)).toStrictEqual(winners[0]!.channel);
    });

    test('a missing channel created concurrently from two instances is created once', async () => {
      const id = newId();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).updateChannel(id, (current) => current ?? fullChannel(id, { signature: `creator-${i}` }))),
      );
      const creations = results.filter((r) => r.status === 'updated');
      expect(creations).toHaveLength(1);
      const stored = await a.get(id);
      expect(stored).toStrictEqual(creations[0]!.channel);
      // Every other racer saw the creator's record.
      for (const r of results.filter((x) => x.status === 'unchanged')) expect(r.channel).toStrictEqual(stored);
    });

    test('delete and re-create race: every update sees the latest committed state', async () => {
      const id = newId();
      // Toggle: delete when present, create when missing. Serialised, 20 toggles end where they began.
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).updateChannel(id, (current) => (current ? undefined : fullChannel(id, { refundNonce: i })))),
      );
      expect(results.filter((r) => r.status === 'updated')).toHaveLength(10);
      expect(results.filter((r) => r.status === 'deleted')).toHaveLength(10);
      expect(await a.get(id)).toBeUndefined();
    });
  });
}

suite('embedded (PGlite)', async () => {
  const store = await openEmbeddedStore('memory://', { template: storeTemplate() });
  return { a: store, b: store, close: () => store.close() };
});

suite('PostgreSQL, two instances', async () => {
  const db = await freshDatabase();
  if (!db) return undefined;
  const open = () => openPostgresStore({ url: db.url, poolSize: 5, statementTimeoutMs: 5000 });
  const a = open();
  const b = open();
  await Promise.all([a.ensureSchema(), b.ensureSchema()]);
  return {
    a,
    b,
    close: async () => {
      await Promise.all([a.close(), b.close()]);
      await db.drop();
    },
  };
});

describe('channel storage without a database', () => {
  it('an unreachable PostgreSQL server: every call fails as StoreUnavailableError, the callback never runs', async () => {
    const store = openPostgresStore({ url: 'postgres://postgres@127.0.0.1:1/none', poolSize: 2, statementTimeoutMs: 1000 });
    try {
      const storage = store.channelStorage();
      const id = newId();
      let called = false;
      await expect(storage.get(id)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(storage.list()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(storage.channelTotals()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(storage.updateChannel(id, () => ((called = true), undefined))).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(called).toBe(false);
      expect(store.healthy).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('a closed embedded store fails as StoreUnavailableError too', async () => {
    const store = await openEmbeddedStore('memory://', { template: storeTemplate() });
    const storage = store.channelStorage();
    expect(store.channelStorage()).toBe(storage); // one per store
    await store.close();
    await expect(storage.get(newId())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(storage.updateChannel(newId(), () => undefined)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
