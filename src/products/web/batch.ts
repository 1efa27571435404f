/**
 * Batch extraction, shared by batch-extract, batch-url-json and x401-batch-extract: up to 10 URLs in
 * one paid call, fetched with bounded concurrency through the safe fetcher, one result (or failure,
 * with the status web_extract would have answered) per URL, one flat payment for the whole batch.
 * The batch is charged when at least one URL was extracted (its failures are part of the answer and
 * cost nothing more); when every URL failed nothing is charged: 422 when every failure was the
 * caller's target, else 502. A job schema that does not compile is malformed input: 400 before
 * anything is fetched.
 *
 * What is extracted from a URL: a JSON answer is the data itself; any other page is its extraction
 * record (the web-extract fields: url, title, content, markdown, description, links, metadata). With
 * `batch_extract` each job's data is then validated against the job's own JSON Schema (ajv).
 */
import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ProductInputError, UpstreamError, fetchPage, type ProductContext } from '../kit/index.ts';
import { extractPage } from './web-extract/extract.ts';

export const MAX_BATCH_URLS = 10;
const CONCURRENCY = 4;

export const batchOutput = z.object({
  results: z
    .array(
      z.discriminatedUnion('ok', [
        z.object({
          url: z.string(),
          ok: z.literal(true),
          data: z.unknown().describe('The JSON answer, or the extraction record of any other page'),
          valid: z.boolean().optional().describe('batch_extract: whether data satisfies the job schema'),
          schema_errors: z.array(z.string()).optional(),
        }),
        z.object({
          url: z.string(),
          ok: z.literal(false),
          error: z.object({ status: z.int().describe('The status web_extract would have answered'), message: z.string() }),
        }),
      ]),
    )
    .describe('One result or failure per URL, in the given order'),
  succeeded: z.int(),
  failed: z.int(),
  extracted_at: z.iso.datetime(),
});
type BatchResult = z.infer<typeof batchOutput>;
type BatchItem = BatchResult['results'][number];

/** What the batch products return: one result or failure per URL. */
export const BATCH_OUTPUT_EXAMPLE = {
  results: [
    { url: 'https://example.com/', ok: true, data: { url: 'https://example.com/', title: 'Example Domain', content: 'This domain is for use in illustrative examples in documents.' } },
    { url: 'https://example.org/missing', ok: false, error: { status: 422, message: 'the page answered HTTP 404' } },
  ],
  succeeded: 1,
  failed: 1,
  extracted_at: '2025-06-01T12:00:00.000Z',
};

export async function batchExtract(input: { jobs: { url: string; schema: Record<string, unknown> }[] }, ctx: ProductContext): Promise<BatchResult> {
  const ajv = addFormats.default(new Ajv2020({ allErrors: true, strict: false, logger: false }));
  // Every schema is compiled before anything is fetched: a malformed one refuses the whole call.
  const validators = input.jobs.map((job, i) => {
    try {
      return ajv.compile(job.schema);
    } catch (error) {
      throw new ProductInputError(`the job's schema is not a valid JSON Schema: ${(error as Error).message}`, 400, `jobs.${i}.schema`);
    }
  });
  const jobs = input.jobs.map((job, i) => ({ url: job.url, validate: validators[i]! }));
  return runBatch(jobs, ctx, 'jobs', async (job) => {
    const data = await extract(job.url, ctx);
    const valid = job.validate(data) as boolean;
    return { data, valid, schema_errors: valid ? [] : (job.validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`) };
  });
}

export async function batchUrlJson(input: { urls: string[] }, ctx: ProductContext): Promise<BatchResult> {
  return runBatch(
    input.urls.map((url) => ({ url })),
    ctx,
    'urls',
    async (job) => ({ data: await extract(job.url, ctx) }),
  );
}

async function extract(url: string, ctx: ProductContext): Promise<unknown> {
  const response = await fetchPage(url, ctx);
  if (response.contentType === 'application/json' || response.contentType.endsWith('+json')) {
    try {
      return JSON.parse(response.body.toString('utf8'));
    } catch {
      throw new ProductInputError('the URL claims JSON but is not valid JSON', 422);
    }
  }
  return extractPage(response, ctx.now);
}

async function runBatch<J extends { url: string }>(
  jobs: J[],
  ctx: ProductContext,
  field: string,
  work: (job: J) => Promise<{ data: unknown; valid?: boolean; schema_errors?: string[] }>,
): Promise<BatchResult> {
  const results: BatchItem[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, async () => {
      while (next < jobs.length) {
        const index = next++;
        const job = jobs[index]!;
        try {
          results[index] = { url: job.url, ok: true, ...(await work(job)) };
        } catch (error) {
          if (!(error instanceof ProductInputError) && !(error instanceof UpstreamError)) throw error;
          results[index] = { url: job.url, ok: false, error: { status: error.status, message: error.message } };
        }
      }
    }),
  );
  const failed = results.filter((r) => !r.ok).length;
  if (failed === results.length) {
    // Nothing was delivered: refuse, so the payment is not settled. All the caller's targets: 422;
    // any site that failed or did not answer: 502 (a retry may deliver).
    const reasons = results.map((r) => (r.ok ? '' : `${r.url}: ${r.error.message}`)).join('; ');
    const callers = results.every((r) => !r.ok && r.error.status < 500);
    if (!callers) throw new UpstreamError(`every URL failed (${reasons})`, 502, field);
    throw new ProductInputError(`every URL failed (${reasons})`, 422, field);
  }
  return { results, succeeded: results.length - failed, failed, extracted_at: ctx.now.toISOString() };
}
