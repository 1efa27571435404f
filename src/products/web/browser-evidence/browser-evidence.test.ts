/**
 * The product's logic against a stand-in page: what is delivered (and charged) and what is the
 * caller's input. The real isolated browser is tested end to end in test/browser-evidence.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_TIME_LIMITS, type BrowserPool, type IsolatedPage } from '../../../providers/browser.ts';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import { fakeContext } from '../../kit/fake-context.ts';
import { browserEvidence, evidenceInput, evidenceOutput } from './index.ts';

const PNG = Buffer.from('\x89PNG fake image', 'latin1');

interface PageScript {
  /** What loading the first document does: its answer, or a refusal. */
  open?: () => Promise<{ status: number; timedOut: boolean }>;
  /** Selectors that match an element. */
  elements?: string[];
  /** false: the renderer never answers (a script that never yields). */
  responsive?: boolean;
  /** false: the browser process is gone. */
  connected?: boolean;
}

/** A pool of one stand-in page, recording what the product did with it. */
function fakeBrowser(script: PageScript = {}) {
  const done: string[] = [];
  let url = '';
  const page = {
    url: () => url,
    locator: (selector: string) => ({
      first: () => ({
        waitFor: async () => {
          if (!script.elements?.includes(selector)) throw Object.assign(new Error(`waiting for ${selector}`), { name: 'TimeoutError' });
        },
        click: async () => void done.push(`click ${selector}`),
        fill: async (value: string) => void done.push(`fill ${selector} ${value}`),
      }),
    }),
    screenshot: async () => PNG,
    evaluate: async () => 'Counter\nclicked',
    title: async () => 'Counter',
  };
  const session = {
    page,
    browserConnected: script.connected ?? true,
    open: async (target: string) => {
      url = target;
      return script.open ? script.open() : { status: 200, timedOut: false };
    },
    settle: async () => true,
    responsive: async () => script.responsive ?? true,
    throwIfRefused: () => undefined,
  } as unknown as IsolatedPage;
  const browser = { timeLimits: DEFAULT_PAGE_TIME_LIMITS, withPage: (_options: unknown, fn: (page: IsolatedPage) => Promise<unknown>) => fn(session) } as unknown as BrowserPool;
  return { browser, done };
}

const run = (input: Record<string, unknown>, browser?: BrowserPool) => browserEvidence.run(browserEvidence.input.parse(input), fakeContext({ browser }));

describe('browser-evidence', () => {
  it('clicks, then returns the screenshot with its SHA-256, the text, title and final URL', async () => {
    const { browser, done } = fakeBrowser({ elements: ['#go'] });
    const evidence = await run({ url: 'https://example.com/', action: 'click', selector: '#go' }, browser);
    expect(done).toEqual(['click #go']);
    expect(evidence).toMatchObject({ url: 'https://example.com/', final_url: 'https://example.com/', status: 200, title: 'Counter', action: 'click', selector: '#go', text: 'Counter\nclicked', timed_out: false, captured_at: '2025-06-01T12:00:00.000Z' });
    expect(evidence.screenshot).toEqual({ mime_type: 'image/png', sha256: createHash('sha256').update(PNG).digest('hex'), base64: PNG.toString('base64') });
    expect(evidenceOutput.safeParse(evidence).success).toBe(true);
  });

  it('fills a field with the value', async () => {
    const { browser, done } = fakeBrowser({ elements: ['#name'] });
    await run({ url: 'https://example.com/', action: 'fill', selector: '#name', value: 'Ada' }, browser);
    expect(done).toEqual(['fill #name Ada']);
  });

  it('a page that never yields is delivered with timed_out and what could be gathered (no screenshot)', async () => {
    const { browser } = fakeBrowser({ responsive: false });
    const evidence = await run({ url: 'https://example.com/loop' }, browser);
    expect(evidence).toMatchObject({ timed_out: true, screenshot: null, text: '', title: '' });
  });

  it("the caller's input: a bad action 400, a selector matching nothing or a refused page 422, nothing charged", async () => {
    // Refused with the input itself (400 naming the field), so the unpaid 402 already says so.
    expect(evidenceInput.safeParse({ url: 'https://example.com/', action: 'click' }).error?.issues).toMatchObject([{ path: ['selector'], message: 'click needs a selector' }]);
    expect(evidenceInput.safeParse({ url: 'https://example.com/', action: 'fill', selector: '#name' }).error?.issues).toMatchObject([{ path: ['value'], message: 'fill needs a value' }]);
    await expect(run({ url: 'https://example.com/', action: 'click', selector: '#missing' }, fakeBrowser().browser)).rejects.toMatchObject({ status: 422, field: 'selector' });
    const refused = fakeBrowser({ open: () => Promise.reject(new SafeFetchError('blocked_address', 'refused: non-public address')) });
    await expect(run({ url: 'https://example.com/' }, refused.browser)).rejects.toMatchObject({ status: 422, field: 'url', message: expect.stringContaining('non-public address') });
  });

  it('without a browser, or when the browser stops, it is our failure (not a ProductInputError)', async () => {
    await expect(run({ url: 'https://example.com/' })).rejects.toThrow('no browser available');
    const crashed = fakeBrowser({ connected: false, open: () => Promise.reject(new Error('Target closed')) });
    await expect(run({ url: 'https://example.com/' }, crashed.browser)).rejects.toThrow('the browser stopped during the action');
  });

  it('takes http and https pages only', () => {
    for (const url of ['data:text/html,<p>x</p>', 'file:///etc/passwd', 'javascript:alert(1)']) expect(browserEvidence.input.safeParse({ url }).success, url).toBe(false);
  });
});
