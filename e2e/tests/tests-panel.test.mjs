// End-to-end: the Tests tab on the shipped sample (testdata/workflows/
// sample.json and its sample.tests.json): Run all passes every case with
// nothing acting; a mock edited to break one shows how it differs
// (expected against actual), and only that mocks value changes in the
// file; a case recorded from a real run goes in after the others, which
// stay byte for byte, and passes. scripts/e2e.sh starts the app and sets
// WEFT_URL, WEFT_E2E_SCRATCH and WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { ARTIFACTS, openCopy, realErrors, scratch, useApp } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const SCRATCH = scratch('tests');
const SAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'testdata', 'workflows');

let page;
const consoleErrors = [];

useApp({ width: 1400, height: 900, errors: consoleErrors }, (p) => (page = p));

const row = (name) => page.locator(`[data-testid="test-case"][data-name="${name}"]`);

async function runAll() {
  await page.locator('[data-testid="tests-run-all"]').click();
  await page.waitForFunction(() => {
    const s = document.querySelector('[data-testid="tests-summary"]')?.textContent ?? '';
    return / of \d+ pass/.test(s) && !document.querySelector('[data-testid="test-case"][data-state="running"]');
  }, null, { timeout: 60_000 });
}

async function states() {
  return page.locator('[data-testid="test-case"]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.name, e.dataset.state])));
}

describe('Tests tab', () => {
  it('runs the cases, shows a broken mock’s difference, records a case from a run', async () => {
    const dir = join(SCRATCH, 'tests-panel');
    const path = await openCopy(page, dir, join(SAMPLES, 'sample.json'), join(SAMPLES, 'sample.tests.json'));
    const casePath = join(dir, 'sample.tests.json');
    const original = readFileSync(casePath, 'utf8');
    const names = JSON.parse(original).cases.map((c) => c.name);
    await page.locator('[data-testid="tab-tests"]').click();
    await page.locator('[data-testid="test-case"]').first().waitFor();
    assert.deepEqual(Object.keys(await states()), names);

    // Run all: every shipped case passes, and nothing ran for real.
    await runAll();
    assert.deepEqual(await states(), Object.fromEntries(names.map((n) => [n, 'pass'])));
    assert.match(await page.locator('[data-testid="tests-summary"]').textContent(), new RegExp(`^${names.length} of ${names.length} pass`));
    assert.equal(existsSync(join(dir, 'backups')), false, 'a test made the backups folder');
    assert.equal(existsSync(join(dir, 'notes')), false, 'a test wrote the notes');

    // Break the first case: its notes check now exits 1.
    const first = names[0];
    await row(first).locator('[data-testid="test-case-edit"]').click();
    const text = row(first).locator('[data-testid="mocks-text"]');
    const mocks = JSON.parse(await text.inputValue());
    assert.equal(mocks.commands[0].command, 'test -f notes/notes.md');
    mocks.commands[0].answer.exit_code = 1;
    await text.fill(JSON.stringify(mocks, null, 2));
    await row(first).locator('[data-testid="mocks-save"]').click();
    await row(first).locator('[data-testid="mocks-editor"]').waitFor({ state: 'detached' });
    const edited = readFileSync(casePath, 'utf8');
    const secondAt = original.indexOf(`"name": "${names[1]}"`);
    assert.ok(edited.endsWith(original.slice(original.lastIndexOf('{', secondAt))), 'the other cases changed');

    await runAll();
    assert.deepEqual(await states(), { ...Object.fromEntries(names.map((n) => [n, 'pass'])), [first]: 'fail' });
    const failure = row(first).locator('[data-testid="test-failure"][data-what="path"]');
    await failure.waitFor();
    assert.match(await failure.textContent(), /the steps ran in another order/);
    assert.match(await failure.locator('[data-testid="test-expected"]').textContent(), /"make_backup_dir"/);
    assert.match(await failure.locator('[data-testid="test-actual"]').textContent(), /"create_notes"/);
    const violations = await inBothThemes(page, '[data-testid="tests-panel"]', (theme) =>
      page.screenshot({ path: join(ARTIFACTS, `e2e-tests-panel-${theme}.png`) }),
    );
    assert.deepEqual(violations, [], violations.join('\n'));
    // The diff sits inside the sidebar, under its case, not cut off.
    const panel = await page.locator('[data-testid="tests-panel"]').boundingBox();
    const box = await failure.boundingBox();
    const head = await row(first).locator('.tests-case-head').boundingBox();
    assert.ok(box && panel && head, 'the failure is shown');
    assert.ok(box.x >= panel.x && box.x + box.width <= panel.x + panel.width + 1, `the failure (${JSON.stringify(box)}) is outside the panel (${JSON.stringify(panel)})`);
    assert.ok(box.y >= head.y + head.height - 1, 'the failure is above its case');
    // Each case's name shows whole: no case is told apart by "notes exist: o…".
    const cut = await page.locator('.tests-case-name').evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent));
    assert.deepEqual(cut, [], 'case names cut off');
    const nameBox = await row(first).locator('.tests-case-name').boundingBox();
    const runBox = await row(first).locator('[data-testid="test-case-run"]').boundingBox();
    assert.ok(runBox.y >= nameBox.y + nameBox.height - 1, 'the Run button overlaps the case name');

    // A real run of the workflow (in this scratch folder), then a case
    // recorded from it: it goes in after the others, which stay as they are.
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    const approve = page.locator('[data-testid="approve-run"]');
    await Promise.race([
      page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 60_000 }),
      approve.waitFor({ timeout: 60_000 }).then(() => approve.click()),
    ]);
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 60_000 });
    assert.equal(existsSync(join(dir, 'notes', 'notes.md')), true, 'the real run made the notes');
    await page.locator('[data-testid="tab-tests"]').click();
    await page.locator('[data-testid="tests-record"]').click();
    await page.locator('[data-testid="record-name"]').fill('recorded in e2e');
    await page.locator('[data-testid="record-submit"]').click();
    await page.locator('[data-testid="record-done"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="record-close"]').click();
    await row('recorded in e2e').waitFor();
    const recorded = readFileSync(casePath, 'utf8');
    const lastCaseEnd = edited.lastIndexOf('}', edited.lastIndexOf(']'));
    assert.ok(recorded.startsWith(edited.slice(0, lastCaseEnd + 1) + ','), 'the cases already there changed');
    assert.ok(recorded.endsWith(edited.slice(edited.lastIndexOf(']'))), 'the end of the file changed');

    await runAll();
    const after = await states();
    assert.equal(after['recorded in e2e'], 'pass', JSON.stringify(after));
    assert.equal(after[first], 'fail');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-tests-panel-recorded.png') });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
