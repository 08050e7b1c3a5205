// End-to-end: the Inspector's fields take references. Typing {{ offers
// what Go says the step can read (a combobox, axe-clean), an output field
// dragged from the run data drops in, and a past run opened from the
// history draws its own edge counts.
// Started by scripts/e2e.sh (WEFT_URL, WEFT_E2E_SCRATCH, WEFT_ARTIFACTS).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serious } from './axe.mjs';
import { ARTIFACTS, FIXTURES, openCopy, realErrors, scratch, useApp } from './browser.mjs';

const SCRATCH = scratch('refs');

let page;
const consoleErrors = [];

useApp({ width: 1400, height: 860, errors: consoleErrors }, (p) => (page = p));

const options = () => page.locator('[role="listbox"] [role="option"] code').allTextContents();

describe('References in the Inspector', () => {
  it('offers what a step can read after {{, drops a dragged output in, and shows a past run’s edge counts', async () => {
    await openCopy(page, join(SCRATCH, 'references'), join(FIXTURES, 'run-loop-retry.json'));

    // The step after the loop: the loop and its body ran before it.
    await page.locator('[data-testid="node-done"]').click();
    await page.locator('[data-testid="tab-inspector"]').click();
    const message = page.locator('[data-testid="arg-message"]');
    await message.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and {{');
    await page.locator('[role="listbox"]').waitFor();
    const offered = await options();
    assert.ok(offered.includes('count.stdout') && offered.includes('rounds.iteration'), offered.join(', '));
    assert.ok(!offered.some((o) => o.startsWith('done.')), `a step does not read itself: ${offered.join(', ')}`);
    assert.deepEqual(await serious(page, '[data-testid="inspector"]'), []);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-references-completion.png') });
    await page.keyboard.type('exit');
    assert.deepEqual(await options(), ['count.exit_code']);
    await page.keyboard.press('Enter');
    assert.equal(await message.inputValue(), 'counted {{count.stdout}} and {{ count.exit_code }}');
    assert.equal(await page.locator('[role="listbox"]').count(), 0);

    // A run, then an output of the step it read dragged into the field.
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    await page.locator('[data-testid="node-done"]').click();
    await page.locator('[data-testid="tab-inspector"]').click();
    await message.fill('');
    const chip = page.locator('[data-testid="run-data-input"] [data-testid="run-data-field"]', { hasText: 'count.stdout' }).first();
    await chip.dragTo(message);
    assert.equal(await message.inputValue(), '{{count.stdout}}');

    // The past run from the history draws its counts as the live one did.
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-view-history"]').click();
    await page.locator('[data-testid="history-row"] .run-history-row').first().click();
    await page.locator('[data-testid="history-view-log"]').first().click();
    await page.waitForSelector('[data-testid="viewing-past-run"]');
    await page.waitForFunction(() => document.querySelectorAll('.react-flow__edge[aria-label*="in this run"]').length === 4);
    const labels = await page.locator('.react-flow__edge').evaluateAll((es) => es.map((e) => e.getAttribute('aria-label')));
    assert.equal(labels.filter((l) => / taken 3× in this run/.test(l ?? '')).length, 3, labels.join('; '));
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-references-past-run.png') });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
