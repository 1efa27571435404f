// Test fixture of the answer products: a small documentation site (reserved example.com names,
// RFC 2606, or served on loopback by the service tests) and a search provider that finds it.
import type { DataProviders } from '../../providers/data.ts';
import type { SearchResult, WebSearchProvider } from '../../providers/search/types.ts';
import { response, stubFetch } from '../kit/fake-context.ts';

export const FIXTURE_ORIGIN = 'https://docs.example.com';

const page = (title: string, paragraphs: string[]) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Example Docs</title></head>
<body>
<nav><a href="/">Home</a> <a href="/http/">HTTP</a> <a href="/x402/">x402</a></nav>
<main><article>
<h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article></main>
<footer>Example Docs. Content for illustration.</footer>
</body></html>`;

/** The site's pages in the order the search ranks them; `status` other than 200 makes the page fail. */
export const SITE_PAGES: { path: string; title: string; snippet: string; status: number; html: string }[] = [
  {
    path: '/http/status/402',
    title: '402 Payment Required',
    snippet: 'The HTTP 402 Payment Required status code, reserved for future use.',
    status: 200,
    html: page('402 Payment Required', [
      'The HTTP 402 Payment Required status code is a client error status. HTTP/1.1 reserved it for future use, and RFC 9110 still defines no standard semantics for it.',
      'It was meant for digital cash and micropayment systems: the status tells the client that the requested resource is available only after a payment.',
      'Since no convention was ever standardised, services that answer 402 describe in the response body what the client has to pay and how.',
    ]),
  },
  {
    path: '/x402/how-it-works',
    title: 'How x402 works',
    snippet: 'x402 is an open payment protocol built on the HTTP 402 status code.',
    status: 200,
    html: page('How x402 works', [
      'x402 is an open payment protocol built on the HTTP 402 status code, so that clients such as AI agents can pay for an API call over plain HTTP.',
      'A server answers a request for a paid resource with status 402 and the payment requirements it accepts: the network, the asset, the amount and the recipient.',
      'The client signs a payment authorization for one of those requirements and sends the request again with the payment in a header. The server verifies the payment, settles it on chain, usually through a facilitator, and returns the resource with a payment response header.',
    ]),
  },
  { path: '/http/status/broken', title: 'HTTP status codes (mirror)', snippet: 'A mirror of the HTTP status code reference.', status: 500, html: 'upstream failure' },
  {
    path: '/http/status/404',
    title: '404 Not Found',
    snippet: 'The 404 Not Found response.',
    status: 200,
    html: page('404 Not Found', [
      'A 404 Not Found response means that the server cannot find the requested resource. Links that lead to a 404 page are called broken links.',
      'A server may answer 404 instead of 403 to hide the existence of a resource from a client that is not allowed to see it.',
    ]),
  },
];

/** The pages as search results on `origin`, in rank order. */
export const siteResults = (origin: string): SearchResult[] =>
  SITE_PAGES.map((p) => ({ title: p.title, url: `${origin}${p.path}`, snippet: p.snippet, published_at: null, source: new URL(origin).hostname }));

/** A web-search provider that finds the site for any query but `nothing matches this`; records the queries. */
export function siteSearch(origin = FIXTURE_ORIGIN): WebSearchProvider & { queries: string[] } {
  const queries: string[] = [];
  return {
    name: 'SearXNG',
    queries,
    async search(query, limit) {
      queries.push(query);
      return { provider: 'SearXNG', results: query === 'nothing matches this' ? [] : siteResults(origin).slice(0, limit) };
    },
  };
}

export const siteData = (search: WebSearchProvider = siteSearch()): DataProviders => ({ webSearch: search, kinds: ['web-search'], stats: () => [] });

/** The site's pages for the fake context's fetch, at FIXTURE_ORIGIN. */
export const siteFetch = () =>
  stubFetch(Object.fromEntries(SITE_PAGES.map((p) => [`${FIXTURE_ORIGIN}${p.path}`, response(p.html, { status: p.status, contentType: p.status === 200 ? 'text/html' : 'text/plain' })])));
