// The browser a spec drives the app with: Debian's Chromium, headless, with
// a fresh profile each time (removed by close).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

// What scripts/e2e.sh gives a spec: the app's address, and where
// screenshots go; FIXTURES are the workflows specs copy into scratch.
export const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
export const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** scratch is the folder a spec writes its files in: scripts/e2e.sh's, or a new one named for the spec. */
export function scratch(name) {
  return process.env.WEFT_E2E_SCRATCH ?? mkdtempSync(join(tmpdir(), `weft-e2e-${name}-`));
}

const CHROMIUM = process.env.WEFT_CHROMIUM ?? '/usr/bin/chromium';

/** LAST_FILE is the app's record of the workflow last opened or saved
 * (backend/lastfile), in the private XDG_STATE_HOME scripts/e2e.sh sets. */
export const LAST_FILE = process.env.XDG_STATE_HOME ? join(process.env.XDG_STATE_HOME, 'weft', 'last-file.json') : '';

/**
 * openBrowser starts Chromium with a page of width × height; errors, when
 * given, collects what the page logs as an error and what it throws. The
 * app reopens the workflow last opened or saved at start: an earlier
 * spec's is forgotten here, so each spec starts on the sample, unless
 * keepLastFile.
 */
export async function openBrowser({ width = 1280, height = 860, errors, keepLastFile = false } = {}) {
  if (LAST_FILE && !keepLastFile) rmSync(LAST_FILE, { force: true });
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

// What `wails dev` itself logs, and only that: the missing favicon; its dev
// bridge's (/wails/ipc.js) websocket failing while the app restarts; and
// the error its own dev overlay throws on every page load. Wails v2.16.0
// builds that overlay with Svelte 5 but starts it with Svelte 4's
// `new Overlay({target})`, which reads the active effect's `nodes` when
// there is none: a blank page with only that ipc.js throws it too. The
// overlay is dev-only (a production build never loads it). Any other error
// passing through ipc.js (an event handler of ours throwing) counts.
const WAILS_DEV_NOISE = [
  /favicon/i,
  /^WebSocket connection to '\S+\/wails\/ipc' failed.*\/wails\/ipc\.js\)$/s,
  // (every frame in ipc.js: "at Fe (…/wails/ipc.js:32:1)", "at new In (…)", "at …/wails/ipc.js:41:3")
  /^(Uncaught )?TypeError: Cannot read properties of null \(reading 'nodes'\)\n(\s+at ((new )?\S+ \()?https?:\/\/[^\s)]*\/wails\/ipc\.js:\d+:\d+\)?\n?)+$/,
];

/** realErrors drops what `wails dev` itself logs (WAILS_DEV_NOISE), and also. */
export function realErrors(errors, also) {
  return errors.filter((e) => !WAILS_DEV_NOISE.some((re) => re.test(e)) && !(also && also.test(e)));
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

/**
 * useApp opens the app (openApp, with opts) before a spec's tests and
 * closes it after them, stopping a run the spec left going; set hears the
 * page once it is open.
 */
export function useApp(opts, set) {
  let b;
  before(async () => {
    b = await openApp(URL, opts);
    set(b.page);
  });
  after(async () => {
    await b?.page.evaluate(() => window.go.main.App.StopRun()).catch(() => {});
    await b?.close();
  });
}

/**
 * openCopy copies files (the first is the workflow) into a fresh folder
 * dir and opens the workflow in the app (a proposal shown is discarded,
 * unsaved changes saved first); it returns the workflow's path there.
 */
export async function openCopy(page, dir, ...files) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(f, join(dir, basename(f)));
  const path = join(dir, basename(files[0]));
  await page.evaluate(async (p) => {
    const st = window.weft.store.getState();
    if (st.proposal) st.endProposal('discarded');
    if (st.dirty) await window.weft.actions.save();
    await window.weft.actions.openPath(p);
  }, path);
  await page.waitForFunction((name) => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes(name), basename(path));
  return path;
}
