import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, pad } from 'viem';
import { IndexDatabase } from './database.ts';
import { TOPICS, decodeBundle, emptyRows, type BlockBundle } from './decode.ts';
import { QueryEngine, jsonValue } from './query.ts';
import { checkTree } from './sql-guard.ts';

const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const wallets = ['0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222', '0x3333333333333333333333333333333333333333'];
const topic = (a: string) => pad(a as `0x${string}`, { size: 32 });

/** Block n with one USDC transfer of n × 1 USDC from wallet n%3 to wallet (n+1)%3. */
function block(n: number): BlockBundle {
  const hash = (x: number) => `0x${x.toString(16).padStart(64, '0')}`;
  const tx = `0x${(1000 + n).toString(16).padStart(64, '0')}`;
  const from = wallets[n % 3]!;
  const to = wallets[(n + 1) % 3]!;
  return {
    block: {
      number: `0x${n.toString(16)}`,
      hash: hash(n + 1),
      parentHash: hash(n),
      timestamp: `0x${(1_700_000_000 + n * 2).toString(16)}`,
      baseFeePerGas: '0x1',
      gasUsed: '0x5208',
      gasLimit: '0x1c9c380',
      miner: wallets[0]!,
      transactions: [{ hash: tx, from, to: USDC, value: '0x0', nonce: '0x0', input: '0xa9059cbb', type: '0x2', transactionIndex: '0x0' }],
    },
    receipts: [
      {
        transactionHash: tx,
        transactionIndex: '0x0',
        status: '0x1',
        gasUsed: '0x5208',
        logs: [{ address: USDC, topics: [TOPICS.transfer, topic(from), topic(to)], data: encodeAbiParameters([{ type: 'uint256' }], [BigInt(n) * 1_000_000n]), logIndex: '0x0', transactionHash: tx, transactionIndex: '0x0' }],
      },
    ],
  };
}

let db: IndexDatabase;
let engine: QueryEngine;
const BLOCKS = 30;

beforeAll(async () => {
  db = await IndexDatabase.open({ path: ':memory:', memoryLimit: '128MB', threads: 1, chains: ['base'] });
  const rows = emptyRows();
  for (let n = 0; n < BLOCKS; n++) decodeBundle(block(n), rows);
  await db.writeBlocks('base', rows, { from: 0n, to: BigInt(BLOCKS - 1), replace: false }, { chain: 'base', chainId: 31337, startBlock: 0n, headBlock: BigInt(BLOCKS - 1), headHash: null });
  engine = await QueryEngine.create(db, { timeoutMs: 1_500, maxRows: 100, maxBytes: 64 * 1024, concurrency: 2 }, '128MB');
});
afterAll(() => {
  engine?.close();
  db?.close();
});

describe('analytics SQL over the index', () => {
  it('answers a SELECT in the chain schema: columns with their types, exact integers, ISO times', async () => {
    const outcome = await engine.run('base', 'SELECT "from", count(*) AS n, sum(value) AS total, min(block_time) AS first FROM erc20_transfers GROUP BY 1 ORDER BY 1');
    expect(outcome.kind).toBe('ok');
    if (outcome.kind !== 'ok') return;
    expect(outcome.result.columns).toEqual([
      { name: 'from', type: 'VARCHAR' },
      { name: 'n', type: 'BIGINT' },
      { name: 'total', type: 'HUGEINT' },
      { name: 'first', type: 'TIMESTAMP' },
    ]);
    // By hand: wallet k sends in blocks n ≡ k (mod 3).
    const expected = wallets.map((w, k) => {
      const ns = Array.from({ length: BLOCKS }, (_, n) => n).filter((n) => n % 3 === k);
      return [w, ns.length, ns.reduce((a, n) => a + n * 1_000_000, 0), new Date((1_700_000_000 + ns[0]! * 2) * 1000).toISOString()];
    });
    expect(outcome.result.rows).toEqual(expected);
    expect(outcome.indexedBlock).toBe(BLOCKS - 1);
  });

  it('integer sums stay exact (HUGEINT as a number or, past 2^53, a decimal string)', async () => {
    const outcome = await engine.run('base', 'SELECT sum(value) AS total, (2::HUGEINT ** 100)::HUGEINT AS big FROM base.erc20_transfers');
    expect(outcome.kind === 'ok' && outcome.result.rows).toEqual([[(BLOCKS * (BLOCKS - 1)) / 2 * 1_000_000, (2n ** 100n).toString()]]);
  });

  it('WITH, VALUES, range() and information_schema are allowed', async () => {
    for (const sql of [
      'WITH t AS (SELECT number FROM blocks) SELECT count(*) FROM t',
      'SELECT * FROM (VALUES (1), (2)) v(x)',
      'SELECT sum(range) FROM range(10)',
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'base' ORDER BY 1",
      'FROM base.blocks SELECT max(number)',
    ]) {
      expect((await engine.run('base', sql)).kind, sql).toBe('ok');
    }
  });

  it.each([
    ["COPY blocks TO '/tmp/percall-leak.csv'", /COPY/],
    ["SELECT * FROM read_csv('/etc/passwd')", /read_csv/],
    ["SELECT * FROM '/etc/passwd'", /reading files/],
    ["ATTACH '/tmp/other.duckdb' AS other", /ATTACH/],
    ['INSTALL httpfs', /INSTALL/],
    ['LOAD httpfs', /LOAD/],
    ["SET memory_limit = '100GB'", /SET/],
    ['PRAGMA database_list', /PRAGMA/],
    ['SELECT 1; SELECT 2', /exactly one statement/],
    ["SELECT 1; COPY blocks TO '/tmp/x.csv'", /only one SELECT/],
    ['SELECT * FROM duckdb_databases()', /duckdb_databases/],
    ['SELECT * FROM duckdb_databases', /no such table/],
    ["SELECT current_setting('temp_directory')", /current_setting/],
    ["SELECT * FROM query('SELECT 1')", /query\(\)/],
    ['SELECT * FROM percall_index.cursors', /percall_index/],
    ['WITH duckdb_settings AS (SELECT 1) SELECT 1', /CTE/],
    ['DELETE FROM blocks', /DELETE/],
    ['CREATE TABLE x AS SELECT 1', /CREATE/],
    ['EXPLAIN SELECT 1', /EXPLAIN/],
    ['DESCRIBE blocks', /DESCRIBE/],
    ['SHOW TABLES', /SHOW/],
    ['CALL pragma_version()', /CALL/],
    ['SELECT * FROM blocks WHERE', /syntax error/],
  ])('refuses %s', async (sql, reason) => {
    const outcome = await engine.run('base', sql);
    expect(outcome.kind).toBe('refused');
    if (outcome.kind === 'refused') {
      expect([400, 422]).toContain(outcome.status);
      expect(outcome.message).toMatch(reason);
      expect(outcome.message).not.toMatch(/\/tmp|\/etc|duckdb\b.*\//);
    }
  });

  it('a statement that would run for minutes is interrupted at the time limit', async () => {
    const started = Date.now();
    const outcome = await engine.run('base', 'SELECT count(*) FROM range(1000000000) a, range(1000000000) b');
    expect(outcome).toMatchObject({ kind: 'refused', status: 422, code: 'query_timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The connection is usable again.
    expect((await engine.run('base', 'SELECT 1')).kind).toBe('ok');
  });

  it('a result of millions of rows is cut off at the row cap, the size cap likewise', async () => {
    const rows = await engine.run('base', 'SELECT * FROM range(10000000)');
    expect(rows.kind === 'ok' && [rows.result.row_count, rows.result.truncated]).toEqual([100, true]);
    const bytes = await engine.run('base', "SELECT repeat('x', 10000) FROM range(50)");
    expect(bytes.kind === 'ok' && bytes.result.truncated).toBe(true);
    expect(bytes.kind === 'ok' && JSON.stringify(bytes.result.rows).length).toBeLessThanOrEqual(64 * 1024);
    const exact = await engine.run('base', 'SELECT * FROM range(100)');
    expect(exact.kind === 'ok' && [exact.result.row_count, exact.result.truncated]).toEqual([100, false]);
  });

  it('a chain that is not indexed is refused as chain_not_configured', async () => {
    expect(await engine.run('ethereum', 'SELECT 1')).toMatchObject({ kind: 'refused', status: 422, code: 'chain_not_configured' });
  });

  it('the query runs read-only even if a write slipped past the guard', () => {
    // The guard refuses every tree that is not a single SELECT; its own check is exercised directly.
    expect(checkTree([{}, {}], { catalog: 'memory', chains: new Set(['base']), systemNames: new Set() })).toMatchObject({ ok: false });
  });

  it('DuckDB values become JSON without losing digits', () => {
    expect(jsonValue(2n ** 60n)).toBe('1152921504606846976');
    expect(jsonValue(42n)).toBe(42);
    expect(jsonValue(Number.NaN)).toBe('NaN');
  });
});
