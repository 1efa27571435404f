import { z } from 'zod';
import { OPEN_WORLD, product } from '../../kit/index.ts';
import { browserEvidence as run } from './run.ts';

export const evidenceInput = z.object({
  url: z.url({ protocol: /^https?$/ }).describe('Public http or https page to open'),
  action: z.enum(['load', 'click', 'fill']).default('load').describe('The one browser action to perform after loading'),
  selector: z.string().min(1).max(500).optional().describe('CSS selector of the element to click or fill (needed for click and fill)'),
  value: z.string().max(2000).optional().describe('Text to fill in (fill only)'),
  wait_ms: z.int().min(0).max(10_000).default(0).describe('Extra wait after the action before capturing, in milliseconds'),
})
  // Checked with the input, so the unpaid 402 already says what is missing.
  .superRefine((input, ctx) => {
    if (input.action !== 'load' && !input.selector) ctx.addIssue({ code: 'custom', path: ['selector'], message: `${input.action} needs a selector` });
    if (input.action === 'fill' && input.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: 'fill needs a value' });
  });

export const evidenceOutput = z.object({
  url: z.string().describe('The requested page'),
  final_url: z.string().describe('Where the page was when captured (after redirects and the action)'),
  status: z.int().describe('HTTP status of the first document'),
  title: z.string(),
  action: z.enum(['load', 'click', 'fill']),
  selector: z.string().optional(),
  text: z.string().describe('The page text after the action (at most 20,000 characters)'),
  screenshot: z
    .object({ mime_type: z.literal('image/png'), sha256: z.string(), base64: z.string() })
    .nullable()
    .describe('PNG screenshot, or null when none could be taken'),
  timed_out: z.boolean().describe("The action ended on the page's own behaviour; the evidence is what could be gathered"),
  captured_at: z.iso.datetime(),
});

export const browserEvidence = product({
  id: 'browser-evidence',
  title: 'Browser evidence capture',
  description:
    'Performs one headless-browser action on a public http(s) page (load it, click a selector, or fill a field) and returns the evidence: a PNG screenshot (base64 with its SHA-256), the page text after the action, title, final URL, capture time and `timed_out`. The browser has no network of its own: every request of the page, redirects included, goes through the safe fetcher, so it cannot reach private addresses. Charged when the action ran, also when it ended on the behaviour of the page itself (a script that never yields, a page that never finishes loading, a click that times out): then `timed_out` is true and the evidence is what could be gathered (`screenshot` null if none). Not charged: a refused or unresolvable address, also reached by a redirect or a click (422), a selector that matches nothing (422), a second concurrent call by the same payer (429), our own failures (5xx).',
  path: '/api/v1/paid/evidence/browser',
  price: '0.02',
  annotations: OPEN_WORLD,
  input: evidenceInput,
  inputExample: { url: 'https://example.com/', action: 'click', selector: 'a' },
  output: evidenceOutput,
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
  publishOutputSchema: false,
  requires: ['browser'],
  run,
});
