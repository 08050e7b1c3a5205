// End-to-end: Run on a workflow that declares inputs asks for them in a
// typed form, refuses what does not fit at its field, and runs with them
// (a hostile name stays data in the command). scripts/e2e.sh starts the
// app and sets WEFT_URL, WEFT_E2E_SCRATCH and WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ARTIFACTS, FIXTURES, openCopy, realErrors, scratch, useApp } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const SCRATCH = scratch('inputs');

let page;
const consoleErrors = [];

useApp({ width: 1400, height: 860, errors: consoleErrors }, (p) => (page = p));

describe('Run with inputs', () => {
  it('asks for the inputs, shows what does not fit at its field, then runs with them as data', async () => {
    const dir = join(SCRATCH, 'run-inputs');
    const path = await openCopy(page, dir, join(FIXTURES, 'run-inputs.json'));
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();

    const form = page.locator('[data-testid="run-inputs"]');
    await form.waitFor();
    const field = (name) => form.locator(`[data-testid="run-input"][data-name="${name}"]`);
    assert.equal(await field('name').getAttribute('aria-required'), 'true');
    assert.equal(await field('times').inputValue(), '2');
    assert.equal(await field('loud').evaluate((e) => e.tagName), 'SELECT');
    const violations = await inBothThemes(page, '[data-testid="run-inputs"]');
    assert.deepEqual(violations, [], violations.join('\n'));

    const hostile = "Ada; touch pwned $(touch pwned2) `touch pwned3` 'q\"";
    await field('name').fill(hostile);
    await field('times').fill('0');
    await form.locator('[data-testid="run-inputs-run"]').click();
    const err = form.locator('[data-testid="run-input-error"][data-name="times"]');
    await err.waitFor();
    assert.match(await err.textContent(), /input times does not fit/);
    assert.equal(await field('name').inputValue(), hostile, 'the values typed stay');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-inputs.png') });

    await field('times').fill('3');
    await field('loud').selectOption('true');
    await form.locator('[data-testid="run-inputs-run"]').click();
    const approve = page.locator('[data-testid="approve-run"]');
    await Promise.race([
      page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 }),
      approve.waitFor({ timeout: 30_000 }).then(() => approve.click()),
    ]);
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    assert.equal(readFileSync(join(dir, 'out', 'greeting.txt'), 'utf8'), `${hostile} x3 true`);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('pwned')), [], 'nothing in the name ran');

    // Run again: the form shows the values used last time for this file.
    await page.locator('[data-testid="run-button"]').click();
    await form.waitFor();
    assert.equal(await field('name').inputValue(), hostile);
    assert.equal(await field('times').inputValue(), '3');
    await form.locator('[data-testid="run-inputs-cancel"]').click();
    await form.waitFor({ state: 'detached' });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
