import { describe, expect, it } from 'vitest';
import { fakeContext, FAKE_NOW } from '../../kit/fake-context.ts';
import { ProductInputError, UpstreamError } from '../../kit/index.ts';
import type { AnalyticsExecution, ChainIndex, IndexQueryOutcome, QueryResult, SavedQuery } from '../../kit/chain-index.ts';
import { analyticsQuery } from './index.ts';

const RESULT: QueryResult = { columns: [{ name: 'n', type: 'BIGINT' }], rows: [[3]], row_count: 1, truncated: false };

/** An index answering every query with `outcome`, recording what it was asked. */
function fakeIndex(outcome: IndexQueryOutcome, saved: SavedQuery[] = []) {
  const asked: { chain: string; sql: string }[] = [];
  const stored: AnalyticsExecution[] = [];
  const index: ChainIndex = {
    chains: () => new Map([['base', 'eip155:31337']]),
    query: async (chain, sql) => {
      asked.push({ chain, sql });
      return outcome;
    },
    check: async () => ({ kind: 'ok' }),
    savedQuery: async (id) => saved.find((q) => q.id === id),
    saveExecution: async (e) => {
      const execution = { ...e, id: '01KAQZ3W8M6TG7V1Y2C4N5P9RX', executedAt: e.executedAt.toISOString(), expiresAt: new Date(e.executedAt.getTime() + 86_400_000).toISOString() };
      stored.push(execution);
      return execution;
    },
  };
  return { index, asked, stored };
}

const run = (input: Record<string, unknown>, index?: ChainIndex) => analyticsQuery.run(analyticsQuery.input.parse(input), fakeContext(index ? { index } : {}));

describe('analytics-query', () => {
  it('runs the SQL in the chain asked for and returns the result with a stored execution', async () => {
    const { index, asked, stored } = fakeIndex({ kind: 'ok', result: RESULT, indexedBlock: 41, elapsedMs: 3 });
    const output = await run({ query: '  SELECT count(*) AS n FROM blocks  ' }, index);
    expect(asked).toEqual([{ chain: 'base', sql: 'SELECT count(*) AS n FROM blocks' }]);
    expect(output).toEqual({
      execution_id: '01KAQZ3W8M6TG7V1Y2C4N5P9RX',
      chain: 'base',
      network: 'eip155:31337',
      indexed_block: 41,
      saved_query_id: null,
      executed_at: FAKE_NOW.toISOString(),
      expires_at: new Date(FAKE_NOW.getTime() + 86_400_000).toISOString(),
      result: RESULT,
    });
    expect(analyticsQuery.output.parse(output)).toEqual(output);
    expect(stored).toHaveLength(1);
  });

  it('a number runs the saved query of that number', async () => {
    const saved = [{ id: 3, name: 'blocks', description: '', sql: 'SELECT count(*) AS n FROM blocks', createdAt: FAKE_NOW.toISOString() }];
    const { index, asked } = fakeIndex({ kind: 'ok', result: RESULT, indexedBlock: 1, elapsedMs: 1 }, saved);
    const output = await run({ query: '3' }, index);
    expect(asked[0]!.sql).toBe(saved[0]!.sql);
    expect(output.saved_query_id).toBe(3);
    await expect(run({ query: '4' }, index)).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'query', code: 'unknown_saved_query' });
  });

  it("refused SQL is the caller's input (400/422 on field query): never charged", async () => {
    const { index, stored } = fakeIndex({ kind: 'refused', status: 422, message: 'only one SELECT statement is allowed; COPY is not' });
    const error = await run({ query: "COPY blocks TO '/tmp/x'" }, index).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProductInputError);
    expect(error).toMatchObject({ status: 422, field: 'query' });
    expect(stored).toHaveLength(0);
    const timeout = fakeIndex({ kind: 'refused', status: 422, code: 'query_timeout', message: 'the query ran longer than 10 s' });
    await expect(run({ query: 'SELECT 1' }, timeout.index)).rejects.toMatchObject({ status: 422, code: 'query_timeout' });
  });

  it('an index that is busy or gone is ours: 503 or 502, never charged', async () => {
    await expect(run({ query: 'SELECT 1' }, fakeIndex({ kind: 'unavailable', busy: true, message: 'busy' }).index)).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
    await expect(run({ query: 'SELECT 1' }, fakeIndex({ kind: 'unavailable', message: 'worker stopped' }).index)).rejects.toMatchObject({ name: 'UpstreamError', status: 502 });
    await expect(run({ query: 'SELECT 1' })).rejects.toBeInstanceOf(UpstreamError);
  });

  it('a chain that is not indexed here is 422 chain_not_configured', async () => {
    await expect(run({ query: 'SELECT 1', chain: 'ethereum' }, fakeIndex({ kind: 'ok', result: RESULT, indexedBlock: 1, elapsedMs: 1 }).index)).rejects.toMatchObject({
      status: 422,
      field: 'chain',
      code: 'chain_not_configured',
    });
  });

  it('input: an empty query or an unknown chain is refused before payment', () => {
    expect(analyticsQuery.input.safeParse({ query: '   ' }).success).toBe(false);
    expect(analyticsQuery.input.safeParse({ query: 'SELECT 1', chain: 'solana' }).success).toBe(false);
    expect(analyticsQuery.input.safeParse({ query: 'x'.repeat(20_001) }).success).toBe(false);
    expect(analyticsQuery.input.parse({ query: 'SELECT 1' })).toEqual({ query: 'SELECT 1', chain: 'base' });
  });

  it('precheck (the unpaid 402): SQL the index would refuse is named on field query; a busy index lets the paid call decide', async () => {
    const precheck = (query: string, check: ChainIndex['check'], chain = 'base') => {
      const { index } = fakeIndex({ kind: 'ok', result: RESULT, indexedBlock: 1, elapsedMs: 1 }, [{ id: 3, name: 'n', description: '', sql: 'SELECT 1', createdAt: FAKE_NOW.toISOString() }]);
      return analyticsQuery.precheck!(analyticsQuery.input.parse({ query, chain }), { now: FAKE_NOW, index: { ...index, check } });
    };
    const refused = async () => ({ kind: 'refused' as const, status: 422 as const, message: 'COPY is not allowed' });
    await expect(precheck("COPY blocks TO '/tmp/x'", refused)).rejects.toMatchObject({ name: 'ProductInputError', status: 422, field: 'query' });
    await expect(precheck('SELECT * FROM', async () => ({ kind: 'refused', status: 400, message: 'syntax error' }))).rejects.toMatchObject({ status: 400, field: 'query' });
    await expect(precheck('SELECT 1', async () => ({ kind: 'unavailable', busy: true, message: 'busy' }))).resolves.toBeUndefined();
    await expect(precheck('3', refused)).resolves.toBeUndefined(); // a saved query was checked when saved
    await expect(precheck('4', refused)).rejects.toMatchObject({ status: 422, code: 'unknown_saved_query' });
    await expect(precheck('SELECT 1', refused, 'ethereum')).rejects.toMatchObject({ status: 422, field: 'chain', code: 'chain_not_configured' });
  });

  it('its output example satisfies its output schema', () => {
    expect(analyticsQuery.output.safeParse(analyticsQuery.outputExample).success).toBe(true);
  });
});
