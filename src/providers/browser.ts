import { withDeadline } from '../deadline.ts';
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Frame, Page, Request, Route } from 'playwright-core';
import { PACKAGE_ROOT } from '../package-root.ts';
import { ProductInputError } from '../products/kit/errors.ts';
import { safeFetch, SafeFetchError, type FetchPolicy, type SafeResponse } from './safe-fetch.ts';

/*
 * How a page is kept from reaching anything by itself (design):
 *
 * 1. Chromium runs in its own, empty network namespace (chromium-netns.sh: `unshare --net`, or
 *    `bwrap --unshare-net` when not root). Its only interface is the namespace's own loopback, so
 *    no path around request interception (WebRTC/STUN/TURN, DNS, QUIC, a redirect Chromium follows
 *    by itself, anything a later Chromium adds) can leave the browser: isolation by construction,
 *    not by flags. Playwright drives Chromium over --remote-debugging-pipe (inherited file
 *    descriptors), which needs no network. If no namespace can be made, Chromium is not started
 *    and the product is unavailable (`browserAvailable`, the catalogue's `browser` requirement).
 * 2. Every request of a page is answered from Node through the safe fetcher. Playwright does not
 *    call the route handler again for a redirect it was fulfilled with (it continues the
 *    redirected request to the network itself: checked in playwright-core 1.65, and the cause of the
 *    main-frame redirect hole), so redirects are never handed to Chromium: the fetcher follows them,
 *    re-checking every hop. A sub-resource gets the final answer. A navigation that was redirected
 *    is aborted and its frame sent to the final URL with a new navigation, which is intercepted
 *    again and answered with the response already fetched: the page shows the right URL, resolves
 *    relative URLs against it, and nothing is fetched twice.
 * 3. The pool is bounded: MAX_PAGES pages at once, MAX_PAGES_PER_CALLER per caller (over it: 429,
 *    at once), a bounded wait for a free page (then BrowserBusyError), a hard time limit per page,
 *    and the page's context is always closed and its slot always given back.
 */

const CANDIDATES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser'];
/** Pages open at once, all callers together. */
export const MAX_PAGES = 2;
/** Pages open at once for one caller (payer address); a caller over it is refused with 429. */
export const MAX_PAGES_PER_CALLER = 1;
/** How long a call waits for a free page before giving up (BrowserBusyError, never charged). */
export const SLOT_WAIT_MS = 5_000;

export interface PageTimeLimits {
  loadMs: number;
  actionMs: number;
}
export const DEFAULT_PAGE_TIME_LIMITS: PageTimeLimits = { loadMs: 10_000, actionMs: 5_000 };
/** Closing a context (which ends a stuck renderer) is waited for this long at most. */
const CLOSE_WAIT_MS = 5_000;
/** Redirected navigations one page may make; beyond it they fail. */
const MAX_RENAVIGATIONS = 20;
/** Requests one page may have fetched; beyond it they fail (a page cannot make us fetch without end). */
const MAX_REQUESTS_PER_PAGE = 500;
/** A response fetched for a redirected navigation waits this long for the frame to ask for it. */
const PRIMED_TTL_MS = 15_000;

const NETNS_WRAPPER = join(PACKAGE_ROOT, 'src', 'providers', 'chromium-netns.sh');

/** Where a Chromium is: CHROMIUM_PATH, else Debian's headless shell or full Chromium. */
export function chromiumPath(): string | undefined {
  return [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => Boolean(p && existsSync(p)));
}

export type BrowserIsolation = { ok: true; chromium: string; wrapper: string } | { ok: false; reason: string };

const isolationChecks = new Map<string, BrowserIsolation>();

/**
 * Whether the browser can run here isolated: a Chromium is installed and the namespace wrapper
 * really starts a program whose only network interface is loopback (probed once per Chromium path).
 */
export function browserIsolation(): BrowserIsolation {
  const chromiumExe = chromiumPath();
  if (!chromiumExe) return { ok: false, reason: 'no Chromium installed (install Debian chromium-headless-shell or set CHROMIUM_PATH)' };
  let result = isolationChecks.get(chromiumExe);
  if (!result) {
    result = probeIsolation(chromiumExe);
    isolationChecks.set(chromiumExe, result);
  }
  return result;
}

/** The catalogue's `browser` requirement: met only by an installed Chromium that can be isolated. */
export function browserAvailable(): boolean {
  return browserIsolation().ok;
}

function probeIsolation(chromiumExe: string): BrowserIsolation {
  let wrapper: string;
  try {
    wrapper = executableWrapper();
  } catch (error) {
    return { ok: false, reason: `the network-namespace wrapper cannot be prepared: ${(error as Error).message}` };
  }
  // The probe reads the interface list from inside the namespace the wrapper makes.
  const probe = spawnSync(wrapper, ['/proc/self/net/dev'], { env: { ...process.env, PERCALL_NETNS_EXEC: 'cat' }, encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) return { ok: false, reason: `Chromium cannot be started in its own network namespace: ${(probe.stderr || String(probe.error ?? '')).trim().slice(0, 300)}` };
  const interfaces = probe.stdout
    .split('\n')
    .slice(2)
    .map((line) => line.split(':')[0]!.trim())
    .filter(Boolean);
  if (interfaces.some((name) => name !== 'lo')) return { ok: false, reason: `the network namespace is not empty (interfaces: ${interfaces.join(', ')})` };
  return { ok: true, chromium: chromiumExe, wrapper };
}

/** The shipped wrapper, or a private executable copy when the installed file lost its exec bit. */
function executableWrapper(): string {
  try {
    accessSync(NETNS_WRAPPER, constants.X_OK);
    return NETNS_WRAPPER;
  } catch {
    const copy = join(mkdtempSync(join(tmpdir(), 'percall-netns-')), 'chromium-netns.sh');
    copyFileSync(NETNS_WRAPPER, copy);
    chmodSync(copy, 0o700);
    return copy;
  }
}

/** No page became free in time: our own capacity, not the caller's doing (a product failure, never charged). */
export class BrowserBusyError extends Error {
  override name = 'BrowserBusyError';
}

/** The browser work of one call outran the pool's hard limit (our failure, never charged). */
export class BrowserTimeLimitError extends Error {
  override name = 'BrowserTimeLimitError';
}

/** The page could not be shown at all (nothing committed): the caller's target, answered 422. */
export class PageLoadError extends Error {
  override name = 'PageLoadError';
}

/** A main-frame target that is refused or cannot be resolved: the caller's input problem. */
export function isRefusedTarget(error: unknown): error is SafeFetchError {
  if (!(error instanceof SafeFetchError)) return false;
  return error.code === 'blocked_address' || error.code === 'invalid_url' || error.code === 'too_many_redirects' || error.code === 'unresolvable_host';
}

/**
 * One headless Chromium, isolated in its own network namespace, shared by all calls; a fresh
 * context per call whose every request is fetched by the safe fetcher.
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly perCaller = new Map<string, number>();

  constructor(
    private readonly policy: FetchPolicy,
    private readonly limits: { pages: number; perCaller: number; slotWaitMs: number } = { pages: MAX_PAGES, perCaller: MAX_PAGES_PER_CALLER, slotWaitMs: SLOT_WAIT_MS },
    /** How long a page's load, and an action with what it starts, are awaited (BROWSER_*_TIMEOUT_MS). */
    readonly timeLimits: PageTimeLimits = DEFAULT_PAGE_TIME_LIMITS,
  ) {}

  /**
   * Runs `fn` with a fresh isolated page. A caller already at its limit is refused at once
   * (ProductInputError 429); waiting for a free page is bounded (BrowserBusyError); the whole call
   * is bounded by `timeoutMs` plus one fetch time limit (for the first document) and the context is
   * always closed and the slot given back.
   */
  async withPage<T>(options: { caller?: string; timeoutMs: number }, fn: (page: IsolatedPage) => Promise<T>): Promise<T> {
    const caller = options.caller?.toLowerCase();
    if (caller !== undefined) {
      const running = this.perCaller.get(caller) ?? 0;
      if (running >= this.limits.perCaller) {
        throw new ProductInputError(`this payer already has ${running} browser action${running === 1 ? '' : 's'} running (at most ${this.limits.perCaller} at once); retry when it has finished`, 429);
      }
      this.perCaller.set(caller, running + 1);
    }
    try {
      await this.slot();
      try {
        return await this.session(options.timeoutMs + this.policy.timeoutMs, fn);
      } finally {
        this.release();
      }
    } finally {
      if (caller !== undefined) {
        const left = (this.perCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.perCaller.set(caller, left);
        else this.perCaller.delete(caller);
      }
    }
  }

  async close(): Promise<void> {
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
  }

  private async session<T>(limitMs: number, fn: (page: IsolatedPage) => Promise<T>): Promise<T> {
    const browser = await this.launch();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      javaScriptEnabled: true,
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    const isolated = new IsolatedPage(context, browser, this.policy);
    try {
      await isolated.start();
      return await withDeadline(fn(isolated), limitMs, () => new BrowserTimeLimitError(`the browser action took longer than ${limitMs} ms`));
    } finally {
      isolated.closed = true;
      // Closing the context also ends a renderer stuck in a script; never wait on it forever.
      await within(context.close(), CLOSE_WAIT_MS);
    }
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      const isolation = browserIsolation();
      if (!isolation.ok) return Promise.reject(new Error(isolation.reason));
      // Chromium's own sandbox stays on, except as root, where Chromium refuses to start with it.
      const sandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
      // playwright-core is loaded on the first browser call only: a service that never renders a
      // page does not carry it in memory.
      const launching = import('playwright-core').then(({ chromium }) => chromium.launch({
        // The wrapper puts Chromium in its own network namespace (see the design note above).
        executablePath: isolation.wrapper,
        env: { ...process.env, PERCALL_NETNS_EXEC: isolation.chromium },
        chromiumSandbox: sandbox.length === 0,
        timeout: 30_000,
        args: [
          ...sandbox,
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--dns-prefetch-disable',
          // Belt and braces only: the namespace is what keeps WebRTC from reaching anything.
          '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        ],
      }));
      this.browser = launching;
      launching.then(
        (browser) => browser.on('disconnected', () => this.browser === launching && (this.browser = undefined)),
        () => this.browser === launching && (this.browser = undefined),
      );
    }
    return this.browser;
  }

  private slot(): Promise<void> {
    if (this.active < this.limits.pages) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(new BrowserBusyError(`every browser page stayed busy for ${this.limits.slotWaitMs} ms; retry later`));
      }, this.limits.slotWaitMs);
      this.waiting.push(waiter);
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/**
 * One call's page: its context's every request is answered through the safe fetcher, redirects are
 * followed by the fetcher (hop by hop) and redirected navigations re-issued to the final URL.
 */
export class IsolatedPage {
  page!: Page;
  /** Set when the pool is done with this page: late requests are refused. */
  closed = false;
  /** The first main-frame navigation refused (non-public or unresolvable target). */
  refusal: SafeFetchError | undefined;
  private readonly primed = new Map<string, { response: SafeResponse; at: number }>();
  private readonly following = new Set<Promise<unknown>>();
  private navigating = 0;
  private renavigations = 0;
  private requests = 0;
  private idleWaiters: (() => void)[] = [];
  private navigationWaiters: (() => void)[] = [];

  constructor(
    readonly context: BrowserContext,
    private readonly browser: Browser,
    private readonly policy: FetchPolicy,
  ) {}

  async start(): Promise<void> {
    await this.context.route('**/*', (route) => this.serve(route));
    await this.context.routeWebSocket(/.*/, (ws) => ws.close());
    this.page = await this.context.newPage();
    // Popups are not part of the evidence: close them rather than let them run.
    this.context.on('page', (other) => {
      if (other !== this.page) other.close().catch(() => undefined);
    });
  }

  /** The browser itself is still there (a crash of the whole browser is our failure, not the page's). */
  get browserConnected(): boolean {
    return this.browser.isConnected();
  }

  /**
   * Loads `url`: the document is fetched here first (each redirect hop checked; a refused or failing
   * target throws SafeFetchError), then shown. `timedOut` when the page did not finish loading
   * within `loadTimeoutMs` (its own doing: the evidence is still delivered).
   */
  async open(url: string, loadTimeoutMs: number): Promise<{ status: number; timedOut: boolean }> {
    const document = await safeFetch(url, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } }, this.policy);
    this.prime(document);
    const outcome = await this.page.goto(document.url, { waitUntil: 'load', timeout: loadTimeoutMs }).then(
      () => undefined,
      (error: Error) => error,
    );
    if (!outcome) return { status: document.status, timedOut: false };
    if (outcome.name === 'TimeoutError') return { status: document.status, timedOut: true };
    // Something else ended this navigation (the page navigated on, or a redirect re-issued it).
    const settled = await this.settle(loadTimeoutMs, 0);
    this.throwIfRefused();
    if (/^(about:blank|chrome-error:)/.test(this.page.url())) throw new PageLoadError(`the page could not be shown: ${outcome.message.split('\n')[0]}`);
    return { status: document.status, timedOut: !settled };
  }

  /** Throws the main-frame refusal, if a navigation of the page was refused. */
  throwIfRefused(): void {
    if (this.refusal) throw this.refusal;
  }

  /**
   * Waits until the navigations in flight (and redirected ones re-issued) have finished and the page
   * has loaded, at most `timeoutMs`. `graceMs`: how long to wait for a navigation an action just
   * started to reach us. False when the page did not settle in time.
   */
  async settle(timeoutMs: number, graceMs = 150): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    if (graceMs > 0 && this.navigating === 0 && this.following.size === 0) {
      await within(new Promise<void>((resolve) => this.navigationWaiters.push(resolve)), graceMs);
    }
    while (this.navigating > 0 || this.following.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      const idle = new Promise<true>((resolve) => this.idleWaiters.push(() => resolve(true)));
      if ((await within(idle, remaining)) === undefined) return false;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return false;
    return (await within(this.page.waitForLoadState('load', { timeout: remaining }).then(() => true), remaining)) === true;
  }

  /** Whether the page's renderer still answers (a script that never yields blocks it). */
  async responsive(timeoutMs: number): Promise<boolean> {
    return (await within(this.page.evaluate(() => true), timeoutMs)) === true;
  }

  private prime(response: SafeResponse): void {
    this.primed.set(documentKey(response.url), { response, at: Date.now() });
  }

  private takePrimed(url: string): SafeResponse | undefined {
    const key = documentKey(url);
    const entry = this.primed.get(key);
    if (!entry) return undefined;
    this.primed.delete(key);
    return Date.now() - entry.at <= PRIMED_TTL_MS ? entry.response : undefined;
  }

  private async serve(route: Route): Promise<void> {
    const request = route.request();
    if (this.closed || ++this.requests > MAX_REQUESTS_PER_PAGE) return route.abort('failed').catch(() => undefined);
    const navigation = request.isNavigationRequest();
    const frame = navigation ? frameOf(request) : undefined;
    const mainFrame = frame !== undefined && frame === this.page?.mainFrame();
    if (navigation) {
      for (const wake of this.navigationWaiters.splice(0)) wake();
      const primed = request.method() === 'GET' ? this.takePrimed(request.url()) : undefined;
      if (primed) return fulfil(route, primed);
      this.navigating++;
    }
    try {
      const response = await safeFetch(
        request.url(),
        { method: request.method(), headers: forwardable(request.headers()), body: request.postData() ?? undefined, followRedirects: true },
        this.policy,
      );
      if (this.closed) return void (await route.abort('failed').catch(() => undefined));
      if (navigation && frame && documentKey(response.url) !== documentKey(request.url())) {
        // Redirected: Chromium would follow the Location itself without asking us, so it never sees
        // the redirect; the frame navigates anew to the final URL and gets the answer fetched here.
        if (++this.renavigations > MAX_RENAVIGATIONS) return void (await route.abort('failed').catch(() => undefined));
        this.prime(response);
        await route.abort('aborted').catch(() => undefined);
        this.follow(frame.goto(response.url, { waitUntil: 'commit', timeout: this.policy.timeoutMs }));
        return;
      }
      await fulfil(route, response);
    } catch (error) {
      if (mainFrame && isRefusedTarget(error)) this.refusal ??= error;
      const blocked = error instanceof SafeFetchError && (error.code === 'blocked_address' || error.code === 'invalid_url');
      await route.abort(blocked ? 'blockedbyclient' : 'failed').catch(() => undefined);
    } finally {
      if (navigation) {
        this.navigating--;
        this.wakeIfIdle();
      }
    }
  }

  private follow(navigation: Promise<unknown>): void {
    const tracked: Promise<unknown> = navigation
      .catch(() => undefined)
      .finally(() => {
        this.following.delete(tracked);
        this.wakeIfIdle();
      });
    this.following.add(tracked);
  }

  private wakeIfIdle(): void {
    if (this.navigating === 0 && this.following.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined; // a service worker's request (workers are blocked anyway)
  }
}

function fulfil(route: Route, response: SafeResponse): Promise<void> {
  return route.fulfill({ status: response.status, headers: fulfilledHeaders(response.headers), body: response.body }).catch(() => undefined);
}

/** The fetcher has already decoded the body and ended the exchange: these headers no longer apply. */
function fulfilledHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!/^(content-encoding|content-length|transfer-encoding|connection|keep-alive|location)$/i.test(name)) out[name] = value;
  return out;
}

/** A document's URL without its fragment (requests never carry one). */
function documentKey(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** Browser-managed headers stay with the browser; the rest goes to the target. */
function forwardable(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!/^(host|connection|content-length|accept-encoding|cookie)$/i.test(name)) out[name] = value;
  return out;
}

/** The value of `promise` if it settles successfully within `ms`, else undefined; never rejects. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
    }),
  ]).finally(() => clearTimeout(timer));
}
