// End-to-end: the real frontend and Go bindings served by `wails dev`,
// driven by the system Chromium. scripts/e2e.sh starts the server and sets
// WEFT_URL, WEFT_INVALID (a scratch copy of fixtures/invalid.json) and
// WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const INVALID = process.env.WEFT_INVALID;
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';

let context;
let page;
let closeBrowser;
const consoleErrors = [];

before(async () => {
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1280, height: 800, errors: consoleErrors }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions, null, { timeout: 60_000 });
});

after(async () => {
  await closeBrowser?.();
});

/** The ids of the nodes drawn on the canvas. */
async function drawnNodeIds() {
  return page.$$eval('.weft-node[data-testid^="node-"]', (els) =>
    els.map((e) => e.getAttribute('data-testid').slice('node-'.length)).sort(),
  );
}

describe('Weft desktop app', () => {
  it('loads the sample workflow at start and draws every node and edge', async () => {
    const sample = await page.evaluate(() => window.go.main.App.LoadSample());
    assert.ok(sample.workflow.nodes.length > 0, 'sample has nodes');
    const ids = sample.workflow.nodes.map((n) => n.id).sort();
    await page.waitForFunction((n) => document.querySelectorAll('.weft-node').length === n, ids.length, { timeout: 30_000 });
    assert.deepEqual(await drawnNodeIds(), ids);
    await page.waitForFunction(
      (n) => document.querySelectorAll('.react-flow__edge').length === n,
      sample.workflow.edges.length,
      { timeout: 10_000 },
    );
    assert.match(await page.textContent('[data-testid="doc-title"]'), /sample\.json/);
    assert.equal(await page.title(), 'sample.json — Weft');
    // The sample validates through the backend; the panel shows the outcome.
    await page.waitForSelector('[data-testid="problems-panel"] :is(.problems-empty, .problem-row)');
    const res = await page.evaluate((w) => window.go.main.App.ValidateWorkflow(w, ''), sample.workflow);
    assert.equal(await page.locator('[data-testid="problem-row"]').count(), res.problems.length);
    await page.waitForTimeout(400); // let the view settle
    // nodesOnScreen lists the nodes wholly inside the canvas, and their on-screen width.
    const nodesOnScreen = () =>
      page.evaluate(() => {
        const pane = document.querySelector('.react-flow').getBoundingClientRect();
        return [...document.querySelectorAll('.react-flow__node')]
          .map((n) => ({ id: n.getAttribute('data-id'), r: n.getBoundingClientRect() }))
          .filter(({ r }) => r.left >= pane.left - 1 && r.right <= pane.right + 1 && r.top >= pane.top - 1 && r.bottom <= pane.bottom + 1)
          .map(({ id, r }) => ({ id, width: r.width }));
      });
    // It opens legible (fitted whole it was at zoom 0.3, text about 4 px):
    // nodes at 3/4 of their size or more, the first step whole on screen.
    const first = await nodesOnScreen();
    assert.ok(first.some((n) => n.id === 'check_notes'), `the first step is on screen: ${JSON.stringify(first)}`);
    for (const n of first) assert.ok(n.width >= 0.75 * 220 - 1, `node ${n.id} drawn ${n.width} px wide`);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-sample.png') });
    // Fit shows it whole.
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(400);
    assert.deepEqual((await nodesOnScreen()).map((n) => n.id).sort(), ids, 'every node inside the canvas after Fit');
    // …and none under the minimap or the zoom controls, by on-screen boxes.
    const covered = await page.evaluate(() => {
      const over = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const panels = ['[data-testid="minimap"]', '.react-flow__controls'].map((s) => document.querySelector(s).getBoundingClientRect());
      return [...document.querySelectorAll('.react-flow__node')]
        .filter((n) => panels.some((p) => over(n.getBoundingClientRect(), p)))
        .map((n) => n.getAttribute('data-id'));
    });
    assert.deepEqual(covered, [], 'nodes under the minimap or the controls after Fit');
    // A larger, sharper shot for docs/screenshot.png.
    await page.setViewportSize({ width: 1600, height: 780 });
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(ARTIFACTS, 'app-sample-1600.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('lists the backend problems of an invalid workflow and selects a problem node on click', async () => {
    assert.ok(INVALID, 'WEFT_INVALID must name the invalid fixture');
    // Open through the same action the toolbar uses: api.openWorkflow → bound OpenWorkflow.
    await page.evaluate((p) => window.weft.actions.openPath(p), INVALID);
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('invalid.json'));

    const opened = await page.evaluate((p) => window.go.main.App.OpenWorkflow(p), INVALID);
    const res = await page.evaluate((w) => window.go.main.App.ValidateWorkflow(w, ''), opened.workflow);
    assert.equal(res.valid, false);
    assert.ok(res.problems.length >= 2, 'fixture has problems');

    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="problem-row"]').length === n, res.problems.length);
    const rows = await page.$$eval('[data-testid="problem-row"]', (els) =>
      els.map((e) => ({ code: e.getAttribute('data-code'), text: e.textContent, cls: e.className })),
    );
    const want = res.problems.map((p) => p.code).sort();
    assert.deepEqual(rows.map((r) => r.code).sort(), want);
    for (const p of res.problems) {
      assert.ok(rows.some((r) => r.code === p.code && r.text.includes(p.message) && r.cls.includes(p.severity)), `row for ${p.code}`);
    }
    const errors = res.problems.filter((p) => p.severity === 'error').length;
    assert.equal((await page.textContent('[data-testid="error-count"]')).trim(), String(errors));

    // Badges: the If with a bad condition is marked as an error.
    const ifBadge = page.locator('[data-testid="node-decide"] [data-testid="problem-badge"]');
    assert.equal(await ifBadge.getAttribute('data-severity'), 'error');

    // Clicking a problem selects its node and brings it into view.
    const target = res.problems.find((p) => p.code === 'if_missing_branch');
    assert.ok(target, 'if_missing_branch reported');
    await page.locator('[data-testid="problem-row"][data-code="if_missing_branch"]').click();
    await page.waitForSelector('[data-testid="node-decide"].selected');
    assert.deepEqual(
      await page.$$eval('.weft-node.selected', (els) => els.map((e) => e.getAttribute('data-testid'))),
      ['node-decide'],
    );
    await page.waitForTimeout(500); // fitView animation
    const box = await page.locator('[data-testid="node-decide"]').boundingBox();
    const canvas = await page.locator('[data-testid="canvas"]').boundingBox();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    assert.ok(Math.abs(cx - (canvas.x + canvas.width / 2)) < 40, `node centred horizontally (${cx} vs ${canvas.x + canvas.width / 2})`);
    assert.ok(Math.abs(cy - (canvas.y + canvas.height / 2)) < 40, `node centred vertically (${cy} vs ${canvas.y + canvas.height / 2})`);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-problems.png') });
  });

  it('marks a moved node dirty and saves it back to the file with Save', async () => {
    await page.evaluate(() => window.weft.actions.validate());
    const node = page.locator('[data-testid="node-notify"]');
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(300);
    const b = await node.boundingBox();
    await page.mouse.move(b.x + 40, b.y + 14);
    await page.mouse.down();
    await page.mouse.move(b.x + 90, b.y + 70, { steps: 8 });
    await page.mouse.up();
    await page.waitForSelector('[data-testid="dirty-marker"]');
    assert.match(await page.title(), /^● invalid\.json — Weft$/);
    const before = JSON.parse(readFileSync(INVALID, 'utf8')).nodes.find((n) => n.id === 'notify').position;

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForSelector('[data-testid="dirty-marker"]', { state: 'detached' });
    const saved = JSON.parse(readFileSync(INVALID, 'utf8'));
    const after = saved.nodes.find((n) => n.id === 'notify').position;
    assert.notDeepEqual(after, before, 'position changed on disk');
    assert.equal(saved.format, 'weft/v1');
    assert.equal(saved.nodes.length, 4);
  });

  it('logged no errors in the page', () => {
    // Wails' own browser-mode IPC script (/wails/ipc.js) mounts a connection
    // overlay before <body> exists and throws; that is wails dev, not Weft.
    const real = realErrors(consoleErrors);
    assert.deepEqual(real, []);
  });
});
