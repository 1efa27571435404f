import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * A fresh, empty PostgreSQL database for one test file, created through TEST_DATABASE_URL
 * (default: the local server, user postgres). When no server answers, PostgreSQL tests are skipped,
 * unless PERCALL_REQUIRE_POSTGRES is set (CI sets it): then they fail.
 */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    if (process.env.PERCALL_REQUIRE_POSTGRES) throw error;
    return undefined;
  }
  const name = `percall_t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export const postgresRequired = Boolean(process.env.PERCALL_REQUIRE_POSTGRES);
