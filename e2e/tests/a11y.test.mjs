// Accessibility of the main views: axe-core finds no serious or critical
// violation (contrast included) on the canvas, the inspector, the
// assistant, the run panel, Preferences and the dialogs, in the dark and
// the light theme; the theme toggle cycles System, Light, Dark; Preferences
// keeps the focus inside.
// scripts/e2e.sh sets WEFT_URL, WEFT_PIPELINE and WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const PIPELINE = process.env.WEFT_PIPELINE;
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';

let context;
let page;
let closeBrowser;

before(async () => {
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1400, height: 860 }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
  await page.waitForFunction(() => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null, null, { timeout: 30_000 });
  if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) {
    await page.locator('[data-testid="dialog-discard"]').click();
  }
  await page.evaluate(async (p) => {
    if (window.weft.store.getState().dirty) await window.weft.actions.save();
    await window.weft.actions.openPath(p);
  }, PIPELINE);
  await page.waitForSelector('[data-testid="node-download"]');
});

after(async () => {
  await closeBrowser?.();
});

const views = [
  ['the canvas and the inspector of a selected node', async () => {
    await page.locator('[data-testid="tab-inspector"]').click();
    await page.locator('[data-testid="node-download"]').click();
    await page.waitForSelector('[data-testid="inspector-node"]');
  }],
  ['the assistant', async () => {
    await page.locator('[data-testid="tab-assistant"]').click();
    await page.waitForSelector('[data-testid="assistant-panel"]');
  }],
  ['the run panel', async () => {
    await page.locator('[data-testid="tab-run"]').click();
    await page.waitForSelector('[data-testid="run-panel"]');
  }],
  ['the keyboard shortcuts dialog', async () => {
    await page.locator('[data-testid="shortcuts-button"]').click();
    await page.waitForSelector('[role="dialog"]');
  }],
  ['Preferences', async () => {
    await page.keyboard.press('Escape');
    await page.waitForSelector('[role="dialog"]', { state: 'detached' });
    await page.locator('[data-testid="preferences-button"]').click();
    await page.waitForSelector('[data-testid="preferences-dialog"]');
    // The Temporal engine's fields too (not saved).
    await page.locator('[data-testid="pref-engine"]').selectOption('temporal');
    await page.waitForSelector('[data-testid="pref-temporal-address"]');
  }],
];

describe('Accessibility', () => {
  it('Tab reaches the steps without a stop at every edge, and a focused step shows it', async () => {
    assert.equal(await page.locator('.react-flow__edge[tabindex="0"]').count(), 0, 'edges are not tab stops');
    await page.locator('[data-testid="doc-title"]').click();
    let onNode = false;
    for (let i = 0; i < 60 && !onNode; i++) {
      await page.keyboard.press('Tab');
      onNode = await page.evaluate(() => !!document.activeElement?.classList.contains('react-flow__node'));
    }
    assert.ok(onNode, 'Tab reached a step');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement.querySelector('.weft-node')).outlineStyle);
    assert.equal(outline, 'solid', 'the focused step has a visible outline');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-a11y-node-focus.png') });
  });

  for (const [name, open] of views) {
    it(`${name}: no serious or critical axe violations in either theme`, async () => {
      await open();
      const found = await inBothThemes(page, null, (theme) =>
        page.screenshot({ path: join(ARTIFACTS, `e2e-a11y-${name.split(' ').slice(1, 3).join('-')}-${theme}.png`) }),
      );
      assert.deepEqual(found, [], found.join('\n'));
    });
  }

  it('the toolbar toggle cycles System, Light and Dark; System follows the OS', async () => {
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    const toggle = page.locator('[data-testid="theme-toggle"]');
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    while ((await toggle.getAttribute('data-theme-pref')) !== 'system') await toggle.click();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    assert.equal(await toggle.getAttribute('aria-label'), 'Theme: System (light)');
    await toggle.click();
    assert.equal(await toggle.getAttribute('data-theme-pref'), 'light');
    await toggle.click();
    assert.equal(await toggle.getAttribute('data-theme-pref'), 'dark');
    assert.equal(await theme(), 'dark', 'a pick wins over the OS');
    // The pick survives a reload.
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.weft?.store);
    assert.equal(await theme(), 'dark');
    await page.locator('[data-testid="theme-toggle"]').click(); // back to System
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await page.waitForFunction(() => window.weft.store.getState().doc !== null);
    await page.locator('[data-testid="preferences-button"]').click();
    await page.waitForSelector('[data-testid="preferences-dialog"]');
  });

  it('Preferences keeps the focus inside while it is open', async () => {
    const dialog = page.locator('[data-testid="preferences-dialog"]');
    await dialog.waitFor();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press(i % 7 === 6 ? 'Shift+Tab' : 'Tab');
      const inside = await page.evaluate(() => !!document.activeElement?.closest('[data-testid="preferences-dialog"]'));
      assert.ok(inside, `focus left Preferences after ${i + 1} Tab presses`);
    }
    await page.keyboard.press('Escape');
  });

  it('a dialog gives focus back to its opener; a focused field shows a 2 px ring; code fields draw no ligatures', async () => {
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    const prefs = page.locator('[data-testid="preferences-button"]');
    await prefs.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid="preferences-dialog"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'preferences-button', 'focus went back to the opener');

    await page.locator('[data-testid="tab-inspector"]').click();
    await page.locator('.react-flow__node').first().click(); // (the reload above opened whatever the app opens)
    const field = page.locator('[data-testid="inspector-name"]');
    await field.focus();
    const ring = await field.evaluate((el) => {
      const cs = getComputedStyle(el);
      return { width: parseFloat(cs.outlineWidth), style: cs.outlineStyle };
    });
    assert.ok(ring.width >= 2 && ring.style === 'solid', `focus ring ${JSON.stringify(ring)}`);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-a11y-field-focus.png') });
    const mono = await page.evaluate(() => [...document.querySelectorAll('.inspector .mono')].map((el) => getComputedStyle(el).fontVariantLigatures));
    assert.ok(mono.length > 0, 'the inspector shows a code field');
    assert.deepEqual([...new Set(mono)], ['none'], 'code fields draw no ligatures');
  });
});
