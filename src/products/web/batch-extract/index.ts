import { z } from 'zod';
import { READ_EXTERNAL, fetchableUrl, jsonSchemaObject, product } from '../../kit/index.ts';
import { BATCH_OUTPUT_EXAMPLE, MAX_BATCH_URLS, batchExtract as run, batchOutput } from '../batch.ts';

/** Up to 10 URLs, each validated against its own JSON Schema; see ../batch.ts for the charging rule. */
export const batchExtract = product({
  id: 'batch-extract',
  title: 'Batch extraction with per-URL schema',
  description:
    'Extracts up to 10 public URLs, each checked against its own JSON Schema: a JSON answer is the data itself, any other page its extraction record (url, title, content, markdown, description, links, metadata). Returns one result per job (data, valid, schema_errors) or its failure; one payment per batch, charged when at least one URL is extracted, nothing charged when every URL fails.',
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    jobs: z
      .array(
        z.object({
          url: fetchableUrl().describe('Public http or https URL to extract from'),
          schema: jsonSchemaObject().describe('JSON Schema (2020-12) object the extracted data must satisfy'),
        }),
      )
      .min(1)
      .max(MAX_BATCH_URLS)
      .describe('Up to 10 extraction jobs'),
  }),
  inputExample: {
    jobs: [
      {
        url: 'https://example.com/',
        schema: { type: 'object', properties: { heading: { type: 'string' } }, required: ['heading'] },
      },
    ],
  },
  output: batchOutput,
  outputExample: BATCH_OUTPUT_EXAMPLE,
  publishOutputSchema: false,
  run,
});
