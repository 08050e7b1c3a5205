// End-to-end: after a run, the canvas counts how often each edge was taken
// (Go's walk counts them) and the Inspector shows a step's INPUT | OUTPUT.
// Started by scripts/e2e.sh (WEFT_URL, WEFT_E2E_SCRATCH, WEFT_ARTIFACTS).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ARTIFACTS, FIXTURES, openCopy, realErrors, scratch, useApp } from './browser.mjs';

const SCRATCH = scratch('edges');

let page;
const consoleErrors = [];

useApp({ width: 1400, height: 860, errors: consoleErrors }, (p) => (page = p));

describe('A run drawn on the canvas', () => {
  it('counts each edge, loop iterations included, and shows a step’s input and output', async () => {
    await openCopy(page, join(SCRATCH, 'run-edges'), join(FIXTURES, 'run-loop-retry.json'));
    assert.equal(await page.locator('.react-flow__edge.edge-taken, .react-flow__edge.edge-untaken').count(), 0, 'no counts before a run');
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });

    const labels = await page.locator('.react-flow__edge').evaluateAll((es) => es.map((e) => e.getAttribute('aria-label')));
    // The loop ran three rounds: its body, the step after it and the jump back three times each; LoopDone once.
    assert.equal(labels.filter((l) => / taken 3× /.test(l ?? '')).length, 3, labels.join('; '));
    assert.equal(labels.filter((l) => / taken 1× /.test(l ?? '')).length, 1, labels.join('; '));
    assert.equal(await page.locator('.react-flow__edge.edge-untaken').count(), 0);
    const body = page.locator('.react-flow__edge[aria-label^="Edge (body)"]');
    assert.match(await body.locator('.react-flow__edge-text').textContent(), /3×/);

    await page.locator('[data-testid="node-done"]').click();
    await page.locator('[data-testid="tab-inspector"]').click();
    const item = page.locator('[data-testid="run-data-item"]').first();
    await item.waitFor();
    assert.match(await item.locator('[data-testid="run-data-input"] [data-testid="run-data-arguments"]').textContent(), /counted round 3/);
    assert.match(await item.locator('[data-testid="run-data-input"] [data-testid="run-data-read"]').first().textContent(), /Read from count[\s\S]*round 3/);
    assert.match(await item.locator('[data-testid="run-data-output"]').textContent(), /Output/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-edges.png') });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
