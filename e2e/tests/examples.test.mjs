// End-to-end: the examples gallery, opened from the toolbar by keyboard
// (axe-clean in both themes, focus back at its opener), opens the picked
// example as a new unsaved workflow drawn on screen, asking first about
// unsaved changes; and the app reopens the workflow last saved at start,
// saying why it opened the sample once that file is gone.
// scripts/e2e.sh sets WEFT_URL and WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inBothThemes } from './axe.mjs';
import { openApp, realErrors } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const WATCH_NODES = ['fetch_page', 'read_last', 'page_changed', 'save_fingerprint', 'log_changed', 'log_same'];

let page;
let closeBrowser;
const consoleErrors = [];
const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-examples-'));

before(async () => {
  ({ page, close: closeBrowser } = await openApp(URL, { width: 1280, height: 800, errors: consoleErrors }));
});

after(async () => {
  await closeBrowser?.();
  rmSync(dir, { recursive: true, force: true });
});

const state = (f) => page.evaluate(f);

/** waitStarted waits for a reloaded app to have opened its document. */
async function reloadApp() {
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.weft?.store && window.weft.store.getState().doc !== null && !window.weft.store.getState().busy, null, { timeout: 30_000 });
}

describe('Examples gallery', () => {
  it('opens from the toolbar by keyboard, passes axe, and opens the picked example on screen', async () => {
    assert.equal(await state(() => window.weft.store.getState().fileName), 'sample.json', 'a spec starts on the sample');
    await page.locator('[data-testid="examples-button"]').focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('[data-testid="examples-dialog"]');
    await dialog.waitFor();
    await page.locator('[data-testid="example-watch_page.json"]').waitFor();
    assert.equal(await page.locator('.example-item').count(), 4);
    assert.equal(await state(() => document.activeElement?.dataset.testid), 'example-backup_folder.json', 'the first example has the focus');
    const found = await inBothThemes(page, '[data-testid="examples-dialog"]', (theme) => page.screenshot({ path: join(ARTIFACTS, `e2e-examples-gallery-${theme}.png`) }));
    assert.deepEqual(found, [], found.join('\n'));

    // To "Watch a web page" with Tab, and Enter.
    for (let i = 0; i < 8 && (await state(() => document.activeElement?.dataset.testid)) !== 'example-watch_page.json'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('watch_page.json'));
    assert.equal(await state(() => document.activeElement?.dataset.testid ?? document.activeElement?.outerHTML.slice(0, 80)), 'examples-button', 'focus is back at the opener');
    assert.deepEqual(await state(() => ({ path: window.weft.store.getState().path, dirty: window.weft.store.getState().dirty })), { path: '', dirty: false });

    // It opens on its first step, readable; Fit shows every step inside
    // the canvas, none on top of another.
    await page.locator('[data-testid="node-fetch_page"]').waitFor();
    await page.waitForTimeout(400); // the opening view settles
    const pane = await page.locator('.react-flow').boundingBox();
    const inside = (b) => b.x >= pane.x && b.y >= pane.y && b.x + b.width <= pane.x + pane.width && b.y + b.height <= pane.y + pane.height;
    const entry = await page.locator('[data-testid="node-fetch_page"]').boundingBox();
    assert.ok(inside(entry) && entry.width >= 120, `the first step at ${JSON.stringify(entry)} is on screen, readable, in ${JSON.stringify(pane)}`);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-examples-watch-page-open.png') });
    await page.locator('button[aria-label="Fit to view"]').click();
    await page.waitForTimeout(600); // the fit's animation
    const boxes = [];
    for (const id of WATCH_NODES) {
      const b = await page.locator(`[data-testid="node-${id}"]`).boundingBox();
      assert.ok(b, `${id} is drawn`);
      assert.ok(inside(b), `${id} at ${JSON.stringify(b)} is inside the canvas ${JSON.stringify(pane)}`);
      assert.ok(b.width >= 60, `${id} is drawn large enough to see (${b.width} px wide)`);
      boxes.push([id, b]);
    }
    for (const [i, [a, p]] of boxes.entries()) {
      for (const [b, q] of boxes.slice(i + 1)) {
        const overlap = p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;
        assert.ok(!overlap, `${a} and ${b} overlap`);
      }
    }
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-examples-watch-page.png') });
  });

  it('asks before unsaved changes are replaced, as New does', async () => {
    await state(() => {
      const s = window.weft.store.getState();
      s.setWorkflow({ ...s.doc, name: 'Watch my page' }, { label: 'Rename' });
    });
    assert.equal(await state(() => window.weft.store.getState().dirty), true);
    const pick = async () => {
      await page.locator('[data-testid="examples-button"]').click();
      await page.locator('[data-testid="example-backup_folder.json"]').click();
      await page.locator('[data-testid="dialog"]').waitFor();
    };
    await pick();
    assert.match(await page.locator('[data-testid="dialog"]').textContent(), /unsaved changes/);
    await page.locator('[data-testid="dialog-cancel"]').click();
    assert.equal(await state(() => window.weft.store.getState().doc.name), 'Watch my page', 'Cancel keeps the edit');
    await pick();
    await page.locator('[data-testid="dialog-discard"]').click();
    await page.waitForFunction(() => window.weft.store.getState().fileName === 'backup_folder.json');
    await page.locator('[data-testid="node-archive"]').waitFor();
  });
});

describe('What opens at start', () => {
  it('reopens the workflow last saved, and says why it opened the sample once that file is gone', async () => {
    const sub = join(dir, 'my flows');
    mkdirSync(sub);
    const path = join(sub, "watch 'page' ü.json");
    await page.locator('[data-testid="examples-button"]').click();
    await page.locator('[data-testid="example-watch_page.json"]').click();
    await page.waitForFunction(() => window.weft.store.getState().fileName === 'watch_page.json');
    assert.equal(await page.evaluate((p) => window.weft.actions.saveTo(p), path), true);

    await reloadApp();
    assert.equal(await state(() => window.weft.store.getState().path), path, 'the saved file opens at start');
    await page.locator('[data-testid="node-fetch_page"]').waitFor();
    assert.equal(await page.locator('[data-testid="status"]').count(), 0, 'nothing to say');

    rmSync(path);
    await reloadApp();
    assert.equal(await state(() => window.weft.store.getState().fileName), 'sample.json');
    const notice = await page.locator('[data-testid="status"]').textContent();
    assert.ok(notice.includes(path) && /no longer there/.test(notice), notice);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-start-notice.png') });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
