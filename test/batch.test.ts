import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { DevChain } from '../src/devchain/stack.ts';
import type { ProofRequest } from '../src/identity/proof-request.ts';
import type { RunningService } from '../src/runtime.ts';
import { jwtProof } from './helpers/proofs.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  ({ url: siteUrl, server: site } = await localSite((req, res) => {
    if (req.url === '/api') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'tide', level: 3.2 }));
    if (req.url === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Harbour</title></head><body><article><p>The harbour opens at six every morning, all year, weather permitting.</p></article></body></html>');
    if (req.url === '/slow') return setTimeout(() => res.end('{}'), 3000);
    res.writeHead(404).end();
  }));
});
afterAll(() => site?.close());
useTestService((c, s) => ((chain = c), (service = s)), { env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1', PERCALL_FETCH_TIMEOUT_MS: '1000' } });

const post = (path: string, body: unknown) => paidPostJson(chain, `${service.url}${path}`, body);

describe('batch extraction', () => {
  it('mixed successes, schema failures and a timeout: one result each, one payment', async () => {
    const before = await balances(chain);
    const response = await post('/api/v1/paid/batch-extract', {
      jobs: [
        { url: `${siteUrl}/api`, schema: { type: 'object', required: ['name', 'level'], properties: { level: { type: 'number' } } } },
        { url: `${siteUrl}/api`, schema: { type: 'object', required: ['depth'] } },
        { url: `${siteUrl}/page`, schema: { type: 'object', required: ['title', 'content'], properties: { title: { const: 'Harbour' } } } },
        { url: `${siteUrl}/slow`, schema: { type: 'object' } },
        { url: `${siteUrl}/gone`, schema: { type: 'object' } },
      ],
    });
    expect(response.status).toBe(200);
    const batch = (await response.json()) as { results: any[]; succeeded: number; failed: number };
    expect(batch).toMatchObject({ succeeded: 3, failed: 2 });
    expect(batch.results[0]).toMatchObject({ ok: true, valid: true, schema_errors: [], data: { name: 'tide', level: 3.2 } });
    expect(batch.results[1]).toMatchObject({ ok: true, valid: false });
    expect(batch.results[1].schema_errors[0]).toContain("must have required property 'depth'");
    expect(batch.results[2]).toMatchObject({ ok: true, valid: true, data: { title: 'Harbour' } });
    expect(batch.results[2].data.content).toContain('harbour opens at six');
    expect(batch.results[3]).toMatchObject({ ok: false, error: { status: 504 } });
    expect(batch.results[4]).toMatchObject({ ok: false, error: { status: 422 } });
    expect(before.buyer - (await balances(chain)).buyer).toBe(20_000n);
  });

  it('never charges when every URL failed', async () => {
    const before = await balances(chain);
    const response = await post('/api/v1/paid/batch-extract', {
      jobs: [
        { url: `${siteUrl}/gone`, schema: {} },
        { url: `http://0.0.0.0:${new URL(siteUrl).port}/api`, schema: {} },
        { url: 'http://no-such-host.invalid/api', schema: {} },
      ],
    });
    expect(response.status).toBe(422);
    const problem = (await response.json()) as { detail: string; errors: unknown[] };
    expect(problem.detail).toContain('every URL failed');
    expect(problem.errors).toEqual([expect.objectContaining({ field: 'jobs' })]);
    expect(await balances(chain)).toEqual(before);
  });

  it('every URL failed and a site among them failed or did not answer: 502, not charged', async () => {
    const before = await balances(chain);
    const response = await post('/api/v1/paid/batch-url-json', { urls: ['https://no-such-host.invalid/a'] });
    expect(response.status).toBe(422);
    const mixed = await post('/api/v1/paid/batch-extract', { jobs: [{ url: `${siteUrl}/gone`, schema: {} }, { url: `${siteUrl}/slow`, schema: {} }] });
    expect(mixed.status).toBe(502);
    expect(await balances(chain)).toEqual(before);
  });

  it('a job schema is checked before payment, and one that does not compile refuses the batch before any fetch (400, not charged)', async () => {
    const unpaid = await fetch(`${service.url}/api/v1/paid/batch-extract`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobs: [{ url: `${siteUrl}/api`, schema: { type: 'objekt' } }] }),
    });
    expect(unpaid.status).toBe(402);
    expect(((await unpaid.json()) as { error: string }).error).toMatch(/^invalid_input: jobs\.0\.schema: not a valid JSON Schema/);
    const before = await balances(chain);
    const response = await post('/api/v1/paid/batch-extract', { jobs: [{ url: `${siteUrl}/api`, schema: {} }, { url: `${siteUrl}/api`, schema: { $ref: '#/$defs/nowhere' } }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: unknown[] }).errors).toEqual([expect.objectContaining({ field: 'jobs.1.schema' })]);
    expect(await balances(chain)).toEqual(before);
  });

  it('batch_url_json takes HTTPS URLs only', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/batch-url-json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ urls: [`${siteUrl}/api`] }) });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: string }).error).toMatch(/^invalid_input: urls\.0/);
  });

  it('x401_batch_extract: behind its proof, then paid, it extracts', async () => {
    const path = '/api/v1/paid/x401-batch-extract';
    const body = { urls: [`${siteUrl}/api`, `${siteUrl}/page`] };
    const challenge = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(challenge.status).toBe(401);
    const request = (await challenge.json()) as ProofRequest;
    const before = await balances(chain);
    const response = await post(path, { ...body, proof: await jwtProof(request) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ succeeded: 2, failed: 0, results: [{ ok: true, data: { name: 'tide' } }, { ok: true, data: { title: 'Harbour' } }] });
    expect(before.buyer - (await balances(chain)).buyer).toBe(20_000n);
  });

  it('the x401_batch_extract MCP tool asks for the same proof', async () => {
    const response = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x401_batch_extract', arguments: { urls: [`${siteUrl}/api`] } } }),
    });
    const { result } = (await response.json()) as { result: { isError: boolean; structuredContent: ProofRequest & { error: string } } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ type: 'PROOF-REQUEST', route: 'POST /api/v1/paid/x401-batch-extract', error: 'proof_missing' });
  });
});
