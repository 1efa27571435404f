import { z } from 'zod';
import { READ_EXTERNAL, fetchPage, fetchableUrl, product } from '../../kit/index.ts';
import { extractPage } from './extract.ts';

export const webExtractOutput = z.looseObject({
  url: z.url().describe('The extracted URL (after redirects)'),
  title: z.string().describe('Page title'),
  content: z.string().describe('Cleaned main text of the page'),
  description: z.string().optional().describe('Meta description, when present'),
  links: z.array(z.string()).optional().describe('Absolute links found on the page'),
  metadata: z.looseObject({}).optional().describe('Page metadata (Open Graph, language, canonical URL…)'),
  extracted_at: z.iso.datetime().optional().describe('Extraction timestamp, ISO 8601'),
});

/** One public page in, its main content out; charged only when content is extracted (see fetchPage). */
export const webExtract = product({
  id: 'web-extract',
  title: 'Web page extraction',
  description:
    'Fetches one public web page and returns its cleaned main text (`content`) and Markdown (`markdown`), `title` and final `url`, plus meta description, links, metadata (language, canonical URL, Open Graph, published time) and extraction timestamp. HTML, plain text and JSON pages; private addresses are refused. Charged only when content is extracted: a refused, unresolvable or missing page (HTTP 4xx) is 422, a failing or unreachable site 502/504, neither charged.',
  price: '0.03',
  annotations: READ_EXTERNAL,
  input: z.object({
    url: fetchableUrl().describe('http or https URL of the page to extract'),
  }),
  inputExample: { url: 'https://example.com/' },
  output: webExtractOutput,
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
  run: async (input, ctx) => extractPage(await fetchPage(input.url, ctx), ctx.now),
});
