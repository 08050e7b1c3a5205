// End-to-end: a workflow file Weft did not write (cloned, written by another
// program) is reviewed whole before anything in it acts. The editor shows a
// banner above the canvas; Run opens the review with every step that acts or
// routes in full; the command runs only after the approval, and the file is
// then trusted (no banner when reopened). Edited on disk afterwards, it is
// reviewed again, each changed step as it was and as it is now. The files
// live in a folder of their own outside the scratch folder that
// scripts/e2e.sh trusts for the other specs (`weft trust`). scripts/e2e.sh
// sets WEFT_URL and WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openApp, realErrors } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';

let context;
let page;
let closeBrowser;
let dir;
let file;
const consoleErrors = [];

const MARK = 'touch trust-marker.txt';
const CHANGED = 'touch trust-marker.txt && echo changed > changed.txt';

/** cloned is the workflow as another program (git, a colleague's editor) wrote it. */
function cloned(markCommand) {
  return `${JSON.stringify(
    {
      format: 'weft/v1',
      id: 'e2e-cloned',
      name: 'Cloned workflow',
      nodes: [
        { id: 'build', key: 'build', name: 'Build', type: 'Tool', params: { tool: 'run_command', arguments: { command: 'echo built > built.txt' } }, position: { x: 0, y: 80 } },
        { id: 'mark', key: 'mark', name: 'Leave a mark', type: 'Tool', params: { tool: 'run_command', arguments: { command: markCommand } }, position: { x: 320, y: 80 } },
      ],
      edges: [{ from: 'build', to: 'mark' }],
    },
    null,
    2,
  )}\n`;
}

const banner = () => page.locator('[data-testid="trust-banner"]');
const dialog = () => page.locator('[data-testid="approval-dialog"]');

/** open opens the file through the toolbar's action and waits until its trust is shown (or not). */
async function open(path) {
  await page.evaluate(async (p) => {
    const st = window.weft.store.getState();
    if (st.dirty) await window.weft.actions.save();
    await window.weft.actions.openPath(p);
  }, path);
  await page.waitForFunction(
    (p) => {
      const s = window.weft.store.getState();
      return s.path === p && s.fileTrustFor === p && s.fileTrust !== null;
    },
    path,
  );
  await page.waitForSelector('[data-testid="node-mark"]');
}

async function box(selector) {
  return page.locator(selector).first().boundingBox();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-e2e-trust-'));
  file = join(dir, 'cloned.json');
  writeFileSync(file, cloned(MARK));
  ({ context, page, close: closeBrowser } = await openApp(URL, { width: 1400, height: 860, errors: consoleErrors }));
});

after(async () => {
  await page?.evaluate(() => window.go.main.App.StopRun()).catch(() => {});
  await closeBrowser?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a workflow file Weft did not write', () => {
  it('opens with a banner above the canvas that covers neither the toolbar nor the steps', async () => {
    await open(file);
    await banner().waitFor();
    assert.match(await banner().textContent(), /^Not reviewed: Weft did not write this file and you have not reviewed it \(cloned, downloaded or written elsewhere\) — nothing in it runs until you review it/);
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-trust-banner.png') });
    const bar = await box('[data-testid="trust-banner"]');
    const toolbar = await box('.toolbar');
    const canvas = await box('[data-testid="canvas"]');
    assert.ok(toolbar.y + toolbar.height <= bar.y + 0.5, `the banner (top ${bar.y}) is below the toolbar (bottom ${toolbar.y + toolbar.height})`);
    assert.ok(bar.y + bar.height <= canvas.y + 0.5, `the canvas (top ${canvas.y}) starts below the banner (bottom ${bar.y + bar.height})`);
    for (const id of ['build', 'mark']) {
      const n = await box(`[data-testid="node-${id}"]`);
      assert.ok(n.y >= bar.y + bar.height, `step ${id} (top ${n.y}) is not under the banner (bottom ${bar.y + bar.height})`);
    }
    const review = await box('[data-testid="trust-review"]');
    assert.ok(review.x + review.width <= bar.x + bar.width && review.y >= bar.y, 'Review… is inside the banner');
  });

  it('Run shows every step that acts, its full command and where it leads; nothing runs before the approval', async () => {
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    await dialog().waitFor();
    assert.equal((await dialog().locator('h2').textContent()).trim(), 'Weft did not write this workflow file');
    assert.match(await dialog().locator('[data-testid="approval-why"]').textContent(), /you have not reviewed it/);
    const steps = dialog().locator('[data-testid="approval-step"]');
    assert.equal(await steps.count(), 2);
    for (let i = 0; i < 2; i++) assert.equal(await steps.nth(i).getAttribute('data-origin'), 'file');
    const mark = steps.filter({ hasText: 'Leave a mark' });
    assert.equal(await mark.locator('[data-testid="approval-args"]').textContent(), `command${MARK}`);
    assert.equal((await mark.locator('[data-testid="approval-badge"]').textContent()).trim(), 'not reviewed');
    const build = steps.filter({ hasText: 'Build' });
    assert.match(await build.locator('.approval-detail').textContent(), /runs a shell command; leads to mark/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-trust-review.png') });
    const found = await inBothThemes(page, '[data-testid="approval-dialog"]');
    assert.deepEqual(found, [], found.join('\n'));
    assert.ok(!existsSync(join(dir, 'trust-marker.txt')), 'nothing ran before the approval');

    // Cancel: still nothing ran, still to review.
    await dialog().locator('[data-testid="approve-cancel"]').click();
    await dialog().waitFor({ state: 'detached' });
    assert.ok(!existsSync(join(dir, 'trust-marker.txt')));
    assert.equal(await banner().count(), 1);
  });

  it('runs once approved, and the file is then trusted: no banner, none when reopened', async () => {
    await page.locator('[data-testid="run-button"]').click();
    await dialog().waitFor();
    await dialog().locator('[data-testid="approve-run"]').click();
    await dialog().waitFor({ state: 'detached' });
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    assert.equal((await page.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Succeeded');
    assert.ok(existsSync(join(dir, 'trust-marker.txt')), 'the approved command ran');
    await banner().waitFor({ state: 'detached' });

    await open(file);
    assert.equal(await banner().count(), 0, 'no banner for the reviewed file');
    const trust = await page.evaluate((p) => window.go.main.App.WorkflowFileTrust(p), file);
    assert.equal(trust.trusted, true);
    assert.match(trust.why, /reviewed \(desktop\)/);
    // It runs again without asking.
    rmSync(join(dir, 'trust-marker.txt'));
    await page.locator('[data-testid="run-button"]').click();
    // The status still reads the first run's "finished" until the second
    // run's first event: wait for what the second run does.
    for (let t = 0; t < 300 && !existsSync(join(dir, 'trust-marker.txt')); t++) await page.waitForTimeout(100);
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    assert.equal(await dialog().count(), 0);
    assert.ok(existsSync(join(dir, 'trust-marker.txt')), 'the reviewed file ran again without asking');
  });

  it('edited on disk afterwards, it is reviewed again: the changed step as it was and as it is now', async () => {
    writeFileSync(file, cloned(CHANGED));
    await open(file);
    await banner().waitFor();
    assert.match(await banner().textContent(), /^Not reviewed: changed since it was reviewed \(desktop\) on .* \(edited elsewhere, pulled or downloaded\)/);
    await page.locator('[data-testid="trust-review"]').click();
    await dialog().waitFor();
    assert.equal((await dialog().locator('h2').textContent()).trim(), 'This workflow file changed since you reviewed it');
    const steps = dialog().locator('[data-testid="approval-step"]');
    assert.equal(await steps.count(), 1, 'only the step that changed');
    assert.equal((await steps.locator('[data-testid="approval-badge"]').textContent()).trim(), 'changed');
    const was = steps.locator('[data-testid="approval-was"]');
    const now = steps.locator('[data-testid="approval-now"]');
    // One line differs, marked on each side; the rest is shown unmarked.
    const marked = async (block) => (await block.locator('[data-changed="true"]').allTextContents()).map((l) => l.replace(/\s+/g, ' ').trim());
    assert.deepEqual(await marked(was), [`− "command": "${MARK}"`]);
    assert.deepEqual(await marked(now), [`+ "command": "${CHANGED}"`]);
    assert.match(await now.textContent(), /"key": "mark"/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-trust-changed.png') });
    const wasBox = await was.boundingBox();
    const nowBox = await now.boundingBox();
    assert.ok(wasBox.x + wasBox.width <= nowBox.x + 0.5, 'was is beside now, on its left');
    const found = await inBothThemes(page, '[data-testid="approval-dialog"]');
    assert.deepEqual(found, [], found.join('\n'));

    // Approved without running: trusted again, and nothing ran.
    await dialog().locator('[data-testid="approve-only"]').click();
    await dialog().waitFor({ state: 'detached' });
    await banner().waitFor({ state: 'detached' });
    assert.ok(!existsSync(join(dir, 'changed.txt')), 'approving without running ran nothing');
    assert.equal(readFileSync(file, 'utf8'), cloned(CHANGED), 'the file was not rewritten');
  });

  it('left no errors in the console', () => {
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
