// End-to-end: the Schedules dialog makes a schedule of the open workflow
// with this machine's scheduler (scripts/e2e.sh sets WEFT_SCHEDULER to a
// fake crontab keeping its table in WEFT_CRONTAB_TAB), after the person
// approved its model-written step in full; the entry it installs is run as
// cron would run it (no display): the app's own binary runs the workflow
// headless, and the dialog then shows that run. Pause and remove change
// the entry. axe checks the dialog in both themes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const TAB = process.env.WEFT_CRONTAB_TAB;
const SCRATCH = process.env.WEFT_E2E_SCRATCH;

let context;
let page;
let closeBrowser;
let file;
let dir;
const consoleErrors = [];

const crontab = () => (existsSync(TAB) ? readFileSync(TAB, 'utf8') : '');

async function openSchedules() {
  await page.locator('[data-testid="schedules-button"]').click();
  await page.waitForSelector('[data-testid="schedules-dialog"]');
  return page.locator('[data-testid="schedules-dialog"]');
}

async function closeSchedules() {
  await page.locator('[data-testid="schedules-dialog"] button[aria-label="Close"]').click();
  await page.waitForSelector('[data-testid="schedules-dialog"]', { state: 'detached' });
}

before(async () => {
  assert.ok(TAB && SCRATCH, 'WEFT_CRONTAB_TAB and WEFT_E2E_SCRATCH must be set (run through scripts/e2e.sh)');
  dir = join(SCRATCH, 'scheduled');
  mkdirSync(dir, { recursive: true });
  file = join(dir, 'morning-report.json');
  // One step a model planned: it waits for approval, as in a run.
  writeFileSync(
    file,
    JSON.stringify({
      format: 'weft/v1',
      id: 'e2e-morning-report',
      name: 'Morning report',
      nodes: [
        {
          id: 'write',
          key: 'write',
          name: 'Write the report',
          type: 'Tool',
          params: { tool: 'run_command', arguments: { command: 'echo report-from-the-schedule > report.txt' } },
          provenance: { source: 'model', via: 'plan' },
          position: { x: 0, y: 0 },
        },
      ],
      edges: [],
    }),
  );
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1280, height: 860, errors: consoleErrors }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions, null, { timeout: 60_000 });
  await page.waitForFunction(() => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null, null, { timeout: 30_000 });
  if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) {
    await page.locator('[data-testid="dialog-discard"]').click();
  }
});

after(async () => {
  await closeBrowser?.();
});

describe('schedules', () => {
  it('asks to save first, then schedules the saved file after the approval of its model-written step', async () => {
    await page.evaluate(async () => {
      const st = window.weft.store.getState();
      if (st.dirty) await window.weft.actions.save();
      await window.weft.actions.newDocument();
    });
    let dlg = await openSchedules();
    assert.match(await dlg.locator('[data-testid="schedule-why"]').textContent(), /Save the workflow to a file first/);
    await closeSchedules();

    await page.evaluate(async (p) => window.weft.actions.openPath(p), file);
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('morning-report.json'));
    dlg = await openSchedules();
    await dlg.locator('[data-testid="schedules-empty"]').waitFor();
    await dlg.locator('[data-testid="schedule-preset"]').selectOption('0 7 * * 1-5');
    assert.equal(await dlg.locator('[data-testid="schedule-cron"]').inputValue(), '0 7 * * 1-5');
    await page.waitForFunction(() => /^At 07:00, on weekdays\. Next runs:/.test(document.querySelector('[data-testid="schedule-preview"]')?.textContent ?? ''));
    await dlg.locator('[data-testid="schedule-cron"]').fill('0 7 * * 8');
    await page.waitForFunction(() => document.querySelector('[data-testid="schedule-cron"]')?.getAttribute('aria-invalid') === 'true');
    assert.ok(await dlg.locator('[data-testid="schedule-add"]').isDisabled(), 'a bad cron expression can be scheduled');
    await dlg.locator('[data-testid="schedule-cron"]').fill('0 7 * * 1-5');
    await page.waitForFunction(() => /^At 07:00, on weekdays\. Next runs:/.test(document.querySelector('[data-testid="schedule-preview"]')?.textContent ?? ''));
    await dlg.locator('[data-testid="schedule-add"]').click();

    // The crontab line is shown before anything is installed.
    const review = dlg.locator('[data-testid="schedule-review"]');
    await review.waitFor();
    const shown = await review.locator('[data-testid="schedule-entry"]').textContent();
    assert.match(shown, /^0 7 \* \* 1-5 cd '.*scheduled' && 'flock' '-n' .* # weft-schedule:\S+$/);
    assert.match(await review.textContent(), /add this line to your crontab/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-schedule-entry.png') });
    assert.equal(crontab().trim(), '', 'something was installed before the entry was shown');
    await review.locator('[data-testid="schedule-install"]').click();

    const approval = page.locator('[data-testid="approval-dialog"]');
    await approval.waitFor();
    assert.match(await approval.locator('[data-testid="approval-args"]').textContent(), /echo report-from-the-schedule > report\.txt/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-schedule-approval.png') });
    assert.equal(crontab().trim(), '', 'something was installed before the approval');
    assert.equal(await approval.locator('[data-testid="approve-run"]').textContent(), 'Approve all and schedule');
    await approval.locator('[data-testid="approve-run"]').click();

    dlg = page.locator('[data-testid="schedules-dialog"]');
    const row = dlg.locator('[data-testid="schedule-row"]');
    await row.waitFor();
    assert.equal(await row.locator('[data-testid="schedule-state"]').textContent(), 'not run yet');
    assert.match(await row.textContent(), /0 7 \* \* 1-5/);
    assert.match(await row.textContent(), /Next: /);
    const tab = crontab();
    assert.equal(tab.trim(), shown, 'the entry installed is not the one shown');
    assert.match(tab, /^0 7 \* \* 1-5 cd '.*scheduled' && 'flock' '-n' /m);
    assert.ok(tab.includes(`'run' '${file}' '--on-escalate' 'abort'`), tab);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-schedules.png') });
  });

  it('the installed entry runs the workflow headless with the app binary, and the dialog shows the run', async () => {
    const line = crontab().split('\n').find((l) => l.includes(file));
    const command = line.replace(/^(\S+\s+){5}/, '');
    // As cron runs it: sh, no display, the app's settings folders.
    const env = { ...process.env };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const out = execFileSync('/bin/sh', ['-c', command], { env, encoding: 'utf8', timeout: 120_000 });
    assert.match(out, /Run succeeded/, out);
    assert.equal(readFileSync(join(dir, 'report.txt'), 'utf8').trim(), 'report-from-the-schedule');

    await closeSchedules();
    const dlg = await openSchedules();
    const row = dlg.locator('[data-testid="schedule-row"]');
    await page.waitForFunction(() => /: succeeded$/.test(document.querySelector('[data-testid="schedule-state"]')?.textContent ?? ''));
    assert.ok(!(await row.getAttribute('class')).includes('attention'));
  });

  it('has no serious accessibility problems, in both themes', async () => {
    const problems = await inBothThemes(page, '[data-testid="schedules-dialog"]', (theme) =>
      page.screenshot({ path: join(ARTIFACTS, `e2e-schedules-${theme}.png`) }),
    );
    assert.deepEqual(problems, []);
  });

  it('pauses, resumes and removes the entry', async () => {
    const dlg = page.locator('[data-testid="schedules-dialog"]');
    const row = dlg.locator('[data-testid="schedule-row"]');
    await row.locator('[data-testid="schedule-pause"]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="schedule-state"]')?.textContent === 'paused');
    assert.match(crontab(), /^#paused 0 7 \* \* 1-5 /m);
    await row.locator('[data-testid="schedule-pause"]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="schedule-state"]')?.textContent !== 'paused');
    assert.match(crontab(), /^0 7 \* \* 1-5 /m);
    await row.locator('[data-testid="schedule-remove"]').click();
    await row.locator('[data-testid="schedule-remove-confirm"]').click();
    await dlg.locator('[data-testid="schedules-empty"]').waitFor();
    assert.equal(crontab().trim(), '');
    await closeSchedules();
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
