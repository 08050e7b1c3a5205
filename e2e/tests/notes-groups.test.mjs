// End-to-end: sticky notes and groups on the real canvas. The canvas's
// menu (right-click on empty canvas) adds a note, typed into in place; two
// selected nodes are grouped from the same menu; dragging the group by its
// title moves its nodes with it on screen (bounding boxes), a node outside
// it stays; one undo puts them back; a node dragged out of the frame
// leaves the group, dragged back in joins it; Shift+F10 opens the menu from the
// keyboard and focus returns to the canvas; axe finds nothing serious in
// either theme; Save writes notes and groups into the file. Started by
// scripts/e2e.sh (WEFT_URL, WEFT_E2E_SCRATCH, WEFT_ARTIFACTS).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inBothThemes } from './axe.mjs';
import { ARTIFACTS, FIXTURES, openCopy, realErrors, scratch, URL, useApp } from './browser.mjs';

const SCRATCH = scratch('notes');

let page;
const consoleErrors = [];

useApp({ width: 1400, height: 860, errors: consoleErrors }, (p) => (page = p));

async function box(selector) {
  const b = await page.locator(selector).boundingBox();
  assert.ok(b, `${selector} is on screen`);
  return b;
}

/** dragBy drags a node by (dx, dy) screen pixels with the mouse, a pixel
 * first so that starting the drag loses no more than that. */
async function dragBy(selector, dx, dy) {
  const b = await box(selector);
  const from = { x: b.x + 60, y: b.y + 14 }; // its title row (the minimap may cover its foot)
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 1, from.y + 1);
  for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + (dx * i) / 10, from.y + (dy * i) / 10);
  await page.mouse.up();
}

/** openPaneMenu right-clicks the canvas at a point no node covers: below
 * the nodes, dx to the right of the first (where no note was added). */
async function openPaneMenu(dx = 0) {
  const first = await box('[data-testid="node-download"]');
  await page.mouse.click(first.x + dx, first.y + first.height + 120, { button: 'right' });
  await page.locator('[data-testid="context-menu"][aria-label="Canvas"]').waitFor();
}

describe('Notes and groups on the canvas', () => {
  it('adds a note and a group; the group moves its nodes; both are saved', async () => {
    const path = await openCopy(page, join(SCRATCH, 'notes-groups'), join(FIXTURES, 'pipeline.json'));
    await page.locator('[data-testid="node-download"]').waitFor();
    // Room around the nodes for the note below them.
    await page.evaluate(() => window.weft.canvas.setViewport({ x: 200, y: 200, zoom: 0.9 }));

    // A note from the canvas's menu, typed into in place; markup stays text.
    await openPaneMenu();
    await page.locator('[data-testid="menu-add-note"]').click();
    const note = page.locator('[data-testid="sticky-note"]');
    await note.waitFor();
    await note.dblclick();
    await page.locator('[data-testid="note-textarea"]').fill('Ask Ana before changing the URL <b>not bold</b>');
    await page.keyboard.press('Escape');
    assert.equal(await note.locator('[data-testid="note-text"]').textContent(), 'Ask Ana before changing the URL <b>not bold</b>');
    assert.equal(await note.locator('b').count(), 0);

    // Two nodes selected, grouped from the menu.
    await page.locator('[data-testid="node-download"]').click();
    await page.locator('[data-testid="node-unzip"]').click({ modifiers: ['Shift'] });
    await openPaneMenu(400);
    await page.locator('[data-testid="menu-group"]').click();
    const group = page.locator('[data-testid="canvas-group"]');
    await group.waitFor();
    const before = {
      group: await box('[data-testid="canvas-group"]'),
      download: await box('[data-testid="node-download"]'),
      unzip: await box('[data-testid="node-unzip"]'),
      notify: await box('[data-testid="node-notify"]'),
    };
    // The frame holds both nodes on screen.
    for (const n of [before.download, before.unzip]) {
      assert.ok(n.x > before.group.x && n.y > before.group.y, 'node inside the frame');
      assert.ok(n.x + n.width < before.group.x + before.group.width && n.y + n.height < before.group.y + before.group.height, 'node inside the frame');
    }

    // Drag the group by its title.
    const title = await box('[data-testid="canvas-group"] .group-title');
    const from = { x: title.x + 60, y: title.y + title.height / 2 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + 16 * i, from.y + 9 * i);
    await page.mouse.up();
    await page.waitForFunction(() => window.weft.store.getState().past.at(-1)?.label === 'Move group');
    const moved = {
      group: await box('[data-testid="canvas-group"]'),
      download: await box('[data-testid="node-download"]'),
      unzip: await box('[data-testid="node-unzip"]'),
      notify: await box('[data-testid="node-notify"]'),
    };
    const dx = moved.group.x - before.group.x;
    const dy = moved.group.y - before.group.y;
    // (The first step of the mouse starts the drag: it moves up to 16 × 9 less.)
    assert.ok(dx >= 130 && dx <= 170 && dy >= 70 && dy <= 100, `the group moved by (${dx}, ${dy})`);
    for (const k of ['download', 'unzip']) {
      assert.ok(Math.abs(moved[k].x - before[k].x - dx) <= 1.5 && Math.abs(moved[k].y - before[k].y - dy) <= 1.5, `${k} moved with its group`);
    }
    assert.ok(Math.abs(moved.notify.x - before.notify.x) <= 0.5 && Math.abs(moved.notify.y - before.notify.y) <= 0.5, 'notify is no member: it stays');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-notes-groups.png') });
    // Readable in both themes (contrast included), as the rest of the canvas.
    const found = await inBothThemes(page, '[data-testid="canvas"]', (theme) => page.screenshot({ path: join(ARTIFACTS, `e2e-notes-groups-${theme}.png`) }));
    assert.deepEqual(found, [], found.join('\n'));

    // One undo puts the group and its nodes back.
    await page.locator('[data-testid="canvas"]').focus();
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => window.weft.store.getState().past.at(-1)?.label !== 'Move group');
    const undone = await box('[data-testid="node-download"]');
    assert.ok(Math.abs(undone.x - before.download.x) <= 1.5 && Math.abs(undone.y - before.download.y) <= 1.5, 'undo moved it back');

    // Membership by dragging (graph/annotations.ts frameFor): unzip dragged
    // out of the frame leaves the group, dragged back inside joins it again.
    const members = () => page.evaluate(() => window.weft.store.getState().doc.groups[0].nodes);
    const within = (b, f) => b.x >= f.x && b.y >= f.y && b.x + b.width <= f.x + f.width && b.y + b.height <= f.y + f.height;
    const frame = await box('[data-testid="canvas-group"]');
    await page.evaluate(() => window.weft.store.getState().clearSelection()); // unzip alone is dragged
    const steps = await page.evaluate(() => window.weft.store.getState().past.length);
    await dragBy('[data-testid="node-unzip"]', 120, 240);
    await page.waitForFunction((n) => window.weft.store.getState().past.length === n + 1, steps);
    const out = await box('[data-testid="node-unzip"]');
    assert.ok(!within(out, frame), 'unzip is out of the frame on screen');
    assert.deepEqual(await members(), ['download']);
    assert.deepEqual(await box('[data-testid="canvas-group"]'), frame, 'the frame stays');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-notes-groups-drag-out.png') });
    await dragBy('[data-testid="node-unzip"]', -120, -240);
    await page.waitForFunction((n) => window.weft.store.getState().past.length === n + 2, steps);
    assert.ok(within(await box('[data-testid="node-unzip"]'), frame), 'unzip is back inside the frame on screen');
    assert.deepEqual(await members(), ['download', 'unzip']);

    // From the keyboard: Shift+F10 on the focused canvas, Escape, focus back.
    await page.locator('[data-testid="canvas"]').focus();
    await page.keyboard.press('Shift+F10');
    await page.locator('[data-testid="context-menu"][aria-label="Canvas"]').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'menu-add-here');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'canvas');

    // Saved into the file, as the file format says.
    assert.equal(await page.evaluate((p) => window.weft.actions.saveTo(p), path), true);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(saved.notes.length, 1);
    assert.equal(saved.notes[0].text, 'Ask Ana before changing the URL <b>not bold</b>');
    assert.deepEqual(saved.groups.map((g) => g.nodes), [['download', 'unzip']]);
    const problems = await page.evaluate(() => window.weft.store.getState().problems.map((p) => p.code));
    assert.ok(!problems.some((c) => /note|group/.test(c)), problems.join(', '));
    // Fit (F) takes in the note, the group and every node: all inside the canvas.
    await page.locator('[data-testid="canvas"]').focus();
    await page.keyboard.press('f');
    const canvas = await box('[data-testid="canvas"]');
    const inside = async (sel) => {
      const b = await box(sel);
      return b.x >= canvas.x - 1 && b.y >= canvas.y - 1 && b.x + b.width <= canvas.x + canvas.width + 1 && b.y + b.height <= canvas.y + canvas.height + 1;
    };
    const all = ['[data-testid="canvas-group"]', '[data-testid="sticky-note"]', '[data-testid="node-notify"]'];
    const allInside = async () => (await Promise.all(all.map(inside))).every(Boolean);
    for (let i = 0; i < 50 && !(await allInside()); i++) await page.waitForTimeout(50); // the fit is animated
    for (const sel of all) {
      assert.ok(await inside(sel), `${sel} is inside the canvas after Fit`);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-notes-groups-fitted.png') });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
