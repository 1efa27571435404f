/**
 * analytics-query end to end on anvil, paid with the official @x402/fetch client: aggregates over
 * the index equal what the test computes from the transfers it made; every hostile statement is
 * refused (or cut off) and the buyer's on-chain balance shows no charge for a refusal; the result is
 * fetched again free; saved queries run by number and are listed in llms-full.txt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, createWalletClient, http } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_ROLES, devChain, mintUsdc, usdcAbi } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { runQueriesCommand } from '../src/index/queries-command.ts';
import type { RunningService } from '../src/runtime.ts';
import { paidPostJson, quote, settlementOf } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const wallets = [5, 6, 7, 8].map((i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
const ADMIN_TOKEN = 'analytics-admin-token-0123456789';
const PRICE = 50_000n; // 0.05 USDC
const MAX_ROWS = 1_000;

let chain: DevChain;
let service: RunningService & { dataDir: string };
/** What the test sent: from, to, amount (atomic USDC). */
const sent: { from: string; to: string; value: bigint }[] = [];

const route = () => `${service.url}/api/v1/paid/analytics-query`;
const pay = (body: unknown) => paidPostJson(chain, route(), body);

async function caughtUp(): Promise<void> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const head = await client.getBlockNumber();
    const outcome = await service.index!.query('base', `SELECT max(number) FROM blocks`).catch(() => undefined);
    if (outcome?.kind === 'ok' && outcome.result.rows[0]?.[0] === Number(head)) return;
    if (Date.now() > deadline) throw new Error('the index did not catch up');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  chain = await startTestChain();
  const test = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  for (const w of wallets) {
    await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, w.address, 100n * 1_000_000n);
    await test.setBalance({ address: w.address, value: 10n ** 20n });
  }
  const viemChain = devChain(chain.rpcUrl, chain.chainId);
  for (let i = 0; i < 10; i++) {
    const from = wallets[i % 4]!;
    const to = wallets[(i * 3 + 1) % 4]!;
    const value = BigInt(i + 1) * 1_250_000n + 7n;
    const wallet = createWalletClient({ account: from, chain: viemChain, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({ address: chain.usdc, abi: usdcAbi, functionName: 'transfer', args: [to.address, value] });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    sent.push({ from: from.address.toLowerCase(), to: to.address.toLowerCase(), value });
  }
  service = await startTestService({
    chain,
    env: { INDEX_CHAINS: 'base', INDEX_POLL_MS: '100', ANALYTICS_TIMEOUT_MS: '1500', ANALYTICS_MAX_ROWS: String(MAX_ROWS), ADMIN_TOKEN },
  });
  await caughtUp();
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const walletList = () => wallets.map((w) => `'${w.address.toLowerCase()}'`).join(', ');

describe('analytics-query on the dev chain, paid with @x402/fetch', () => {
  it('answers 402 with terms, and input that is wrong before payment is 400 in the quote', async () => {
    const terms = await quote(route(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT 1' }) });
    expect(terms.accepts[0]).toMatchObject({ amount: PRICE.toString(), network: chain.network });
    const bad = await fetch(route(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT 1', chain: 'solana' }) });
    expect(bad.status).toBe(402);
    expect(((await bad.json()) as { error?: string }).error).toMatch(/invalid_input: chain/);
  });

  it('aggregates equal the hand-computed ones; charged once; the execution is fetched again free', async () => {
    const before = await balances(chain);
    const sql = `SELECT "from", count(*) AS transfers, sum(value) AS total, max(value) AS largest FROM erc20_transfers WHERE contract_address = '${chain.usdc.toLowerCase()}' AND "from" IN (${walletList()}) AND "to" IN (${walletList()}) GROUP BY 1 ORDER BY 1`;
    const response = await pay({ query: sql });
    expect(response.status).toBe(200);
    expect(settlementOf(response)?.success).toBe(true);
    const body = (await response.json()) as { execution_id: string; chain: string; network: string; result: { columns: { name: string; type: string }[]; rows: unknown[][]; row_count: number; truncated: boolean } };
    const byHand = new Map<string, { n: number; total: bigint; largest: bigint }>();
    for (const t of sent) {
      const entry = byHand.get(t.from) ?? { n: 0, total: 0n, largest: 0n };
      entry.n++;
      entry.total += t.value;
      if (t.value > entry.largest) entry.largest = t.value;
      byHand.set(t.from, entry);
    }
    const expected = [...byHand.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([from, e]) => [from, e.n, Number(e.total), Number(e.largest)]);
    expect(body.result.rows).toEqual(expected);
    // Amounts are HUGEINT: their sum is an exact HUGEINT, not a floating-point number.
    expect(body.result.columns.map((c) => c.type)).toEqual(['VARCHAR', 'BIGINT', 'HUGEINT', 'HUGEINT']);
    expect(body).toMatchObject({ chain: 'base', network: chain.network, result: { row_count: expected.length, truncated: false } });
    const after = await balances(chain);
    expect(before.buyer - after.buyer).toBe(PRICE);
    expect(after.payTo - before.payTo).toBe(PRICE);

    const again = await fetch(`${service.url}/api/v1/analytics-query/executions/${body.execution_id}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ execution_id: body.execution_id, query: sql, result: body.result });
    expect((await balances(chain)).buyer).toBe(after.buyer);
    expect((await fetch(`${service.url}/api/v1/analytics-query/executions/01KAQZ3W8M6TG7V1Y2C4N5P9RX`)).status).toBe(404);
  });

  it.each([
    ["COPY (SELECT * FROM blocks) TO '/tmp/percall-copy.csv'", 422, true],
    ["SELECT * FROM read_csv('/etc/passwd')", 422, true],
    ["ATTACH '/tmp/percall-other.duckdb' AS other", 422, true],
    ['INSTALL httpfs', 422, true],
    ["SET memory_limit = '64GB'", 422, true],
    ['PRAGMA database_list', 422, true],
    ['SELECT 1; SELECT 2', 422, true],
    // Valid SQL that only running shows is too much: stopped at the time limit, after payment, and not charged.
    ['SELECT count(*) FROM range(1000000000) a, range(1000000000) b', 422, false],
    ['SELECT * FROM blocks WHERE', 400, true],
    ['SELECT * FROM no_such_table', 422, true],
  ])('refuses %s with %i on field query, and the buyer pays nothing', async (sql, status, beforePayment) => {
    // The unpaid 402 already names what the index would refuse, so nobody signs a doomed payment.
    const terms = await quote(route(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: sql }) });
    if (beforePayment) expect(terms.error).toMatch(status === 400 ? /^invalid_input: query: / : /^input_rejected: query: /);
    else expect(terms.error).toBeUndefined();
    const before = await balances(chain);
    const response = await pay({ query: sql });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await response.json()) as { errors?: { field: string }[]; detail?: string };
    expect(problem.errors?.[0]?.field).toBe('query');
    expect(problem.detail).toMatch(/nothing was charged/);
    expect(settlementOf(response)).toBeUndefined();
    expect(await balances(chain)).toEqual(before);
  });

  it('a result of millions of rows is cut off at the row cap (truncated: true), and charged as a result', async () => {
    const before = await balances(chain);
    const response = await pay({ query: 'SELECT * FROM range(5000000)' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { row_count: number; truncated: boolean } };
    expect(body.result).toMatchObject({ row_count: MAX_ROWS, truncated: true });
    expect(before.buyer - (await balances(chain)).buyer).toBe(PRICE);
  });

  it('saved queries: added by the operator, run by number, listed in llms-full.txt', async () => {
    const add = await fetch(`${service.url}/admin/analytics/queries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ name: 'USDC transfers per block', description: 'transfer count of the latest blocks', sql: 'SELECT block_number, count(*) AS transfers FROM erc20_transfers GROUP BY 1 ORDER BY 1 DESC LIMIT 5' }),
    });
    expect(add.status).toBe(201);
    const { id } = (await add.json()) as { id: number };
    const refused = await fetch(`${service.url}/admin/analytics/queries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ name: 'bad', sql: "COPY blocks TO '/tmp/x.csv'" }),
    });
    expect(refused.status).toBe(422);

    const response = await pay({ query: String(id) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { saved_query_id: number; result: { columns: { name: string }[] } };
    expect(body.saved_query_id).toBe(id);
    expect(body.result.columns.map((c) => c.name)).toEqual(['block_number', 'transfers']);

    const unknown = await pay({ query: '999' });
    expect(unknown.status).toBe(422);

    const llms = await (await fetch(`${service.url}/llms-full.txt`)).text();
    expect(llms).toContain('## Saved analytics queries');
    expect(llms).toContain(`### ${id}. USDC transfers per block`);

    const lines: string[] = [];
    const previous = process.env.PERCALL_URL;
    process.env.PERCALL_URL = service.url;
    try {
      expect(await runQueriesCommand(['list'], (line) => lines.push(line))).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.PERCALL_URL;
      else process.env.PERCALL_URL = previous;
    }
    expect(lines.join('\n')).toContain(`${id}. USDC transfers per block`);

    const removed = await fetch(`${service.url}/admin/analytics/queries/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(removed.status).toBe(204);
    expect(((await (await fetch(`${service.url}/api/v1/analytics-query/queries`)).json()) as { count: number }).count).toBe(0);
  });

  it('is listed in the discovery documents with its free doors', async () => {
    const x402 = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as object;
    expect(JSON.stringify(x402)).toContain('/api/v1/paid/analytics-query');
    const llms = await (await fetch(`${service.url}/llms.txt`)).text();
    expect(llms).toContain('/api/v1/paid/analytics-query');
  });
});
