import { z } from 'zod';
import { READ_EXTERNAL, fetchPage, httpsUrl, product } from '../../kit/index.ts';
import { extractPage } from '../web-extract/extract.ts';

const SAMPLE_CHARS = 1500;

export const sampleOutput = z.object({
  url: z.string().describe('The extracted URL (after redirects)'),
  title: z.string(),
  description: z.string(),
  content_sample: z.string().describe('The first 1,500 characters of the main text'),
  content_length: z.int().describe('Length of the whole main text'),
  truncated: z.boolean(),
  link_count: z.int(),
  metadata: z.looseObject({ content_type: z.string() }),
  full_extraction: z.object({ tool: z.string(), route: z.string() }).describe('Where the full extraction is sold'),
  extracted_at: z.iso.datetime(),
});

/** A low-priced sample of web_extract; charged only when content is extracted (see fetchPage). */
export const purchaseWebExtractionSample = product({
  id: 'purchase-web-extraction-sample',
  title: 'Web extraction sample',
  description:
    'Extracts one HTTPS page as a low-priced sample of web_extract: title, description, metadata, the first 1,500 characters of the main text (`content_sample`, with `content_length` and `truncated`) and the link count. Charged only when content is extracted, like web_extract.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: httpsUrl().describe('HTTPS URL of the page'),
  }),
  inputExample: { url: 'https://example.com/' },
  output: sampleOutput,
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
  publishOutputSchema: false,
  run: async (input, ctx) => {
    const page = extractPage(await fetchPage(input.url, ctx), ctx.now);
    return {
      url: page.url,
      title: page.title,
      description: page.description,
      content_sample: page.content.slice(0, SAMPLE_CHARS),
      content_length: page.content.length,
      truncated: page.content.length > SAMPLE_CHARS,
      link_count: page.links.length,
      metadata: page.metadata,
      full_extraction: { tool: 'web_extract', route: 'POST /api/v1/paid/web-extract' },
      extracted_at: page.extracted_at,
    };
  },
});
