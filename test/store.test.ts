import { afterEach, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../src/store/embedded.ts';
import { bindLiterals } from '../src/store/literals.ts';
import type { LedgerEntry, Store } from '../src/store/types.ts';
import { tempDataDir } from './helpers/service.ts';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
});

async function open(dir: string): Promise<Store> {
  const store = await openEmbeddedStore(dir);
  opened.push(store);
  return store;
}

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

const reservation = (key: string) => ({ key, product: 'time', surface: 'http' as const, network: 'eip155:31337' });

describe('embedded store (PGlite)', () => {
  it('exactly one of 20 concurrent reservations of the same payment wins', async () => {
    const store = await open(await tempDataDir());
    const results = await Promise.all(Array.from({ length: 20 }, () => store.reservePayment(reservation('k1'))));
    expect(results.filter((r) => r.reserved)).toHaveLength(1);
    expect(results.filter((r) => !r.reserved).every((r) => !r.reserved && r.state === 'verifying')).toBe(true);
  });

  it('a released reservation can be taken again; a settled one never', async () => {
    const store = await open(await tempDataDir());
    expect(await store.reservePayment(reservation('k2'))).toEqual({ reserved: true });
    await store.releasePayment('k2');
    expect(await store.reservePayment(reservation('k2'))).toEqual({ reserved: true });
    await store.markSettling('k2');
    await store.recordSettlement(entry('k2'));
    await store.releasePayment('k2');
    expect(await store.reservePayment(reservation('k2'))).toEqual({ reserved: false, state: 'settled' });
  });

  it('writes the ledger row with exact values and keeps it across a restart', async () => {
    const dir = await tempDataDir();
    const first = await open(dir);
    await first.reservePayment(reservation('k3'));
    await first.recordSettlement(entry('k3', { amount: '123456789012345678901234567890' }));
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = await open(dir);
    expect(await second.ledger()).toEqual([entry('k3', { amount: '123456789012345678901234567890' })]);
    expect(await second.paymentState('k3')).toBe('settled');
  });

  it('refuses to record a settlement without a reservation', async () => {
    const store = await open(await tempDataDir());
    await expect(store.recordSettlement(entry('nope'))).rejects.toThrow(/no reservation/);
  });

  it('after a crash, unsettled reservations are released and interrupted settlements parked as pending', async () => {
    const dir = await tempDataDir();
    const store = await open(dir);
    await store.reservePayment(reservation('verifying'));
    await store.reservePayment(reservation('settling'));
    await store.markSettling('settling');
    await store.reservePayment(reservation('pending'));
    await store.markPending('pending', { txHash: '0x01', reason: 'settlement_timeout' });
    // Simulate the process dying: close without releasing anything.
    await store.close();
    opened.splice(opened.indexOf(store), 1);

    const restarted = await open(dir);
    expect(await restarted.paymentState('verifying')).toBeUndefined();
    expect(await restarted.paymentState('settling')).toBe('pending');
    expect(await restarted.paymentState('pending')).toBe('pending');
  });

  it('one process at a time: a second open of the same directory is refused', async () => {
    const dir = await tempDataDir();
    await open(dir);
    await expect(openEmbeddedStore(dir)).rejects.toThrow(/in use/);
  });

  it('stores hostile strings verbatim', async () => {
    const store = await open('memory://');
    const nasty = `x'); DROP TABLE ledger; -- \\ $1 "' ''`;
    await store.reservePayment({ ...reservation(nasty), product: nasty });
    await store.recordSettlement(entry(nasty, { product: nasty, payer: nasty }));
    expect((await store.ledger())[0]).toMatchObject({ paymentKey: nasty, product: nasty, payer: nasty });
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
