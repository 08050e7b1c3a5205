// The browser a spec drives the app with: Debian's Chromium, headless, with
// a fresh profile each time (removed by close).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.WEFT_CHROMIUM ?? '/usr/bin/chromium';

/**
 * openBrowser starts Chromium with a page of width × height; errors, when
 * given, collects what the page logs as an error and what it throws.
 */
export async function openBrowser({ width = 1280, height = 860, errors } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'weft-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width, height },
    deviceScaleFactor: 1,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  if (errors) {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => errors.push(e.stack ?? String(e)));
  }
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** realErrors drops what `wails dev` itself logs: its ipc.js and the missing favicon. */
export function realErrors(errors, also) {
  return errors.filter((e) => !/favicon|\/wails\/ipc\.js/i.test(e) && !(also && also.test(e)));
}

/**
 * openApp opens the app at url in a new browser (openBrowser's options) and
 * waits for its store and a document: an autosave an earlier spec left is
 * discarded.
 */
export async function openApp(url, opts) {
  const b = await openBrowser(opts);
  const { page } = b;
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
  await page.waitForFunction(() => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null, null, { timeout: 30_000 });
  if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) {
    await page.locator('[data-testid="dialog-discard"]').click();
    await page.waitForFunction(() => window.weft.store.getState().doc !== null);
  }
  return b;
}
