import { z } from 'zod';
import { READ_EXTERNAL, fetchableUrl, product } from '../../kit/index.ts';
import { BATCH_OUTPUT_EXAMPLE, MAX_BATCH_URLS, batchOutput, batchUrlJson } from '../batch.ts';

/**
 * batch-url-json behind a route-scoped proof: the doors check the proof (PROOF-REQUEST, 401)
 * before payment; the run never sees it.
 */
export const x401BatchExtract = product({
  id: 'x401-batch-extract',
  title: 'Proof-gated batch extraction',
  description:
    "Extracts up to 10 URLs like batch_extract, but requires a route-scoped proof: a `jwt` or `json` credential carrying the claims route, sub, aud, exp, nonce and request_hash of the route's PROOF-REQUEST document (valid about 15 minutes). Charged when at least one URL is extracted, nothing charged when every URL fails.",
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    urls: z.array(fetchableUrl()).min(1).max(MAX_BATCH_URLS).describe('Up to 10 public http or https URLs'),
    proof: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .describe('Proof credential: a JWT string, or a JSON object with the required claims; omit to receive the PROOF-REQUEST'),
  }),
  inputExample: { urls: ['https://example.com/'] },
  requiresProof: true,
  output: batchOutput,
  outputExample: BATCH_OUTPUT_EXAMPLE,
  publishOutputSchema: false,
  run: batchUrlJson,
});
