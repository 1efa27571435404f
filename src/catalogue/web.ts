import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { webExtract } from '../products/web-extract.ts';
import { batchExtract, batchUrlJson } from '../products/batch.ts';
import { browserEvidence } from '../products/browser-evidence.ts';
import { decisionPacket, extractionSample } from '../products/purchase.ts';
import { FIXED, X402_BOTH, available, unavailable, type Product } from './types.ts';

const READ_EXTERNAL = { readOnlyHint: true, openWorldHint: true } as const;
const withoutCredentials = (url: string) => {
  try {
    const parsed = new URL(url);
    return !parsed.username && !parsed.password;
  } catch {
    return true; // not a URL: the format check says so
  }
};
/**
 * A URL the safe fetcher takes: http or https (https only when `httpsOnly`), no credentials. Checked
 * before payment, so the unpaid 402 already names the problem; the address a name resolves to can
 * only be checked when the call runs (a refused or unresolvable target is then 422, not charged).
 */
export const fetchableUrl = (httpsOnly = false) =>
  z
    .url({ protocol: httpsOnly ? /^https$/ : /^https?$/, error: httpsOnly ? 'must be an https URL' : 'must be an http or https URL' })
    .refine(withoutCredentials, 'URLs with credentials (user:password@) are refused');
const httpsUrl = () => fetchableUrl(true);

const metaSchema = addFormats.default(new Ajv2020({ strict: false }));
/**
 * A JSON Schema (draft 2020-12) object, checked against the meta-schema before payment; the products
 * compile it only when the call runs (a schema that still does not compile is then 400, not charged).
 */
export const jsonSchemaObject = () =>
  z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
    let problem: string | undefined;
    try {
      if (!metaSchema.validateSchema(schema)) problem = metaSchema.errorsText(metaSchema.errors, { dataVar: 'schema' });
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem) ctx.addIssue({ code: 'custom', message: `not a valid JSON Schema (2020-12): ${problem.slice(0, 300)}` });
  });
const MAX_BATCH_URLS = 10;

export const webExtractOutput = z.looseObject({
  url: z.url().describe('The extracted URL (after redirects)'),
  title: z.string().describe('Page title'),
  content: z.string().describe('Cleaned main text of the page'),
  description: z.string().optional().describe('Meta description, when present'),
  links: z.array(z.string()).optional().describe('Absolute links found on the page'),
  metadata: z.looseObject({}).optional().describe('Page metadata (Open Graph, language, canonical URL…)'),
  extracted_at: z.iso.datetime().optional().describe('Extraction timestamp, ISO 8601'),
});

/** What the batch products return: one result or failure per URL. */
const BATCH_OUTPUT_EXAMPLE = {
  results: [
    { url: 'https://example.com/', ok: true, data: { url: 'https://example.com/', title: 'Example Domain', content: 'This domain is for use in illustrative examples in documents.' } },
    { url: 'https://example.org/missing', ok: false, error: { status: 422, message: 'the page answered HTTP 404' } },
  ],
  succeeded: 1,
  failed: 1,
  extracted_at: '2025-06-01T12:00:00.000Z',
};

export const webProducts: Product[] = [
  available({
    id: 'web-extract',
    title: 'Web page extraction',
    description:
      'Fetches one public web page and returns its cleaned main text (`content`) and Markdown (`markdown`), `title` and final `url`, plus meta description, links, metadata (language, canonical URL, Open Graph, published time) and extraction timestamp. HTML, plain text and JSON pages; private addresses are refused. Charged only when content is extracted: a refused, unresolvable or missing page (HTTP 4xx) is 422, a failing or unreachable site 502/504, neither charged.',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/web-extract', price: '0.03' },
    mcp: { tool: 'web_extract', price: '0.03', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: fetchableUrl().describe('http or https URL of the page to extract'),
    }),
    inputExample: { url: 'https://example.com/' },
    outputSchema: z.toJSONSchema(webExtractOutput),
    outputExample: {
      url: 'https://example.com/',
      title: 'Example Domain',
      content: 'This domain is for use in illustrative examples in documents.',
      description: '',
      links: ['https://www.iana.org/domains/example'],
      metadata: { content_type: 'text/html', lang: 'en', open_graph: {} },
      markdown: 'This domain is for use in illustrative examples in documents.',
      extracted_at: '2025-06-01T12:00:00.000Z',
    },
    run: webExtract,
  }),
  unavailable({
    id: 'web-search',
    title: 'Web search',
    description: 'Searches the web for a query and returns ranked results (title, URL, snippet).',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/web-search', price: '0.01' },
    mcp: { tool: 'web_search', price: '0.01', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      query: z.string().min(1).max(400).describe('Search query'),
      limit: z.int().min(1).max(20).default(10).describe('Most results to return'),
    }),
    inputExample: { query: 'x402 payment protocol specification', limit: 5 },
  }),
  available({
    id: 'browser-evidence',
    title: 'Browser evidence capture',
    description:
      'Performs one headless-browser action on a public http(s) page (load it, click a selector, or fill a field) and returns the evidence: a PNG screenshot (base64 with its SHA-256), the page text after the action, title, final URL, capture time and `timed_out`. The browser has no network of its own: every request of the page, redirects included, goes through the safe fetcher, so it cannot reach private addresses. Charged when the action ran, also when it ended on the behaviour of the page itself (a script that never yields, a page that never finishes loading, a click that times out): then `timed_out` is true and the evidence is what could be gathered (`screenshot` null if none). Not charged: a refused or unresolvable address, also reached by a redirect or a click (422), a selector that matches nothing (422), a second concurrent call by the same payer (429), our own failures (5xx).',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/evidence/browser', price: '0.02' },
    mcp: { tool: 'browser_evidence', price: '0.02', annotations: { openWorldHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: z.url({ protocol: /^https?$/ }).describe('Public http or https page to open'),
      action: z.enum(['load', 'click', 'fill']).default('load').describe('The one browser action to perform after loading'),
      selector: z.string().min(1).max(500).optional().describe('CSS selector of the element to click or fill (needed for click and fill)'),
      value: z.string().max(2000).optional().describe('Text to fill in (fill only)'),
      wait_ms: z.int().min(0).max(10_000).default(0).describe('Extra wait after the action before capturing, in milliseconds'),
    }),
    inputExample: { url: 'https://example.com/', action: 'click', selector: 'a' },
    outputExample: {
      url: 'https://example.com/',
      final_url: 'https://www.iana.org/help/example-domains',
      status: 200,
      title: 'Example Domains',
      action: 'click',
      selector: 'a',
      text: 'Example Domains ...',
      screenshot: { mime_type: 'image/png', sha256: '9f2c...', base64: 'iVBORw0KGgo...' },
      timed_out: false,
      captured_at: '2025-06-01T12:00:00.000Z',
    },
    requires: ['browser'],
    run: browserEvidence,
  }),
  available({
    id: 'batch-extract',
    title: 'Batch extraction with per-URL schema',
    description:
      'Extracts up to 10 public URLs, each checked against its own JSON Schema: a JSON answer is the data itself, any other page its extraction record (url, title, content, markdown, description, links, metadata). Returns one result per job (data, valid, schema_errors) or its failure; one payment per batch, charged when at least one URL is extracted, nothing charged when every URL fails.',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/batch-extract', price: '0.02' },
    mcp: { tool: 'batch_extract', price: '0.02', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
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
    outputExample: BATCH_OUTPUT_EXAMPLE,
    run: batchExtract,
  }),
  available({
    id: 'batch-url-json',
    title: 'Batch URL to JSON',
    description:
      'Fetches up to 10 HTTPS URLs and returns each page as structured JSON (title, text, links, metadata) or its failure, with one receipt for the whole batch: charged when at least one URL is extracted, nothing charged when every URL fails.',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/batch-url-json', price: '0.02' },
    mcp: { tool: 'batch_url_json', price: '0.02', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      urls: z.array(httpsUrl()).min(1).max(MAX_BATCH_URLS).describe('Up to 10 HTTPS URLs'),
    }),
    inputExample: { urls: ['https://example.com/', 'https://example.org/'] },
    outputExample: BATCH_OUTPUT_EXAMPLE,
    run: batchUrlJson,
  }),
  available({
    id: 'x401-batch-extract',
    title: 'Proof-gated batch extraction',
    description:
      'Extracts up to 10 URLs like batch_extract, but requires a route-scoped proof: a `jwt` or `json` credential carrying the claims route, sub, aud, exp, nonce and request_hash of the route\'s PROOF-REQUEST document (valid about 15 minutes). Charged when at least one URL is extracted, nothing charged when every URL fails.',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/x401-batch-extract', price: '0.02' },
    mcp: { tool: 'x401_batch_extract', price: '0.02', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      urls: z.array(fetchableUrl()).min(1).max(MAX_BATCH_URLS).describe('Up to 10 public http or https URLs'),
      proof: z
        .union([z.string(), z.record(z.string(), z.unknown())])
        .optional()
        .describe('Proof credential: a JWT string, or a JSON object with the required claims; omit to receive the PROOF-REQUEST'),
    }),
    inputExample: { urls: ['https://example.com/'] },
    requiresProof: true,
    outputExample: BATCH_OUTPUT_EXAMPLE,
    run: batchUrlJson,
  }),
  unavailable({
    id: 'fetch-x402-content',
    title: 'Fetch x402-paywalled content',
    description:
      'Fetches a resource that is behind an x402 paywall, paying it on your behalf up to the stated cap, and returns its content with the payment receipt. One free fetch per wallet per day.',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/fetch-x402', price: '0.02' },
    mcp: { tool: 'fetch_x402_content', price: '0.02', annotations: { openWorldHint: true } },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: z.url().describe('URL of the x402-protected resource'),
      method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method to call it with'),
      body: z.unknown().optional().describe('JSON body for POST'),
      max_price: z
        .string()
        .regex(/^\d+(\.\d{1,6})?$/)
        .optional()
        .describe('Most USD to pay the resource, as a decimal string, e.g. "0.05"'),
    }),
    inputExample: { url: 'https://api.example.com/api/v1/paid/time', method: 'GET', max_price: '0.05' },
    freeTier: { perWalletPerDay: 1, note: 'one free fetch per wallet per day' },
  }),
  available({
    id: 'purchase-web-extraction-sample',
    title: 'Web extraction sample',
    description:
      'Extracts one HTTPS page as a low-priced sample of web_extract: title, description, metadata, the first 1,500 characters of the main text (`content_sample`, with `content_length` and `truncated`) and the link count. Charged only when content is extracted, like web_extract.',
    category: 'web',
    http: { method: 'POST', path: '/api/v1/paid/purchase-web-extraction-sample', price: '0.01' },
    mcp: { tool: 'purchase_web_extraction_sample', price: '0.01', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: httpsUrl().describe('HTTPS URL of the page'),
    }),
    inputExample: { url: 'https://example.com/' },
    outputExample: {
      url: 'https://example.com/',
      title: 'Example Domain',
      description: '',
      content_sample: 'This domain is for use in illustrative examples in documents.',
      content_length: 62,
      truncated: false,
      link_count: 1,
      metadata: { content_type: 'text/html', lang: 'en', open_graph: {} },
      full_extraction: { tool: 'web_extract', route: 'POST /api/v1/paid/web-extract' },
      extracted_at: '2025-06-01T12:00:00.000Z',
    },
    run: extractionSample,
  }),
  available({
    id: 'purchase-website-decision-packet',
    title: 'Website decision packet',
    description:
      'Returns a decision packet on one website for an agent deciding whether to buy from or rely on it: what it offers (from its page), payment signals (x402 catalogue, OpenAPI, a paid route answering 402, readiness score), trust signals (HTTPS, canonical, privacy/terms/contact/about/pricing links) and the evidence URL behind each. Charged when the page is extracted; a refused, unresolvable or missing page (422) or a failing or unreachable site (502/504) is not charged.',
    category: 'web',
    mcp: { tool: 'purchase_website_decision_packet', price: '0.05', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      url: fetchableUrl().describe('Home page or any page of the website (http or https)'),
    }),
    inputExample: { url: 'https://example.com/' },
    outputExample: {
      site: 'https://example.com',
      offer: { title: 'Example Domain', description: '', summary: 'This domain is for use in illustrative examples in documents.', source: 'https://example.com/' },
      payment_signals: { x402_catalogue: false, openapi: false, paid_route_challenge: false, readiness_score: 0, missing: ['x402.json'] },
      trust_signals: { https: true, canonical: null, privacy_policy: null, terms: null, contact: null, about: null, pricing: null },
      evidence: [{ claim: 'agent readiness score 0/100', source: 'https://example.com' }],
      fixes: ['publish every paid route with method, path, price, networks and payTo'],
      decided_at: '2025-06-01T12:00:00.000Z',
    },
    run: decisionPacket,
  }),
  unavailable({
    id: 'tweets-search',
    title: 'Tweet search',
    description: 'Searches recent posts on X (Twitter) for a query and returns matching posts with author, time, text and engagement counts.',
    category: 'web',
    http: { method: 'GET', path: '/api/v1/paid/tweets-search', price: '0.005' },
    mcp: { tool: 'tweets_search', price: '0.005', annotations: READ_EXTERNAL },
    mode: FIXED,
    rails: X402_BOTH,
    input: z.object({
      query: z.string().min(1).max(512).describe('Search query (supports the usual search operators)'),
      limit: z.coerce.number().int().min(1).max(100).default(20).describe('Most posts to return'),
    }),
    inputExample: { query: 'x402', limit: 20 },
  }),
];
