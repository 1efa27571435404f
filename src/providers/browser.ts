import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { safeFetch, SafeFetchError, type FetchPolicy } from './safe-fetch.ts';

const CANDIDATES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser'];
const MAX_PARALLEL = 2;

/** Where a Chromium is: CHROMIUM_PATH, else Debian's headless shell or full Chromium. */
export function chromiumPath(): string | undefined {
  return [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => Boolean(p && existsSync(p)));
}

/**
 * One headless Chromium shared by all calls, a fresh context per call, at most MAX_PARALLEL at once,
 * each with a hard time limit. The page reaches the network only through the safe fetcher: every
 * request is intercepted and fetched by us under the same address rules, WebSockets are refused,
 * so a page cannot reach a private address from inside the browser either.
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly policy: FetchPolicy) {}

  async withPage<T>(timeoutMs: number, fn: (context: BrowserContext) => Promise<T>): Promise<T> {
    await this.slot();
    let context: BrowserContext | undefined;
    try {
      const browser = await this.launch();
      context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: true, serviceWorkers: 'block' });
      const ctx = context;
      await ctx.route('**/*', async (route) => {
        const request = route.request();
        try {
          const response = await safeFetch(request.url(), { method: request.method(), headers: forwardable(request.headers()), body: request.postData() ?? undefined, followRedirects: false }, this.policy);
          await route.fulfill({ status: response.status, headers: response.headers, body: response.body });
        } catch (error) {
          await route.abort(error instanceof SafeFetchError && error.code === 'blocked_address' ? 'blockedbyclient' : 'failed');
        }
      });
      await ctx.routeWebSocket(/.*/, (ws) => ws.close());
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the browser action took longer than ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([fn(ctx), deadline]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      await context?.close().catch(() => undefined);
      this.release();
    }
  }

  async close(): Promise<void> {
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    await browser?.close();
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      const executablePath = chromiumPath();
      if (!executablePath) throw new Error('no Chromium installed (install Debian chromium-headless-shell or set CHROMIUM_PATH)');
      // Chromium's own sandbox stays on, except as root, where Chromium refuses to start with it.
      const sandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
      this.browser = chromium.launch({
        executablePath,
        chromiumSandbox: sandbox.length === 0,
        args: [...sandbox, '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      this.browser.catch(() => (this.browser = undefined));
    }
    return this.browser;
  }

  private async slot(): Promise<void> {
    if (this.active < MAX_PARALLEL) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/** Browser-managed headers stay with the browser; the rest goes to the target. */
function forwardable(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!/^(host|connection|content-length|accept-encoding|cookie)$/i.test(name)) out[name] = value;
  return out;
}
