/**
 * analytics-query: one read-only SQL statement (or the number of a saved query) over the block index
 * (src/index/: DuckDB, one schema per chain). The engine refuses anything but one SELECT over the
 * index's tables, runs it read-only with a time limit, a memory limit and row and size caps, and
 * the result is kept so the same execution can be fetched again free for 24 hours.
 *
 * Charged only for a result. The caller's SQL that is malformed (400) or refused (422: another
 * statement, a table or function that is not allowed, over the time or memory limit) and an unknown
 * saved query (422) are never charged; neither is an index that is not there or busy (502/503).
 */
import { z } from 'zod';
import { ProductInputError, UpstreamError, evmChain, product, type ProductContext } from '../../kit/index.ts';
import { ANALYTICS_EXECUTIONS_PATH as EXECUTIONS_PATH, ANALYTICS_SAVED_QUERIES_PATH as SAVED_QUERIES_PATH, type QueryResult } from '../../kit/chain-index.ts';

const result = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string().describe('SQL type as DuckDB names it, e.g. UBIGINT, HUGEINT, VARCHAR, TIMESTAMP, DECIMAL(38,6)') })).describe('Result columns, in order'),
  rows: z
    .array(z.array(z.unknown()))
    .describe(
      'Rows, each a list in column order. Integers are JSON numbers within ±(2^53−1) and decimal strings beyond (never a lost digit); DECIMAL values are decimal strings; timestamps ISO 8601 UTC; NULL is null',
    ),
  row_count: z.int().min(0).describe('Rows returned'),
  truncated: z.boolean().describe('True when the row cap or the size cap cut the result off (more rows would have followed)'),
});

const output = z.object({
  execution_id: z.string().describe(`Id of this execution; GET ${EXECUTIONS_PATH}/{execution_id} returns the same result free until expires_at`),
  chain: z.string().describe('Chain whose schema the query ran in by default'),
  network: z.string().describe('CAIP-2 network actually behind the chain name (dev mode: the local chain, eip155:31337)'),
  indexed_block: z.int().nullable().describe('Highest block of the chain in the index when the query ran (null when empty)'),
  saved_query_id: z.int().nullable().describe('The saved query run, when `query` was its number'),
  executed_at: z.iso.datetime(),
  expires_at: z.iso.datetime().describe('Until when the execution can be fetched again free'),
  result,
});

export const analyticsQuery = product({
  id: 'analytics-query',
  title: 'On-chain SQL analytics query',
  description:
    'Runs one read-only SQL SELECT (DuckDB dialect) over the block index: blocks, transactions, logs, ERC-20/721/1155 transfers and Uniswap v2/v3 swaps, one schema per chain (e.g. base.erc20_transfers), or the number of a saved query; returns the rows in `result` and an `execution_id` whose result can be fetched again free for 24 hours. Charged only for a result: SQL that is malformed, not a single SELECT, or over the time or memory limit is refused and never charged.',
  mcp: false,
  price: '0.05',
  requires: ['index'],
  input: z.object({
    query: z
      .string()
      .min(1)
      .max(20_000)
      .refine((q) => q.trim() !== '', 'the query is empty')
      .describe('One SELECT statement (DuckDB SQL; WITH … SELECT allowed), or the number of a saved query as a string (see GET /api/v1/analytics-query/queries)'),
    chain: evmChain().default('base').describe('Chain whose schema unqualified table names refer to (default base)'),
  }),
  inputExample: {
    query:
      "SELECT \"to\" AS recipient, count(*) AS payments, sum(value) AS usdc_atomic, max(block_time) AS last_payment FROM erc20_transfers WHERE \"from\" = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' GROUP BY 1 ORDER BY payments DESC LIMIT 5",
    chain: 'base',
  },
  output,
  // Captured from `npm start` (dev mode: `base` is the local chain, eip155:31337) after one paid call.
  outputExample: {
    execution_id: '01M8527R2RFPG7P719YPZBCMJC',
    chain: 'base',
    network: 'eip155:31337',
    indexed_block: 4,
    saved_query_id: null,
    executed_at: '2026-11-23T20:40:53.080Z',
    expires_at: '2026-11-24T20:40:53.080Z',
    result: {
      columns: [
        { name: 'recipient', type: 'VARCHAR' },
        { name: 'payments', type: 'BIGINT' },
        { name: 'usdc_atomic', type: 'HUGEINT' },
        { name: 'last_payment', type: 'TIMESTAMP' },
      ],
      rows: [['0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', 1, 50000, '2026-11-23T20:40:41.000Z']],
      row_count: 1,
      truncated: false,
    },
  },
  freeDoors: [
    { method: 'GET', path: `${EXECUTIONS_PATH}/{execution_id}`, note: 'the stored result of an execution, free for 24 hours after it ran' },
    { method: 'GET', path: SAVED_QUERIES_PATH, note: 'the saved queries: number, name, description and SQL' },
  ],
  run: async (input, ctx) => runQuery(input.query, input.chain ?? 'base', ctx),
  // Before payment: the statement is parsed, guarded and bound by the index (not run), so the unpaid
  // 402 already names SQL that would be refused, and a paid call with it is refused before settling.
  precheck: async (input, ctx) => {
    const { index, chain, sql, savedQueryId } = await resolve(input.query, input.chain ?? 'base', ctx);
    if (savedQueryId !== null) return; // the operator's, checked when it was saved
    const check = await index.check(chain, sql);
    if (check.kind === 'refused') throw new ProductInputError(check.message, check.status, 'query', check.code);
  },
});

/** The index, the chain's network and the SQL to run (a saved query's, when `query` is its number); the caller's mistakes are 422. */
async function resolve(query: string, chain: string, ctx: Pick<ProductContext, 'index'>) {
  const index = ctx.index;
  if (!index) throw new UpstreamError('the block index is not running on this instance', 502);
  const network = index.chains().get(chain);
  if (!network) {
    throw new ProductInputError(`chain ${chain} is not indexed on this instance (indexed: ${[...index.chains().keys()].join(', ') || 'none'})`, 422, 'chain', 'chain_not_configured');
  }
  let sql = query.trim();
  let savedQueryId: number | null = null;
  if (/^\d{1,9}$/.test(sql)) {
    const saved = await index.savedQuery(Number(sql));
    if (!saved) throw new ProductInputError(`there is no saved query ${sql} (see GET ${SAVED_QUERIES_PATH})`, 422, 'query', 'unknown_saved_query');
    sql = saved.sql;
    savedQueryId = saved.id;
  }
  return { index, network, chain, sql, savedQueryId };
}

async function runQuery(query: string, chainName: string, ctx: ProductContext): Promise<z.infer<typeof output>> {
  const { index, network, chain, sql, savedQueryId } = await resolve(query, chainName, ctx);
  const outcome = await index.query(chain, sql, ctx.signal);
  if (outcome.kind === 'refused') throw new ProductInputError(outcome.message, outcome.status, 'query', outcome.code);
  if (outcome.kind === 'unavailable') throw new UpstreamError(outcome.message, outcome.busy ? 503 : 502);
  const execution = await index.saveExecution({ chain, network, sql, savedQueryId, indexedBlock: outcome.indexedBlock, result: outcome.result, executedAt: ctx.now });
  return {
    execution_id: execution.id,
    chain,
    network,
    indexed_block: outcome.indexedBlock,
    saved_query_id: savedQueryId,
    executed_at: execution.executedAt,
    expires_at: execution.expiresAt,
    result: outcome.result satisfies QueryResult,
  };
}
