import { expect } from 'vitest';
import type { OutboundEntry } from '../../src/store/operator-ledger.ts';
import type { Store } from '../../src/store/types.ts';

const entry = (id: string, day: string, amount = '1000'): OutboundEntry => ({
  id: `${day}-${id}`,
  product: 'service-gateway',
  callerPaymentKey: `eip3009:caller-${day}-${id}`,
  resource: 'http://127.0.0.1:1/api/v1/paid/quote',
  network: 'eip155:31337',
  scheme: 'exact',
  asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  payTo: '0x1111111111111111111111111111111111111111',
  amount,
  payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  day,
});

/**
 * The ledger's `out` direction and the operator's daily spend cap on `day` (a day no other test
 * spends on), through two stores on one database: reservations made at once never pass the cap
 * together; a release gives back once; money that moved is never given back.
 */
export async function checkSpendCap(a: Store, b: Store, day: string, nextDay: string): Promise<void> {
  const cap = 3_500n;
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).operatorLedger().reserve(entry(`r${i}`, day), cap)));
  expect(results.filter(Boolean)).toHaveLength(3);
  expect(await a.operatorLedger().spent(day)).toBe(3_000n);
  // Another day has its own cap.
  expect(await a.operatorLedger().reserve(entry('other-day', nextDay, '3500'), cap)).toBe(true);
  const taken = (await a.operatorLedger().rows()).filter((r) => r.day === day);
  expect(taken.map((r) => r.state)).toEqual(['reserved', 'reserved', 'reserved']);
  const [first, second] = taken;
  await b.operatorLedger().signed(first!.id, '0xnonce');
  await b.operatorLedger().settled(first!.id, '0xtx', new Date());
  await b.operatorLedger().release(second!.id, 'not signed');
  await a.operatorLedger().release(second!.id, 'again');
  await a.operatorLedger().release(first!.id, 'settled rows stay');
  expect(await a.operatorLedger().spent(day)).toBe(2_000n);
  expect(await a.operatorLedger().rows({ callerPaymentKey: first!.callerPaymentKey })).toMatchObject([{ direction: 'out', state: 'settled', nonce: '0xnonce', txHash: '0xtx', amount: '1000' }]);
  expect(await b.operatorLedger().reserve(entry('after-release', day), cap)).toBe(true);
  expect(await b.operatorLedger().reserve(entry('over', day), cap)).toBe(false);
}
