import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { embeddedStoreOn } from '../../src/store/embedded.ts';
import type { Store } from '../../src/store/types.ts';

/**
 * Booted embedded engines, reused by the test files of one worker (they share modules: vitest.config.ts
 * sets isolate false). Booting PGlite is most of a test service's start; emptying a used engine back
 * to the template's content takes a few milliseconds. Every store handed out is a fresh database.
 */
const idle: PGlite[] = [];
const MAX_IDLE = 3;
let templateBlob: { path: string; blob: Promise<Blob> } | undefined;

/** A store on a fresh database from the migrated template at `path` (test/global-setup.ts). */
export async function pooledStore(path: string): Promise<Store> {
  const pg = idle.pop() ?? (await boot(path));
  let released = false;
  return embeddedStoreOn(pg, async () => {
    if (released) return;
    released = true;
    if (idle.length < MAX_IDLE && (await reset(pg).then(() => true, () => false))) idle.push(pg);
    else await pg.close();
  });
}

async function boot(path: string): Promise<PGlite> {
  if (templateBlob?.path !== path) templateBlob = { path, blob: readFile(path).then((bytes) => new Blob([bytes])) };
  const pg = await PGlite.create('memory://', { loadDataDir: await templateBlob.blob });
  // The template's own rows (applied migrations, seeded metadata), to put back after each use.
  const seeded: string[] = [];
  for (const table of await publicTables(pg)) {
    const rows = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM public."${table}"`);
    if (rows.rows[0]!.n > 0) seeded.push(table);
  }
  await pg.exec(['CREATE SCHEMA pool_seed', ...seeded.map((t) => `CREATE TABLE pool_seed."${t}" AS SELECT * FROM public."${t}"`)].join(';\n'));
  return pg;
}

async function reset(pg: PGlite): Promise<void> {
  const tables = await publicTables(pg);
  const seeded = (await pg.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'pool_seed'`)).rows.map((r) => r.t);
  await pg.exec(
    [
      'DEALLOCATE ALL',
      `TRUNCATE ${tables.map((t) => `public."${t}"`).join(', ')} RESTART IDENTITY`,
      ...seeded.map((t) => `INSERT INTO public."${t}" SELECT * FROM pool_seed."${t}"`),
    ].join(';\n'),
  );
}

async function publicTables(pg: PGlite): Promise<string[]> {
  return (await pg.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((r) => r.t);
}
