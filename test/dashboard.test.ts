import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { startTestChain, startTestService } from './helpers/service.ts';

/** Debian's headless Chromium (installed by .ci/run); skipped where none is installed, except in CI. */
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p): p is string => Boolean(p && existsSync(p)));
if (!executablePath && process.env.PERCALL_REQUIRE_BROWSER) throw new Error('PERCALL_REQUIRE_BROWSER is set but no Chromium was found');
const suite = executablePath ? describe : describe.skip;

let chain: DevChain;
let service: RunningService;
let browser: Browser;

suite('the observatory dashboard in a real headless browser', () => {
  beforeAll(async () => {
    chain = await startTestChain();
    service = await startTestService({ chain });
    // Live data: two challenges and one paid call.
    await fetch(`${service.url}/api/v1/paid/echo`);
    const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
    expect((await pay(`${service.url}/api/v1/paid/time`)).status).toBe(200);
    await service.percall.telemetry.flush();
    browser = await chromium.launch({
      executablePath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await chain?.stop();
  });

  it('loads, draws its charts from live data, and logs no errors', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${service.url}/observatory`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });

    expect(await page.locator('[data-metric="paid calls"] b').textContent()).toBe('1');
    expect(await page.locator('[data-metric="challenges"] b').textContent()).toBe('2');
    expect(await page.locator('#timeline rect').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('#endpoints text', { hasText: 'GET /api/v1/paid/time' }).count()).toBe(1);
    expect(await page.locator('#countries rect').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#error').textContent()).toBe('');
    expect(problems).toEqual([]);
    await page.close();
  });
});
