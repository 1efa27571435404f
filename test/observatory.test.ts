import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FacilitatorClient } from '@x402/core/server';
import { DEV_ROLES, mintUsdc } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { REPORT_SCHEMA } from '../src/telemetry/report-schema.ts';
import type { ObservatoryReport } from '../src/telemetry/report.ts';
import { paymentHeader, quote, signPayment, tamper } from './helpers/payments.ts';
import { freshDatabase } from './helpers/postgres.ts';
import { startTestChain, startTestService, tempDataDir } from './helpers/service.ts';

/**
 * A known mix of traffic over two instances sharing one PostgreSQL (the embedded store when no
 * server is available), then every figure of the public report checked exactly.
 */
const ADMIN_TOKEN = 'operator-secret-0123456789';
const SELF_TEST = DEV_ROLES.spare;
let chain: DevChain;
let a: RunningService;
let b: RunningService;
let db: Awaited<ReturnType<typeof freshDatabase>>;
const settleFails = { on: false };

function failingSettle(inner: FacilitatorClient): FacilitatorClient {
  return {
    getSupported: () => inner.getSupported(),
    verify: (p, r) => inner.verify(p, r),
    settle: async (p, r) => (settleFails.on ? { success: false, errorReason: 'insufficient_funds', transaction: '', network: r.network } : inner.settle(p, r)),
  };
}

beforeAll(async () => {
  chain = await startTestChain();
  // The operator's own test wallet needs USDC (minted before any instance settles from the deployer).
  await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, SELF_TEST.address, 1_000_000n);
  db = await freshDatabase();
  const env = {
    ...(db ? { DATABASE_URL: db.url } : {}),
    SELF_TEST_WALLETS: SELF_TEST.address,
    TRUSTED_PROXY_HEADER: 'x-forwarded-for',
    ADMIN_TOKEN,
    TELEMETRY_FLUSH_MS: '60000',
  };
  const shared = db ? {} : { dataDir: await tempDataDir() };
  a = await startTestService({ chain, env, wrapFacilitator: failingSettle, ...shared });
  b = db ? await startTestService({ chain, env }) : a;
});
afterAll(async () => {
  if (b !== a) await b?.stop();
  await a?.stop();
  await chain?.stop();
  await db?.drop();
});

const US = { 'x-forwarded-for': '8.8.8.8' };

async function flushAll(): Promise<void> {
  await a.percall.telemetry.flush();
  await b.percall.telemetry.flush();
}

async function report(): Promise<ObservatoryReport> {
  await flushAll();
  await new Promise((r) => setTimeout(r, 2100)); // past the report's snapshot cache
  return (await (await fetch(`${a.url}/observatory/report.json`)).json()) as ObservatoryReport;
}

describe('the observatory report', () => {
  it('counts a known mix exactly, across instances, and validates against its JSON Schema', async () => {
    const time = (s: RunningService) => `${s.url}/api/v1/paid/time`;
    const echo = (s: RunningService) => `${s.url}/api/v1/paid/echo`;
    // Challenges: 3 on time (one from the US), 2 on echo, 1 HEAD, 1 GET on a POST route = 7.
    await fetch(time(a), { headers: US });
    await fetch(time(a));
    await fetch(time(b));
    await fetch(echo(a));
    await fetch(echo(b));
    await fetch(time(b), { method: 'HEAD' });
    await fetch(`${a.url}/api/v1/paid/route-task`);

    // Paid calls: 2 on time (one via each instance, one from the US), 1 on echo = 0.03 USDC from the buyer.
    // Each `pay` first reads the 402 like any client does: one more challenge per payment (7 in all below).
    const pay = async (url: string, key: `0x${string}`, headers: Record<string, string> = {}) =>
      fetch(url, { headers: { ...paymentHeader(await signPayment(key, await quote(url))), ...headers } });
    expect((await pay(time(a), chain.buyer.privateKey, US)).status).toBe(200);
    expect((await pay(time(b), chain.buyer.privateKey)).status).toBe(200);
    expect((await pay(echo(b), chain.buyer.privateKey)).status).toBe(200);
    // Self-test: 2 calls by the operator's wallet, counted apart.
    expect((await pay(time(a), SELF_TEST.privateKey)).status).toBe(200);
    expect((await pay(echo(b), SELF_TEST.privateKey)).status).toBe(200);

    // Failures: bad signature, wrong network, undecodable header, failed settlement.
    const signed = await signPayment(chain.buyer.privateKey, await quote(time(a)));
    const badSig = await tamper(chain.buyer.privateKey, signed, { signature: `0x${'11'.repeat(65)}` });
    expect((await fetch(time(a), { headers: paymentHeader(badSig) })).status).toBe(402);
    const otherNetwork = await tamper(chain.buyer.privateKey, signed, { accepted: { network: 'eip155:8453' }, chainId: 8453 });
    expect((await fetch(time(b), { headers: paymentHeader(otherNetwork) })).status).toBe(402);
    expect((await fetch(echo(a), { headers: { 'payment-signature': 'garbage' } })).status).toBe(402);
    settleFails.on = true;
    expect((await pay(time(a), chain.buyer.privateKey)).status).toBe(402);
    settleFails.on = false;

    const r = await report();
    const validate = addFormats.default(new Ajv2020({ strict: true, allErrors: true })).compile(REPORT_SCHEMA);
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);

    expect(r).toMatchObject({ wallet: chain.payTo, network: chain.network, service: 'percall' });
    expect(r.totals).toEqual({ challenges: 14, paid_calls: 3, payment_failures: 4, revenue_usdc: 0.03, unique_payers: 1 });
    expect(r.self_test).toEqual({ calls: 2, usdc: 0.02 });
    expect(r.payment_failure_reasons).toEqual(
      expect.arrayContaining([
        { key: 'payment_verification_failed', count: 1 },
        { key: 'payment_requirement_not_accepted', count: 1 },
        { key: 'payment_processing_error', count: 1 },
        { key: 'settlement_failed', count: 1 },
      ]),
    );
    expect(r.payment_failure_reasons).toHaveLength(4);
    expect(r.payment_failure_networks).toEqual(
      expect.arrayContaining([
        { key: chain.network, count: 2 },
        { key: 'other', count: 1 }, // a network we do not offer, named by the caller
        { key: 'unknown', count: 1 },
      ]),
    );
    const endpoint = (name: string) => r.endpoints.find((e) => e.endpoint === name);
    expect(endpoint('GET /api/v1/paid/time')).toEqual({ endpoint: 'GET /api/v1/paid/time', challenges: 9, paid_calls: 2, revenue_usdc: 0.02, self_test_calls: 1, payment_failures: 3 });
    expect(endpoint('GET /api/v1/paid/echo')).toEqual({ endpoint: 'GET /api/v1/paid/echo', challenges: 4, paid_calls: 1, revenue_usdc: 0.01, self_test_calls: 1, payment_failures: 1 });
    expect(endpoint('POST /api/v1/paid/route-task')).toMatchObject({ challenges: 1, paid_calls: 0 });
    expect(r.geo.countries).toEqual(expect.arrayContaining([{ key: 'US', count: 2 }]));
    expect(r.geo.countries.reduce((n, c) => n + c.count, 0)).toBe(14 + 3 + 2); // challenges + paid + self-test
  });

  it('300 payments naming junk networks and reasons leave the report the same size: nothing a caller writes reaches it', async () => {
    const before = await report();
    const signed = await signPayment(chain.buyer.privateKey, await quote(`${a.url}/api/v1/paid/time`));
    for (let i = 0; i < 300; i++) {
      const junk = `junk-${i}-${'x'.repeat(2000)}`;
      const payload = { ...signed, accepted: { ...signed.accepted, network: junk, scheme: junk } };
      expect((await fetch(`${a.url}/api/v1/paid/time`, { headers: paymentHeader(payload as typeof signed) })).status).toBe(402);
    }
    const after = await report();
    // Only counts grow (a few digits); no new keys.
    expect(JSON.stringify(after).length - JSON.stringify(before).length).toBeLessThan(40);
    expect(after.payment_failure_networks.map((n) => n.key).sort()).toEqual(before.payment_failure_networks.map((n) => n.key).sort());
    expect(JSON.stringify(after)).not.toContain('junk');
    const series = await (await fetch(`${a.url}/observatory/series.json`)).text();
    expect(series).not.toContain('junk');
  });

  it('publishes its JSON Schema beside it', async () => {
    const schema = await (await fetch(`${a.url}/observatory/report.schema.json`)).json();
    expect(schema).toEqual(JSON.parse(JSON.stringify(REPORT_SCHEMA)));
  });
});

describe('research log', () => {
  const admin = (path: string, body: unknown, token = ADMIN_TOKEN) =>
    fetch(`${a.url}/admin/research/hypotheses${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const hypothesis = { hypothesis: 'Agents retry after 503', public_claim: 'Most retry within a minute', observation: 'retry gaps', target: 'p50 < 60 s', horizon_days: 30, lens: 'control' };

  it('registers, evaluates and abandons; other transitions are refused with a clear error', async () => {
    expect((await admin('', hypothesis, 'wrong-token-0000000000')).status).toBe(401);
    const first = (await (await admin('', hypothesis)).json()) as { id: number; status: string };
    expect(first.status).toBe('registered');
    const second = (await (await admin('', { ...hypothesis, opportunity: 'cheaper retries', lens: 'Slack' })).json()) as { id: number };
    const evaluated = await admin(`/${first.id}/evaluate`, { verdict: 'confirmed', measured_value: '41 s' });
    expect(await evaluated.json()).toMatchObject({ status: 'evaluated', verdict: 'confirmed', measured_value: '41 s' });
    const again = await admin(`/${first.id}/abandon`, {});
    expect(again.status).toBe(409);
    expect(((await again.json()) as { detail: string }).detail).toMatch(/is evaluated; only a registered hypothesis/);
    expect((await admin(`/${second.id}/abandon`, { verdict: 'no signal' })).status).toBe(200);
    expect((await admin(`/${second.id}/evaluate`, { verdict: 'x' })).status).toBe(409);
    expect((await admin('/999999/evaluate', { verdict: 'x' })).status).toBe(404);
    expect((await admin('', { ...hypothesis, horizon_days: 0 })).status).toBe(400);

    const log = (await (await fetch(`${a.url}/research/hypotheses.json`)).json()) as { open_total: number; closed_total: number; closed_shown: number; hypotheses: { id: number; status: string; opportunity: string | null }[] };
    expect(log).toMatchObject({ open_total: 0, closed_total: 2, closed_shown: 2 });
    expect(log.hypotheses.map((h) => h.status).sort()).toEqual(['abandoned', 'evaluated']);
    expect(log.hypotheses.find((h) => h.id === first.id)!.opportunity).toBeNull();
  });
});

describe('operator metrics', () => {
  it('/metrics needs the operator secret and speaks Prometheus', async () => {
    expect((await fetch(`${a.url}/metrics`)).status).toBe(401);
    const response = await fetch(`${a.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/percall_paid_calls\{endpoint="\*"\} \d+/);
    expect(text).toContain('percall_process_');
  });
});
