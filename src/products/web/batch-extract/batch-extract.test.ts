import { describe, expect, it } from 'vitest';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext, response, stubFetch } from '../../kit/fake-context.ts';
import { batchOutput } from '../batch.ts';
import { batchExtract } from './index.ts';

const SITE = 'https://harbour.example';
const PAGE = '<html><head><title>Harbour</title></head><body><article><p>The harbour opens at six every morning, all year, weather permitting.</p></article></body></html>';
const fetch = stubFetch({
  [`${SITE}/api`]: response({ name: 'tide', level: 3.2 }),
  [`${SITE}/page`]: response(PAGE),
  [`${SITE}/slow`]: new SafeFetchError('timeout', 'no answer in time'),
  [`${SITE}/gone`]: response('', { status: 404 }),
  [`${SITE}/broken`]: response('boom', { status: 500 }),
});
const run = (jobs: unknown[]) => batchExtract.run(batchExtract.input.parse({ jobs }), fakeContext({ fetch }));

describe('batch-extract', () => {
  it('mixed successes, schema failures and failures: one result each, in order', async () => {
    const batch = await run([
      { url: `${SITE}/api`, schema: { type: 'object', required: ['name', 'level'], properties: { level: { type: 'number' } } } },
      { url: `${SITE}/api`, schema: { type: 'object', required: ['depth'] } },
      { url: `${SITE}/page`, schema: { type: 'object', required: ['title', 'content'], properties: { title: { const: 'Harbour' } } } },
      { url: `${SITE}/slow`, schema: { type: 'object' } },
      { url: `${SITE}/gone`, schema: { type: 'object' } },
    ]);
    expect(batch).toMatchObject({ succeeded: 3, failed: 2, extracted_at: '2025-06-01T12:00:00.000Z' });
    expect(batch.results[0]).toMatchObject({ ok: true, valid: true, schema_errors: [], data: { name: 'tide', level: 3.2 } });
    expect(batch.results[1]).toMatchObject({ ok: true, valid: false });
    expect(batch.results[1]!.ok && batch.results[1]!.schema_errors![0]).toContain("must have required property 'depth'");
    expect(batch.results[2]).toMatchObject({ ok: true, valid: true, data: { title: 'Harbour' } });
    expect(batch.results[2]!.ok && (batch.results[2]!.data as { content: string }).content).toContain('harbour opens at six');
    expect(batch.results[3]).toMatchObject({ ok: false, error: { status: 504 } });
    expect(batch.results[4]).toMatchObject({ ok: false, error: { status: 422 } });
    expect(batchOutput.safeParse(batch).success).toBe(true);
  });

  it("every URL failed: 422 on jobs when all were the caller's targets, 502 when a site failed or did not answer", async () => {
    await expect(run([{ url: `${SITE}/gone`, schema: {} }, { url: 'https://no-such-host.invalid/api', schema: {} }])).rejects.toMatchObject({
      status: 422,
      field: 'jobs',
      message: expect.stringContaining('every URL failed'),
    });
    await expect(run([{ url: `${SITE}/gone`, schema: {} }, { url: `${SITE}/slow`, schema: {} }])).rejects.toMatchObject({ status: 502 });
    await expect(run([{ url: `${SITE}/broken`, schema: {} }])).rejects.toMatchObject({ status: 502 });
  });

  it('a schema that does not compile refuses the batch before anything is fetched (400 naming the job)', async () => {
    const before = fetch.requests.length;
    await expect(run([{ url: `${SITE}/api`, schema: {} }, { url: `${SITE}/api`, schema: { $ref: '#/$defs/nowhere' } }])).rejects.toMatchObject({ status: 400, field: 'jobs.1.schema' });
    expect(fetch.requests.length).toBe(before);
  });

  it('checks job schemas against the meta-schema before payment, and takes 1 to 10 jobs', () => {
    const parsed = batchExtract.input.safeParse({ jobs: [{ url: `${SITE}/api`, schema: { type: 'objekt' } }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['jobs', 0, 'schema'], message: expect.stringMatching(/^not a valid JSON Schema/) });
    expect(batchExtract.input.safeParse({ jobs: [] }).success).toBe(false);
    expect(batchExtract.input.safeParse({ jobs: Array(11).fill({ url: `${SITE}/api`, schema: {} }) }).success).toBe(false);
  });
});
