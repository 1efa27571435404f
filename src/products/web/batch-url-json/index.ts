import { z } from 'zod';
import { READ_EXTERNAL, httpsUrl, product } from '../../kit/index.ts';
import { BATCH_OUTPUT_EXAMPLE, MAX_BATCH_URLS, batchOutput, batchUrlJson as run } from '../batch.ts';

/** Up to 10 HTTPS pages as JSON, one receipt; see ../batch.ts for the charging rule. */
export const batchUrlJson = product({
  id: 'batch-url-json',
  title: 'Batch URL to JSON',
  description:
    'Fetches up to 10 HTTPS URLs and returns each page as structured JSON (title, text, links, metadata) or its failure, with one receipt for the whole batch: charged when at least one URL is extracted, nothing charged when every URL fails.',
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    urls: z.array(httpsUrl()).min(1).max(MAX_BATCH_URLS).describe('Up to 10 HTTPS URLs'),
  }),
  inputExample: { urls: ['https://example.com/', 'https://example.org/'] },
  output: batchOutput,
  outputExample: BATCH_OUTPUT_EXAMPLE,
  publishOutputSchema: false,
  run,
});
