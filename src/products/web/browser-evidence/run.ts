/**
 * browser_evidence: one headless-browser action on a public page (load it, click a selector, or fill
 * a field) and the evidence: a PNG screenshot (base64, with its SHA-256), the final DOM text, title
 * and URL. The page runs in a Chromium that has no network of its own: every request it makes,
 * navigations and their redirects included, is fetched by the safe fetcher (see providers/browser.ts).
 *
 * Charging rule. An action that ran and ended on the page's own behaviour is DELIVERED and charged:
 * a script that never yields, a page that never finishes loading, a click or fill that times out,
 * an element that is there but cannot be acted on. The answer is the evidence gathered so far (the
 * screenshot if it can still be taken, else `screenshot: null`) with `timed_out: true`.
 * Not charged:
 * - the caller's input: a page address that is refused (not public) or does not resolve, a page
 *   that cannot be fetched or shown at all, also when reached by a redirect or by the click (422,
 *   field `url`); a selector that matches nothing (422, field `selector`); a bad action (400);
 *   a payer that already has a browser action running (429);
 * - our own failures (thrown errors, 5xx): no free browser page in time, the browser crashed or
 *   could not be started, the pool's hard time limit.
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { z } from 'zod';
import { ProductInputError, type ProductContext } from '../../kit/index.ts';
import { PageLoadError, within, type IsolatedPage } from '../../../providers/browser.ts';
import { SafeFetchError } from '../../../providers/safe-fetch.ts';
import type { evidenceInput, evidenceOutput } from './index.ts';

type EvidenceInput = z.output<typeof evidenceInput>;
type Evidence = z.infer<typeof evidenceOutput>;

// The page's load event is awaited `loadMs` (a page still loading after it is captured as it is);
// finding the element and clicking or filling it, together, `actionMs`, and the navigations the
// action (or the extra wait) started as long again. Both from the pool (BROWSER_*_TIMEOUT_MS).
/** Whether the renderer answers at all: a script that never yields makes it not. */
const PROBE_TIMEOUT_MS = 1_500;
const SCREENSHOT_TIMEOUT_MS = 5_000;
const READ_TIMEOUT_MS = 2_000;
/**
 * The pool's hard limit on the page work, a safety net above the sum of the limits above at the
 * largest the configuration allows (plus the longest extra wait); reaching it is our failure (not charged). The pool adds one
 * fetch time limit for the first document.
 */
const PAGE_WORK_LIMIT_MS = 50_000;
const MAX_TEXT = 20_000;

export async function browserEvidence(input: EvidenceInput, ctx: ProductContext): Promise<Evidence> {
  if (!ctx.browser) throw new Error('no browser available to this service');
  return ctx.browser.withPage({ caller: ctx.caller, timeoutMs: PAGE_WORK_LIMIT_MS }, async (session) => {
    try {
      return await evidence(input, ctx, session);
    } catch (error) {
      if (!session.browserConnected) throw new Error('the browser stopped during the action', { cause: error });
      // The first document failed, or a navigation of the page was refused (also after a redirect).
      if (error instanceof SafeFetchError || error instanceof PageLoadError) {
        throw new ProductInputError(`the page could not be loaded: ${error.message.split('\n')[0]}`, 422, 'url');
      }
      throw error;
    }
  });
}

async function evidence(input: EvidenceInput, ctx: ProductContext, session: IsolatedPage): Promise<Evidence> {
  const { page } = session;
  // A refused, unresolvable or failing first document throws (SafeFetchError): 422, not charged.
  const limits = ctx.browser!.timeLimits;
  const loaded = await session.open(input.url, limits.loadMs);
  let timedOut = loaded.timedOut;

  if (input.action !== 'load') {
    const acted = await act(session, input, limits.actionMs);
    if (acted === 'no_match') throw new ProductInputError(`no element matches ${input.selector}`, 422, 'selector');
    if (acted === 'timed_out') timedOut = true;
    if (!(await session.settle(limits.actionMs))) timedOut = true;
  }
  session.throwIfRefused();
  if (input.wait_ms > 0) {
    await delay(input.wait_ms);
    if (!(await session.settle(limits.actionMs, 0))) timedOut = true;
    session.throwIfRefused();
  }

  const captured = await capture(session);
  if (!session.browserConnected) throw new Error('the browser stopped during the action');
  if (!captured.complete) timedOut = true;
  return {
    url: input.url,
    final_url: page.url(),
    status: loaded.status,
    title: captured.title,
    action: input.action,
    ...(input.selector ? { selector: input.selector } : {}),
    text: captured.text,
    screenshot: captured.screenshot
      ? { mime_type: 'image/png' as const, sha256: createHash('sha256').update(captured.screenshot).digest('hex'), base64: captured.screenshot.toString('base64') }
      : null,
    timed_out: timedOut,
    captured_at: ctx.now.toISOString(),
  };
}

/** The click or fill: done, timed out (the page's doing), or no element matches (the caller's selector). */
async function act(session: IsolatedPage, input: EvidenceInput, actionMs: number): Promise<'done' | 'timed_out' | 'no_match'> {
  if (!(await session.responsive(PROBE_TIMEOUT_MS))) return 'timed_out';
  const deadline = Date.now() + actionMs;
  const target = session.page.locator(input.selector!).first();
  const found = await target.waitFor({ state: 'attached', timeout: actionMs }).then(
    () => undefined,
    (error: Error) => error,
  );
  if (found) {
    if (found.name !== 'TimeoutError') throw new ProductInputError(`the selector cannot be used: ${found.message.split('\n')[0]}`, 422, 'selector');
    // Nothing appeared: a wrong selector, unless the page stopped answering meanwhile.
    return (await session.responsive(PROBE_TIMEOUT_MS)) ? 'no_match' : 'timed_out';
  }
  const remaining = Math.max(1, deadline - Date.now());
  const action = input.action === 'click' ? target.click({ timeout: remaining }) : target.fill(input.value!, { timeout: remaining });
  const done = await within(action.then(() => true), remaining + 500);
  return done ? 'done' : 'timed_out';
}

/**
 * Screenshot, text and title, each under a hard deadline: a renderer stuck in a script never
 * answers, so it is probed first and nothing is asked of it then (the pool closes the context).
 */
async function capture(session: IsolatedPage): Promise<{ screenshot?: Buffer; text: string; title: string; complete: boolean }> {
  const { page } = session;
  if (!(await session.responsive(PROBE_TIMEOUT_MS))) return { text: '', title: '', complete: false };
  const screenshot = await within(page.screenshot({ type: 'png', timeout: SCREENSHOT_TIMEOUT_MS }), SCREENSHOT_TIMEOUT_MS + 500);
  const text = await within(
    page.evaluate(() => document.body?.innerText ?? document.documentElement?.textContent ?? ''),
    READ_TIMEOUT_MS,
  );
  const title = await within(page.title(), READ_TIMEOUT_MS);
  return {
    screenshot,
    text: (text ?? '').slice(0, MAX_TEXT),
    title: title ?? '',
    complete: screenshot !== undefined && text !== undefined && title !== undefined,
  };
}
