/**
 * browser_evidence: one headless-browser action on a public page (load it, click a selector, or fill
 * a field) and the evidence: a PNG screenshot (base64, with its SHA-256), the final DOM text, title
 * and URL. The page reaches the network only through the safe fetcher.
 */
import { createHash } from 'node:crypto';
import { ProductInputError, type ProductContext } from '../catalogue/types.ts';

export interface EvidenceInput {
  url: string;
  action: 'load' | 'click' | 'fill';
  selector?: string;
  value?: string;
  wait_ms: number;
}

const ACTION_TIME_LIMIT_MS = 20_000;
const MAX_TEXT = 20_000;

export async function browserEvidence(input: EvidenceInput, ctx: ProductContext) {
  if (input.action !== 'load' && !input.selector) throw new ProductInputError(`${input.action} needs a selector`, 400, 'selector');
  if (input.action === 'fill' && input.value === undefined) throw new ProductInputError('fill needs a value', 400, 'value');
  if (!ctx.browser) throw new Error('no browser available to this service');
  return ctx.browser.withPage(ACTION_TIME_LIMIT_MS, async (context) => {
    const page = await context.newPage();
    const response = await page.goto(input.url, { waitUntil: 'load', timeout: ACTION_TIME_LIMIT_MS }).catch((error: Error) => {
      throw new ProductInputError(`the page could not be loaded: ${error.message.split('\n')[0]}`, 422, 'url');
    });
    if (input.action !== 'load') {
      const target = page.locator(input.selector!).first();
      if ((await target.count()) === 0) throw new ProductInputError(`no element matches ${input.selector}`, 422, 'selector');
      if (input.action === 'click') await target.click({ timeout: 5_000 });
      else await target.fill(input.value!, { timeout: 5_000 });
      await page.waitForLoadState('load').catch(() => undefined);
    }
    if (input.wait_ms > 0) await page.waitForTimeout(input.wait_ms);
    const screenshot = await page.screenshot({ type: 'png' });
    const text = (await page.locator('body').innerText().catch(() => '')).slice(0, MAX_TEXT);
    return {
      url: input.url,
      final_url: page.url(),
      status: response?.status() ?? null,
      title: await page.title(),
      action: input.action,
      ...(input.selector ? { selector: input.selector } : {}),
      text,
      screenshot: { mime_type: 'image/png', sha256: createHash('sha256').update(screenshot).digest('hex'), base64: screenshot.toString('base64') },
      captured_at: ctx.now.toISOString(),
    };
  });
}
