import { ARTICLE, expectTidesArticle } from '../src/products/web/web-extract/article.fixture.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson } from './helpers/payments.ts';
import { balances, useTestService } from './helpers/service.ts';

let chain: DevChain;
let service: RunningService;
let site: Server;
let siteUrl: string;
/** A loopback port nothing listens on (a server was bound there and closed). */
let closedPort: number;

beforeAll(async () => {
  ({ url: siteUrl, server: site } = await localSite((req, res) => {
    if (req.url === '/articles/tides') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    if (req.url === '/old') return res.writeHead(301, { location: '/articles/tides' }).end();
    if (req.url === '/data.json') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"b":2,"a":[1,2]}');
    if (req.url === '/file.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7');
    if (req.url === '/broken') return res.writeHead(500).end('boom');
    res.writeHead(404).end('not here');
  }));
  const closed = await localSite(() => undefined);
  closedPort = Number(new URL(closed.url).port);
  await new Promise((resolve) => closed.server.close(resolve));
});
afterAll(() => site?.close());
// Test pages are served on loopback, which the fetcher only reaches when told to.
useTestService((c, s) => ((chain = c), (service = s)), { env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });

const extract = (url: string) => paidPostJson(chain, `${service.url}/api/v1/paid/web-extract`, { url });

describe('web-extract', () => {
  it('extracts the article: clean text, Markdown, title, final URL, links and metadata; charged 0.03', async () => {
    const before = await balances(chain);
    const response = await extract(`${siteUrl}/old`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as Record<string, any>;
    expectTidesArticle(page, siteUrl);
    expect(new Date(page.extracted_at).toISOString()).toBe(page.extracted_at);
    expect(before.buyer - (await balances(chain)).buyer).toBe(30_000n);
  });

  it('JSON pages are returned as JSON text; other types are refused clearly and not charged', async () => {
    const json = (await (await extract(`${siteUrl}/data.json`)).json()) as { content: string };
    expect(JSON.parse(json.content)).toEqual({ b: 2, a: [1, 2] });
    const before = await balances(chain);
    const pdf = await extract(`${siteUrl}/file.pdf`);
    expect(pdf.status).toBe(415);
    expect(((await pdf.json()) as { detail: string }).detail).toContain('application/pdf');
    expect((await extract(`${siteUrl}/missing`)).status).toBe(422);
    const blocked = await extract(`http://0.0.0.0:${new URL(siteUrl).port}/articles/tides`);
    expect(blocked.status).toBe(422);
    expect(((await blocked.json()) as { detail: string }).detail).toContain('non-public address');
    expect(await balances(chain)).toEqual(before);
  });

  it('only extracted content is charged: the caller\'s target is 422 naming url, a failing or silent site 502', async () => {
    const before = await balances(chain);
    for (const url of ['http://no-such-host.invalid/', `http://[::127.0.0.1]:${new URL(siteUrl).port}/articles/tides`]) {
      const response = await extract(url);
      expect(response.status, url).toBe(422);
      expect(((await response.json()) as { errors: unknown[] }).errors, url).toEqual([expect.objectContaining({ field: 'url' })]);
    }
    expect((await extract(`${siteUrl}/broken`)).status).toBe(502);
    expect((await extract(`http://127.0.0.1:${closedPort}/`)).status).toBe(502);
    expect(await balances(chain)).toEqual(before);
  });

  it('the unpaid 402 already warns about a URL the fetcher never takes', async () => {
    for (const url of ['ftp://no-such-host.invalid/file', 'http://user:secret@no-such-host.invalid/']) {
      const response = await fetch(`${service.url}/api/v1/paid/web-extract`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
      expect(response.status).toBe(402);
      expect(((await response.json()) as { error: string }).error, url).toMatch(/^invalid_input: url: /);
    }
  });
});
