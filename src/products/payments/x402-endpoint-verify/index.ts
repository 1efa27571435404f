/**
 * x402_endpoint_verify: is this URL's 402 a correct x402 challenge? Only reads, through the safe
 * fetcher. Charged once the target answered over HTTP, whatever the status (a 500 is judged like
 * any other answer). A target that is malformed, refused by the address policy or whose name does
 * not resolve is the caller's input: 422 (field `url`). A target that resolves but gives no HTTP
 * answer at all (connection refused or reset, timeout) leaves nothing to judge: 502, or 504 on a
 * timeout. Neither is charged.
 */
import { z } from 'zod';
import { READ_EXTERNAL, fetchFailure, fetchableUrl, product, type ProductContext } from '../../kit/index.ts';
import { SafeFetchError, type SafeResponse } from '../../../providers/safe-fetch.ts';
import { challengeVerdict, judgeChallenge } from './judge.ts';

const output = z.object({
  url: z.string().describe('The probed URL (after redirects)'),
  ...challengeVerdict.shape,
  checked_at: z.iso.datetime(),
});

export const x402EndpointVerify = product({
  id: 'x402-endpoint-verify',
  title: 'x402 endpoint verify',
  description:
    'Probes an endpoint without paying and verifies its x402 challenge: returns whether it answers 402, the parsed payment requirements (networks, schemes, amounts, recipient) and any spec violations. Charged for any HTTP answer, errors included; not charged when the URL is refused or does not resolve (422) or the endpoint gives no answer (502/504).',
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: fetchableUrl().describe('http or https URL of the paid endpoint'),
    method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to probe with'),
  }),
  inputExample: { url: 'https://api.example.com/api/v1/paid/time', method: 'GET' },
  output,
  outputExample: {
    url: 'https://api.example.com/api/v1/paid/time',
    status: 402,
    x402_version: 2,
    valid: true,
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', pay_to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C' }],
    bazaar: true,
    findings: [],
    checked_at: '2025-06-01T12:00:00.000Z',
  },
  publishOutputSchema: false,
  run: async (input, ctx) => {
    const response = await probe(input.url, input.method ?? 'GET', ctx);
    return { url: response.url, ...judgeChallenge(response), checked_at: ctx.now.toISOString() };
  },
});

/** The one probe: any HTTP answer is judged; no answer is a problem (see above). */
async function probe(url: string, method: string, ctx: ProductContext): Promise<SafeResponse> {
  try {
    return await ctx.fetch(url, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
  } catch (error) {
    if (error instanceof SafeFetchError) throw fetchFailure(error);
    throw error;
  }
}
