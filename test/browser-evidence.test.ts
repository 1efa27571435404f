import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { DevChain } from '../src/devchain/stack.ts';
import { chromiumPath } from '../src/providers/browser.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { paidPostJson } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

const PAGE = `<!doctype html><html><head><title>Counter</title></head><body>
<h1 id="state">not clicked</h1>
<button id="go" onclick="document.getElementById('state').textContent = 'clicked ' + document.getElementById('name').value">Go</button>
<input id="name" value="">
<script>
  fetch('http://10.0.0.1/secret').then(() => { document.getElementById('leak').textContent = 'LEAKED'; }, () => { document.getElementById('leak').textContent = 'private fetch blocked'; });
</script>
<p id="leak">pending</p>
</body></html>`;

if (!chromiumPath() && process.env.PERCALL_REQUIRE_BROWSER) throw new Error('PERCALL_REQUIRE_BROWSER is set but no Chromium was found');
const suite = chromiumPath() ? describe : describe.skip;

let chain: DevChain;
let service: RunningService;
let site: Server;
let siteUrl: string;

suite('browser_evidence', () => {
  beforeAll(async () => {
    ({ url: siteUrl, server: site } = await localSite((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)));
    chain = await startTestChain();
    service = await startTestService({ chain, env: { PERCALL_FETCH_ALLOW_LOOPBACK: '1' } });
  });
  afterAll(async () => {
    site?.close();
    await service?.stop();
    await chain?.stop();
  });

  const evidence = (body: unknown) => paidPostJson(chain, `${service.url}/api/v1/paid/evidence/browser`, body);

  it('fills, clicks, and returns a screenshot and the DOM text; the page cannot reach a private address', async () => {
    const filled = await evidence({ url: siteUrl, action: 'fill', selector: '#name', value: 'Ada' });
    expect(filled.status).toBe(200);
    const clicked = await evidence({ url: siteUrl, action: 'click', selector: '#go', wait_ms: 200 });
    expect(clicked.status).toBe(200);
    const result = (await clicked.json()) as { title: string; text: string; final_url: string; screenshot: { base64: string; sha256: string; mime_type: string } };
    expect(result.title).toBe('Counter');
    expect(result.text).toContain('clicked');
    expect(result.text).toContain('private fetch blocked');
    expect(result.text).not.toContain('LEAKED');
    const png = Buffer.from(result.screenshot.base64, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(createHash('sha256').update(png).digest('hex')).toBe(result.screenshot.sha256);
  });

  it('bad actions are refused and not charged', async () => {
    const before = await balances(chain);
    expect((await evidence({ url: siteUrl, action: 'click' })).status).toBe(400);
    expect((await evidence({ url: siteUrl, action: 'click', selector: '#missing' })).status).toBe(422);
    expect((await evidence({ url: 'http://169.254.169.254/' })).status).toBe(422);
    expect(await balances(chain)).toEqual(before);
  });
});
