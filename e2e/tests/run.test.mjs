// End-to-end: the Run panel running workflows with real tools through the
// Go bindings served by `wails dev`. scripts/e2e.sh starts the app and sets
// WEFT_URL, WEFT_E2E_SCRATCH (a scratch dir: the fixtures are copied into
// run-* folders there, and their steps write into out/ beside them),
// WEFT_FAKE_LLM (the planner's model for Replan) and WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const SCRATCH = process.env.WEFT_E2E_SCRATCH ?? mkdtempSync(join(tmpdir(), 'weft-e2e-run-'));
const FAKE = (process.env.WEFT_FAKE_LLM ?? '').replace(/\/v1\/?$/, '');
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

// The planner's new version of run-escalation.json: the check looks at the
// report instead of failing.
const REPLAN = `{"nodes": [
  {"id": "prepare", "step_type": "Tool", "name": "Prepare output", "tool_name": "run_command", "arguments": {"command": "mkdir -p out && echo prepared > out/prepare.txt"}},
  {"id": "report", "step_type": "Tool", "name": "Write report", "tool_name": "run_command", "arguments": {"command": "echo report > out/report.txt"}},
  {"id": "check", "step_type": "Tool", "name": "Check report exists", "tool_name": "run_command", "arguments": {"command": "test -s out/report.txt"}, "verify": "check.exit_code == 0"},
  {"id": "finish", "step_type": "Tool", "name": "Finish", "tool_name": "run_command", "arguments": {"command": "echo done > out/finish.txt"}}
],
"edges": [{"from": "prepare", "to": "report"}, {"from": "report", "to": "check"}, {"from": "check", "to": "finish"}]}`;

let context;
let page;
let closeBrowser;
const consoleErrors = [];

/** fixture copies e2e/fixtures/<name> into a fresh folder of the scratch dir. */
function fixture(name, folder) {
  const dir = join(SCRATCH, folder);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  copyFileSync(join(FIXTURES, name), path);
  return { dir, path };
}

async function script(...steps) {
  for (const [path, body] of [
    ['/_llmtest/reset', {}],
    ['/_llmtest/steps', steps],
  ]) {
    const res = await fetch(FAKE + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.ok(res.ok, `fake LLM ${path}: HTTP ${res.status}`);
  }
}

async function ready() {
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
  await page.waitForFunction(
    () => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null,
    null,
    { timeout: 30_000 },
  );
  if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) {
    await page.locator('[data-testid="dialog-discard"]').click();
    await page.waitForFunction(() => window.weft.store.getState().doc !== null);
  }
}

/** openRunTab opens a workflow file and shows the Run tab. */
async function openRunTab(path) {
  await page.evaluate(async (p) => {
    const st = window.weft.store.getState();
    if (st.proposal) st.endProposal('discarded');
    if (st.dirty) await window.weft.actions.save();
    await window.weft.actions.openPath(p);
  }, path);
  const name = path.split('/').pop();
  await page.waitForFunction((n) => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes(n), name);
  await page.locator('[data-testid="tab-run"]').click();
  await page.waitForSelector('[data-testid="run-panel"]');
}

const chip = (id) => page.locator(`[data-testid="node-${id}"] [data-testid="run-chip"]`);

async function waitChip(id, status, timeout = 20_000) {
  await page.waitForSelector(`[data-testid="node-${id}"] [data-testid="run-chip"][data-status="${status}"]`, { timeout });
}

// The run last seen finished: "finished" is waited for as the end of a
// run after it (a Run click starts its run after an await, so the status
// may still show the last run's end for a moment).
let lastFinished = null;

async function waitPhase(phase, timeout = 30_000) {
  await page.waitForSelector(`[data-testid="run-status"][data-phase="${phase}"]`, { timeout });
  if (phase !== 'finished') return;
  const id = await page.waitForFunction(
    (prev) => {
      const s = window.weft.store.getState();
      return s.runPhase === 'finished' && s.runId && s.runId !== prev ? s.runId : null;
    },
    lastFinished,
    { timeout },
  );
  lastFinished = await id.jsonValue();
}

before(async () => {
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1400, height: 860, errors: consoleErrors }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await ready();
  if (FAKE) {
    // The model as scripts/e2e.sh set it (another spec may have changed it): Replan asks it.
    await page.evaluate(async (base) => {
      const v = await window.go.main.App.GetSettings();
      const llm = { ...v.settings.llm, base_url: base, model: 'fake-model' };
      await window.go.main.App.SaveSettings({ ...v.settings, llm, max_repair_attempts: 3 }, null);
    }, process.env.WEFT_FAKE_LLM);
  }
});

after(async () => {
  // Leave no run going for the specs after this one.
  await page?.evaluate(() => window.go.main.App.StopRun()).catch(() => {});
  await closeBrowser?.();
});

describe('Run panel', () => {
  it('runs the steps, escalates the failing one with its attempts, and finishes after Skip with the summary', async () => {
    const { dir, path } = fixture('run-escalation.json', 'run-skip');
    await openRunTab(path);
    await page.waitForSelector('[data-testid="node-check"]');
    assert.equal(await chip('prepare').count(), 0, 'no status before the run');

    await page.locator('[data-testid="run-button"]').click();
    await waitChip('prepare', 'ok');
    await waitChip('report', 'ok');
    await waitChip('check', 'escalated');

    const dialog = page.locator('[data-testid="escalation-dialog"]');
    await dialog.waitFor();
    assert.equal((await dialog.locator('[data-testid="esc-node"]').textContent()).trim(), 'Check report');
    assert.equal((await dialog.locator('[data-testid="esc-failure-type"]').textContent()).trim(), 'verification_failed');
    assert.ok((await dialog.locator('[data-testid="esc-severity"]').textContent()).trim().length > 0);
    assert.ok((await dialog.locator('[data-testid="esc-category"]').textContent()).trim().length > 0);
    const rows = dialog.locator('[data-testid="attempt-row"]');
    assert.equal(await rows.count(), 1);
    const cells = await rows.first().locator('td').allTextContents();
    assert.equal(cells[0], '1');
    assert.match(cells[1], /^\d\d:\d\d:\d\d$/);
    assert.equal(cells[2], 'verification_failed');
    assert.match(cells[3], /check\.exit_code == 0/);
    assert.match(cells[4], /exit_code/);
    assert.match(await dialog.locator('[data-testid="esc-last-error"]').textContent(), /check\.exit_code == 0/);
    assert.match(await page.locator('[data-testid="run-status"]').textContent(), /Waiting for you at Check report/);
    await page.waitForTimeout(300); // let the canvas ring pulse settle for the shot
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-escalation.png') });
    const escViolations = await inBothThemes(page, '[data-testid="escalation-dialog"]');
    assert.deepEqual(escViolations, [], escViolations.join('\n'));

    await dialog.locator('[data-testid="esc-skip"]').click();
    await dialog.waitFor({ state: 'detached' });
    await waitPhase('finished');
    await waitChip('check', 'skipped');
    await waitChip('finish', 'ok');

    const sum = page.locator('[data-testid="run-summary"]');
    // A run with a skipped step is not a success: amber, and it says so.
    const outcome = sum.locator('[data-testid="run-outcome"]');
    assert.equal((await outcome.textContent()).trim(), 'Completed with 1 skipped');
    assert.match(await outcome.getAttribute('class'), /\bpartial\b/);
    const stat = async (k) => Number(await sum.locator(`[data-testid="summary-${k}"]`).getAttribute('data-value'));
    assert.equal(await stat('ran'), 4); // "Nodes run": four steps, the skipped one included (Summary.ran)
    assert.equal(await stat('first_attempt_successes'), 3);
    assert.equal(await stat('retried'), 0);
    assert.equal(await stat('escalations'), 1);
    assert.equal(await stat('skipped'), 1);
    assert.equal(await stat('failed'), 0);
    assert.match(await sum.locator('[data-testid="summary-failure-types"]').textContent(), /verification_failed ×1/);

    // The steps really ran, in the workflow's folder.
    for (const f of ['prepare.txt', 'report.txt', 'finish.txt']) assert.ok(existsSync(join(dir, 'out', f)), `out/${f} written`);
    assert.equal(readFileSync(join(dir, 'out', 'report.txt'), 'utf8').trim(), 'report');

    // The log has the whole story, newest at the bottom.
    const types = await page.locator('[data-testid="log-entry"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
    assert.equal(types[0], 'run_started');
    assert.equal(types[types.length - 1], 'run_finished');
    assert.ok(types.includes('escalated') && types.includes('user_response'), `log types: ${types}`);
    await page.locator('[data-testid="log-filter-problems"]').click();
    const problems = await page.locator('[data-testid="log-entry"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
    assert.ok(!problems.includes('node_started') && problems.includes('failure'), `problem filter: ${problems}`);
    await page.locator('[data-testid="log-filter-steps"]').click();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-finished.png') });

    // History: the run with its summary, read back from summary.json.
    await page.locator('[data-testid="run-view-history"]').click();
    const row = page.locator('[data-testid="history-row"]').first();
    await row.waitFor();
    assert.equal(await page.locator('[data-testid="history-row"]').count(), 1);
    assert.equal(await row.getAttribute('data-outcome'), 'partial');
    await row.locator('button').first().click();
    assert.equal(await row.locator('[data-testid="summary-skipped"]').getAttribute('data-value'), '1');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-history.png') });
    await page.locator('[data-testid="run-view-log"]').click();
  });

  it('aborting counts the failed step, and a fix with new arguments can be kept in the workflow', async () => {
    const { path } = fixture('run-escalation.json', 'run-abort');
    await openRunTab(path);
    await page.locator('[data-testid="run-button"]').click();
    const dialog = page.locator('[data-testid="escalation-dialog"]');
    await dialog.waitFor();
    await dialog.locator('[data-testid="esc-abort"]').click();
    await waitPhase('finished');
    const sum = page.locator('[data-testid="run-summary"]');
    assert.equal((await sum.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Aborted');
    assert.equal(await sum.locator('[data-testid="summary-failed"]').getAttribute('data-value'), '1');

    // Again, fixing the step's arguments: the retry uses them, and the panel offers to keep them.
    await page.locator('[data-testid="run-button"]').click();
    await dialog.waitFor();
    await dialog.locator('[data-testid="esc-fix"]').click();
    await dialog.locator('[data-testid="esc-fix-text"]').fill('{"command": "true"}');
    await dialog.locator('[data-testid="esc-fix-send"]').click();
    await waitPhase('finished');
    assert.equal((await sum.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Succeeded');
    const offer = page.locator('[data-testid="fix-offer"]');
    await offer.waitFor();
    assert.match(await offer.textContent(), /changed this run only/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-fix-offer.png') });
    await offer.locator('[data-testid="fix-keep"]').click();
    await offer.waitFor({ state: 'detached' });
    const cmd = await page.evaluate(() => window.weft.store.getState().doc.nodes.find((n) => n.id === 'check').params.arguments.command);
    assert.equal(cmd, 'true');
    assert.equal(await page.evaluate(() => window.weft.store.getState().dirty), true);
  });

  it('shows a node\'s run data: each attempt and loop iteration with its arguments, outputs and failure', async () => {
    const { path } = fixture('run-loop-retry.json', 'run-node-data');
    await openRunTab(path);
    await page.locator('[data-testid="run-button"]').click();
    await waitPhase('finished');
    assert.equal((await page.locator('[data-testid="run-summary"] [data-testid="run-outcome"]').textContent()).trim(), 'Succeeded');

    await page.locator('[data-testid="node-count"]').click();
    await page.locator('[data-testid="tab-inspector"]').click();
    const data = page.locator('[data-testid="run-data"]');
    await data.waitFor();
    const items = data.locator('[data-testid="run-data-item"]');
    assert.equal(await items.count(), 4, 'three rounds, the first one retried');
    const heads = await items.locator('.run-data-head').allTextContents();
    assert.deepEqual(heads, ['Iteration 3 · attempt 1 · ok', 'Iteration 2 · attempt 1 · ok', 'Iteration 1 · attempt 2 · ok', 'Iteration 1 · attempt 1 · failed']);
    // The newest is open: the arguments as run (the template filled in, quoted) and the outputs.
    assert.match(await items.nth(0).locator('[data-testid="run-data-arguments"]').textContent(), /echo round '3'/);
    assert.match(await items.nth(0).locator('[data-testid="run-data-outputs"]').textContent(), /"stdout": "round 3\\n"/);
    await items.nth(3).locator('.run-data-head').click();
    assert.match(await items.nth(3).locator('[data-testid="run-data-failure"]').textContent(), /exit status 1/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-node-data.png') });
    // Changing the step after the run marks its chip and its run data as stale.
    await page.evaluate(() =>
      window.weft.store.getState().edit((w) => ({
        ...w,
        nodes: w.nodes.map((n) => (n.id === 'count' ? { ...n, params: { ...n.params, arguments: { command: 'echo changed' } } } : n)),
      })),
    );
    await page.waitForSelector('[data-testid="node-count"] [data-testid="run-chip"][data-stale="true"]');
    await data.locator('[data-testid="run-data-stale"]').waitFor();
    await page.evaluate(() => window.weft.store.getState().undo());
    await page.waitForSelector('[data-testid="node-count"] [data-testid="run-chip"]:not([data-stale])');
    await page.locator('[data-testid="tab-run"]').click();
  });

  it('runs from a node reusing the steps before it, and pins data that runs use instead of the step', async () => {
    const { dir, path } = fixture('run-develop.json', 'run-develop');
    const lines = (f) => (existsSync(join(dir, 'out', f)) ? readFileSync(join(dir, 'out', f), 'utf8').trim().split('\n') : []);
    const outcome = async () => (await page.locator('[data-testid="run-summary"] [data-testid="run-outcome"]').textContent()).trim();
    const menu = async (node, item) => {
      await page.locator(`[data-testid="node-${node}"]`).click({ button: 'right' });
      await page.locator(`[data-testid="menu-${item}"]`).click();
    };
    await openRunTab(path);
    await page.locator('[data-testid="run-button"]').click();
    await waitPhase('finished');
    assert.equal(await outcome(), 'Succeeded');
    assert.deepEqual(lines('fetch.log'), ['ran']);

    // Run from Transform: Fetch is not run again; its output comes from the last run.
    await menu('transform', 'run-from');
    await waitPhase('finished');
    assert.equal(await outcome(), 'Succeeded');
    assert.deepEqual(lines('fetch.log'), ['ran'], 'the step before the start did not run again');
    assert.deepEqual(lines('transform.log'), ['got data-v1', 'got data-v1']);
    assert.deepEqual(lines('report.log'), ['report', 'report']);
    assert.match(await chip('fetch').textContent(), /reused/);
    assert.match(await page.locator('[data-testid="summary-from"]').textContent(), /Ran from Transform; 1 step before it reused run .*'s outputs/);

    // Pin Fetch's output from the run, then change it in the inspector: runs use it instead of running Fetch.
    await menu('fetch', 'pin');
    await page.locator('[data-testid="pin-fetch"]').waitFor();
    assert.equal(await page.evaluate(() => window.weft.store.getState().doc.pinned.fetch.stdout), 'data-v1\n');
    await page.locator('[data-testid="node-fetch"]').click();
    await page.locator('[data-testid="tab-inspector"]').click();
    const pinned = page.locator('[data-testid="pinned-data"]');
    assert.match(await pinned.locator('[data-testid="pinned-json"]').textContent(), /data-v1/);
    await pinned.locator('[data-testid="pinned-type"]').click();
    await pinned.locator('[data-testid="pinned-editor"]').fill('["not", "an object"]');
    await pinned.locator('[data-testid="pinned-save"]').click();
    assert.match(await pinned.locator('[data-testid="pinned-error"]').textContent(), /must be a JSON object/);
    await pinned.locator('[data-testid="pinned-editor"]').fill('{"stdout": "pinned-v2", "stderr": "", "exit_code": 0}');
    await pinned.locator('[data-testid="pinned-save"]').click();
    await pinned.locator('[data-testid="pinned-json"]').waitFor();
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    await waitPhase('finished');
    assert.equal(await outcome(), 'Succeeded');
    assert.deepEqual(lines('fetch.log'), ['ran'], 'a pinned step does not run');
    assert.equal(lines('transform.log').at(-1), 'got pinned-v2');
    assert.match(await chip('fetch').textContent(), /pinned data/);
    assert.match(await page.locator('[data-testid="summary-pinned"]').textContent(), /Pinned data stood in for 1 step execution/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-pinned.png') });

    // Unpin from the menu: the mark goes, and the next run runs Fetch.
    await menu('fetch', 'unpin');
    await page.waitForSelector('[data-testid="pin-fetch"]', { state: 'detached' });
    assert.equal(await page.evaluate(() => window.weft.store.getState().doc.pinned), undefined);

    // A step before the start changed since the last run: its outputs are stale, so the run is refused.
    await page.evaluate(() =>
      window.weft.store.getState().edit((w) => ({
        ...w,
        nodes: w.nodes.map((n) => (n.id === 'fetch' ? { ...n, params: { ...n.params, arguments: { command: 'echo other' } } } : n)),
      })),
    );
    await menu('report', 'run-from');
    await page.locator('[data-testid="run-error"]').waitFor();
    assert.match(await page.locator('[data-testid="run-error"]').textContent(), /"Fetch" changed since run/);
    assert.deepEqual(lines('report.log'), ['report', 'report', 'report'], 'nothing ran');
    await page.evaluate(() => window.weft.store.getState().undo());
  });

  it('stops a run in progress', async () => {
    const { dir, path } = fixture('run-slow.json', 'run-stop');
    await openRunTab(path);
    await page.locator('[data-testid="run-button"]').click();
    await waitChip('wait', 'running');
    const t0 = Date.now();
    await page.locator('[data-testid="stop-button"]').click();
    await waitPhase('finished', 10_000);
    assert.ok(Date.now() - t0 < 10_000, 'stopped well before the 30s sleep ended');
    assert.equal((await page.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Stopped');
    await waitChip('wait', 'canceled');
    assert.equal(await chip('after').count(), 0, 'the next step never started');
    assert.ok(!existsSync(join(dir, 'after.txt')));
  });

  it('replans after a failure: the new plan is reviewed, applied, its side-effect steps approved, and it runs', async (t) => {
    if (!FAKE) {
      t.skip('no fake LLM (WEFT_FAKE_LLM)');
      return;
    }
    const { dir, path } = fixture('run-escalation.json', 'run-replan');
    await script({ text: REPLAN });
    await openRunTab(path);
    await page.locator('[data-testid="run-button"]').click();
    const dialog = page.locator('[data-testid="escalation-dialog"]');
    await dialog.waitFor({ timeout: 20_000 });
    const replan = dialog.locator('[data-testid="esc-replan"]');
    assert.ok(await replan.isEnabled(), 'Replan is offered with a model configured');
    await replan.click();

    // The new plan comes back as a change to review on the canvas.
    const card = page.locator('[data-testid="run-replan"]');
    await card.waitFor({ timeout: 30_000 });
    await waitPhase('finished');
    assert.equal((await page.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Replanned');
    await page.waitForSelector('[data-testid="node-check"].preview-modified');
    assert.match(await card.textContent(), /need your approval/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-replan-review.png') });
    await card.locator('[data-testid="apply-change"]').click();
    await page.waitForFunction(() => window.weft.store.getState().proposal === null);
    const cmd = await page.evaluate(() => window.weft.store.getState().doc.nodes.find((n) => n.id === 'check').params.arguments.command);
    assert.equal(cmd, 'test -s out/report.txt');

    // Running the replanned version asks to approve the steps the model changed first.
    await page.locator('[data-testid="run-button"]').click();
    const approval = page.locator('[data-testid="approval-dialog"]');
    await approval.waitFor();
    const steps = approval.locator('[data-testid="approval-step"]');
    const n = await steps.count();
    assert.ok(n >= 1 && n <= 4, `${n} steps to approve`);
    assert.match(await approval.textContent(), /test -s out\/report\.txt/);
    assert.match(await approval.textContent(), /replanned after a failure/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-approval.png') });
    await approval.locator('[data-testid="approve-run"]').click();
    await approval.waitFor({ state: 'detached' });
    await waitPhase('finished');
    assert.equal((await page.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Succeeded');
    const statuses = await page.evaluate(() => Object.fromEntries(Object.entries(window.weft.store.getState().nodeRun).map(([k, v]) => [k, v.status])));
    assert.deepEqual(statuses, { prepare: 'ok', report: 'ok', check: 'ok', finish: 'ok' });
    // The review zoomed to the changed step: show them all (the canvas only draws what is in view).
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(400);
    for (const id of ['prepare', 'report', 'check', 'finish']) await waitChip(id, 'ok');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-run-replanned-run.png') });
    assert.ok(existsSync(join(dir, 'out', 'finish.txt')));
  });

  it('asks before model-written steps run, showing them in full; approves one step at a time; asks again after a model changes one', async () => {
    const { dir, path } = fixture('run-model.json', 'run-model');
    await openRunTab(path);
    await page.locator('[data-testid="run-button"]').click();
    const approval = page.locator('[data-testid="approval-dialog"]');
    await approval.waitFor();
    const steps = approval.locator('[data-testid="approval-step"]');
    assert.equal(await steps.count(), 2, 'the hand-written log step needs no approval');
    // The whole command, past any cut: its tail is there to read.
    assert.match(await steps.nth(0).textContent(), /echo tail > out\/tail\.txt/);
    assert.match(await steps.nth(0).textContent(), /planned by a model/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-approval-dialog.png') });
    const approvalViolations = await inBothThemes(page, '[data-testid="approval-dialog"]');
    assert.deepEqual(approvalViolations, [], approvalViolations.join('\n'));

    // Approve the first step only, then cancel: nothing ran.
    await steps.nth(0).locator('[data-testid="approve-step"]').click();
    await page.waitForSelector('[data-testid="approval-step"][data-approved="true"]');
    assert.match(await approval.locator('[data-testid="approve-run"]').textContent(), /other 1 step/);
    await approval.locator('[data-testid="approve-cancel"]').click();
    await approval.waitFor({ state: 'detached' });
    assert.ok(!existsSync(join(dir, 'out')), 'nothing ran before every step was approved');

    // Asked again: only the step that still waits.
    await page.locator('[data-testid="run-button"]').click();
    await approval.waitFor();
    assert.equal(await steps.count(), 1);
    assert.match(await steps.nth(0).textContent(), /out\/second\.txt/);
    await approval.locator('[data-testid="approve-run"]').click();
    await approval.waitFor({ state: 'detached' });
    await waitPhase('finished');
    assert.equal((await page.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Succeeded');
    assert.ok(existsSync(join(dir, 'out', 'tail.txt')) && existsSync(join(dir, 'out', 'second.txt')));

    // Approved content runs again without asking.
    rmSync(join(dir, 'out'), { recursive: true, force: true });
    await page.locator('[data-testid="run-button"]').click();
    for (let i = 0; i < 100 && !existsSync(join(dir, 'out', 'second.txt')); i++) await page.waitForTimeout(100);
    assert.ok(existsSync(join(dir, 'out', 'second.txt')), 'the approved steps ran again');
    assert.equal(await approval.count(), 0);
    await waitPhase('finished');

    // A model changes the approved first step (a patch, merged by the Go merge): asked again, about that step only.
    await page.evaluate(async () => {
      const st = window.weft.store.getState();
      const { provenance, ...first } = st.doc.nodes.find((x) => x.id === 'first');
      const changed = { ...first, params: { ...first.params, arguments: { command: 'mkdir -p out && echo changed > out/changed.txt' } } };
      const r = await window.go.main.App.ApplyPatch(st.doc, { added_nodes: [], removed_node_ids: [], updated_nodes: [changed], added_edges: [], removed_edges: [] });
      st.edit(() => r.workflow);
    });
    await page.locator('[data-testid="run-button"]').click();
    await approval.waitFor();
    assert.equal(await steps.count(), 1);
    assert.match(await steps.nth(0).textContent(), /echo changed > out\/changed\.txt/);
    assert.match(await steps.nth(0).textContent(), /changed by the assistant/);
    await approval.locator('[data-testid="approve-cancel"]').click();
    assert.ok(!existsSync(join(dir, 'out', 'changed.txt')), 'the changed step did not run');
  });

  it('shows a model-written step with bidi and zero-width characters escaped, as the terminal does, and says so', async () => {
    const { dir, path } = fixture('run-model.json', 'run-hidden');
    await openRunTab(path);
    // A model changes a step: where bidi controls are rendered, the command
    // reads `cp out/usage.log out/backup.log`.
    await page.evaluate(async () => {
      const st = window.weft.store.getState();
      const { provenance, ...first } = st.doc.nodes.find((x) => x.id === 'first');
      const changed = {
        ...first,
        name: 'Back up\u200b the log',
        params: { ...first.params, arguments: { command: 'mkdir -p out && cp out/usage.log out/\u202egol.pukcab\u2066' } },
      };
      const r = await window.go.main.App.ApplyPatch(st.doc, { added_nodes: [], removed_node_ids: [], updated_nodes: [changed], added_edges: [], removed_edges: [] });
      st.edit(() => r.workflow);
    });
    await page.locator('[data-testid="run-button"]').click();
    const approval = page.locator('[data-testid="approval-dialog"]');
    await approval.waitFor();
    const step = approval.locator('[data-testid="approval-step"]', { hasText: 'out/usage.log' });
    await step.locator('[data-testid="approval-content"]').evaluate((el) => el.closest('details').setAttribute('open', ''));
    const text = await approval.textContent();
    assert.doesNotMatch(text, /[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/, 'a raw bidi or zero-width character is shown');
    const shown = await step.textContent();
    assert.ok(shown.includes('cp out/usage.log out/\\u202Egol.pukcab\\u2066'), shown);
    assert.ok(shown.includes('Back up\\u200B the log'), shown);
    assert.match(await step.locator('[data-testid="approval-content"]').textContent(), /out\/\\u202Egol\.pukcab\\u2066/);
    assert.equal((await step.locator('[data-testid="approval-escaped"]').textContent()).trim(), 'invisible characters are shown as \\u escapes');
    await step.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-approval-escaped.png') });
    await approval.locator('[data-testid="approve-cancel"]').click();
    await approval.waitFor({ state: 'detached' });
    assert.ok(!existsSync(join(dir, 'out')), 'nothing ran');
  });

  it('left no errors in the console', () => {
    // (The wails dev overlay's own script fails on load; not the app's.)
    const real = realErrors(consoleErrors);
    assert.deepEqual(real, []);
  });
});
