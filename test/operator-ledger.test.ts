import { afterAll, describe, it } from 'vitest';
import { openPostgresStore } from '../src/store/postgres.ts';
import type { Store } from '../src/store/types.ts';
import { checkSpendCap } from './helpers/operator-ledger.ts';
import { freshDatabase } from './helpers/postgres.ts';

// The operator's daily spend cap across instances: two stores on one PostgreSQL reserving at once
// (the embedded store is checked on the service's own store in operator-payments.test.ts).

const stores: Store[] = [];
let drop: (() => Promise<void>) | undefined;
afterAll(async () => {
  for (const s of stores) await s.close();
  await drop?.();
});

describe('operator ledger (direction out) and the daily spend cap on PostgreSQL', () => {
  it('two instances reserving at once never pass the cap together', async (ctx) => {
    const db = await freshDatabase();
    if (!db) return ctx.skip();
    drop = db.drop;
    const [a, b] = [0, 1].map(() => openPostgresStore({ url: db.url, poolSize: 4, statementTimeoutMs: 5_000 }));
    stores.push(a!, b!);
    await a!.ensureSchema();
    await checkSpendCap(a!, b!, '2026-11-27', '2026-11-28');
  });
});
