/**
 * Page extraction, shared by the web products: one fetched page in, its main content out (clean
 * text and Markdown), with title, final URL, links and metadata. Readability finds the main
 * content; linkedom is the DOM.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { ProductInputError } from '../../kit/index.ts';
import type { SafeResponse } from '../../../providers/safe-fetch.ts';

/**
 * The extraction record. Richer than web-extract's published output schema (a loose contract on
 * some of these fields), which the compiler checks it satisfies.
 */
export type ExtractedPage = {
  url: string;
  title: string;
  content: string;
  markdown: string;
  description: string;
  links: string[];
  metadata: {
    content_type: string;
    lang?: string;
    canonical?: string;
    site_name?: string;
    byline?: string;
    published_time?: string;
    open_graph: Record<string, string>;
  };
  extracted_at: string;
};

const MAX_LINKS = 200;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export function extractPage(response: SafeResponse, now: Date): ExtractedPage {
  const text = response.body.toString('utf8');
  const base = { url: response.url, extracted_at: now.toISOString() };
  if (HTML_TYPES.has(response.contentType) || (!response.contentType && /^\s*</.test(text))) return { ...base, ...extractHtml(text, response) };
  if (response.contentType === 'text/plain' || response.contentType === 'text/markdown') {
    return { ...base, title: '', content: normalize(text), markdown: text, description: '', links: [], metadata: { content_type: response.contentType, open_graph: {} } };
  }
  if (response.contentType === 'application/json' || response.contentType.endsWith('+json')) {
    let pretty: string;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      throw new ProductInputError('the page claims JSON but is not valid JSON', 422, 'url');
    }
    return { ...base, title: '', content: pretty, markdown: `\`\`\`json\n${pretty}\n\`\`\``, description: '', links: [], metadata: { content_type: response.contentType, open_graph: {} } };
  }
  throw new ProductInputError(`cannot extract content of type ${response.contentType || 'unknown'} (HTML, plain text and JSON are supported)`, 415, 'url');
}

function extractHtml(html: string, response: SafeResponse): Omit<ExtractedPage, 'url' | 'extracted_at'> {
  const { document } = parseHTML(html);
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() || undefined;
  const openGraph: Record<string, string> = {};
  for (const node of document.querySelectorAll('meta[property^="og:"]')) {
    const property = node.getAttribute('property');
    const content = node.getAttribute('content');
    if (property && content) openGraph[property.slice(3)] = content.trim();
  }
  const links = collectLinks(document, response.url);
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? undefined;
  const lang = document.documentElement?.getAttribute('lang') ?? undefined;
  const documentTitle = document.querySelector('title')?.textContent?.trim() ?? '';
  // Readability changes the document it reads: metadata and links are taken before.
  const article = new Readability(document as unknown as Document).parse();
  const contentHtml = article?.content ?? document.body?.innerHTML ?? '';
  const textContent = article?.textContent ?? document.body?.textContent ?? '';
  const published = meta('meta[property="article:published_time"]') ?? meta('meta[name="date"]') ?? article?.publishedTime ?? undefined;
  return {
    title: article?.title?.trim() || openGraph.title || documentTitle,
    content: normalize(textContent),
    markdown: markdownOf(contentHtml),
    description: meta('meta[name="description"]') ?? openGraph.description ?? article?.excerpt?.trim() ?? '',
    links,
    metadata: {
      content_type: response.contentType || 'text/html',
      ...(lang ? { lang } : {}),
      ...(canonical ? { canonical: absolute(canonical, response.url) ?? canonical } : {}),
      ...((article?.siteName ?? openGraph.site_name) ? { site_name: (article?.siteName ?? openGraph.site_name)! } : {}),
      ...(article?.byline ? { byline: article.byline.trim() } : {}),
      ...(published ? { published_time: published } : {}),
      open_graph: openGraph,
    },
  };
}

function collectLinks(document: ReturnType<typeof parseHTML>['document'], baseUrl: string): string[] {
  const seen = new Set<string>();
  for (const a of document.querySelectorAll('a[href]')) {
    const url = absolute(a.getAttribute('href') ?? '', baseUrl);
    if (url && /^https?:/.test(url)) seen.add(url.replace(/#.*$/, ''));
    if (seen.size >= MAX_LINKS) break;
  }
  return [...seen];
}

function absolute(href: string, base: string): string | undefined {
  try {
    return new URL(href, base).toString();
  } catch {
    return undefined;
  }
}

function normalize(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });

function markdownOf(html: string): string {
  return html ? turndown.turndown(html).trim() : '';
}
