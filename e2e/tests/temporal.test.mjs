// End-to-end: the desktop app on the Temporal engine. A real Temporal
// server (temporal/devserver's weft-temporal-dev) and a `weft worker`
// process run here; Preferences' engine is set to Temporal; Run in the
// app submits the run, the run panel follows it live, the escalation
// dialog's answer reaches the run, and the run ends in the history. The
// app closed while its run waits goes on on the service: opened again, the
// app offers to follow it, and answers it.
import assert from 'node:assert/strict';
import { execFileSync, execSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createInterface } from 'node:readline';
import { openBrowser } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(ROOT, 'e2e', 'fixtures');
const SCRATCH = process.env.WEFT_E2E_SCRATCH ?? mkdtempSync(join(tmpdir(), 'weft-e2e-temporal-'));
const RESTART = process.env.WEFT_RESTART;

let context;
let page;
let closeBrowser;
let server;
let worker;
let saved;
const bin = join(SCRATCH, 'temporal-bin');

/** start runs a command and resolves with its first line of output. */
function start(cmd, args, env) {
  const p = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = new Promise((resolve, reject) => {
    const rl = createInterface({ input: p.stdout });
    rl.once('line', resolve);
    p.once('exit', (code) => reject(new Error(`${cmd} exited with ${code}`)));
  });
  p.stderr.on('data', () => {});
  return { p, first };
}

before(async () => {
  mkdirSync(bin, { recursive: true });
  execFileSync('go', ['build', '-o', join(bin, 'weft'), './backend/cmd/weft'], { cwd: ROOT, env: { ...process.env, CGO_ENABLED: '0' }, stdio: 'inherit' });
  execFileSync('go', ['build', '-o', join(bin, 'weft-temporal-dev'), './cmd/weft-temporal-dev'], { cwd: join(ROOT, 'temporal', 'devserver'), stdio: 'inherit' });
  server = start(join(bin, 'weft-temporal-dev'), []);
  const [address, namespace] = (await server.first).trim().split(' ');
  const home = mkdtempSync(join(tmpdir(), 'weft-e2e-worker-'));
  worker = start(join(bin, 'weft'), ['worker', '--temporal-address', address, '--namespace', namespace, '--task-queue', 'weft-e2e'], {
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
  });
  await worker.first; // "weft worker: polling …"

  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1400, height: 860 }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
  await page.waitForFunction(() => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null, null, { timeout: 30_000 });
  if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) await page.locator('[data-testid="dialog-discard"]').click();
  // The app's runs go to Temporal (as Preferences → Engine saves it).
  saved = await page.evaluate(async ([address, namespace]) => {
    const v = await window.go.main.App.GetSettings();
    await window.go.main.App.SaveSettings({ ...v.settings, engine: { kind: 'temporal', temporal: { address, namespace, task_queue: 'weft-e2e', tls: false } } }, null);
    return v.settings.engine ?? null;
  }, [address, namespace]);
});

after(async () => {
  await page
    ?.evaluate(async (engine) => {
      const v = await window.go.main.App.GetSettings();
      await window.go.main.App.SaveSettings({ ...v.settings, engine: engine ?? { kind: 'local', temporal: { address: '', namespace: 'default', task_queue: 'weft', tls: false } } }, null);
    }, saved)
    .catch(() => {});
  await closeBrowser?.();
  worker?.p.kill('SIGTERM');
  server?.p.kill('SIGTERM');
});

describe('Temporal engine in the app', () => {
  it('runs on Temporal: the run panel follows it, the escalation is answered from the dialog, the run is in the history', async () => {
    const dir = join(SCRATCH, 'temporal-run');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'run-escalation.json');
    copyFileSync(join(FIXTURES, 'run-escalation.json'), path);
    await page.evaluate(async (p) => {
      const st = window.weft.store.getState();
      if (st.dirty) await window.weft.actions.save();
      await window.weft.actions.openPath(p);
    }, path);
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('run-escalation.json'));
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    await page.waitForSelector('[data-testid="node-prepare"] [data-testid="run-chip"][data-status="ok"]', { timeout: 30_000 });
    const dialog = page.locator('[data-testid="escalation-dialog"]');
    await dialog.waitFor({ timeout: 30_000 });
    assert.equal((await dialog.locator('[data-testid="esc-node"]').textContent()).trim(), 'Check report');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-temporal-escalation.png') });
    await dialog.locator('[data-testid="esc-skip"]').click();
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    assert.equal((await page.locator('[data-testid="run-summary"] [data-testid="run-outcome"]').textContent()).trim(), 'Completed with 1 skipped');
    await page.waitForSelector('[data-testid="node-finish"] [data-testid="run-chip"][data-status="ok"]');
    assert.ok(existsSync(join(dir, 'out', 'finish.txt')), 'the worker ran the steps in the workflow folder');
    assert.equal(readFileSync(join(dir, 'out', 'report.txt'), 'utf8').trim(), 'report');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-temporal-finished.png') });
    await page.locator('[data-testid="run-view-history"]').click();
    const row = page.locator('[data-testid="history-row"]').first();
    await row.waitFor();
    assert.equal(await row.getAttribute('data-outcome'), 'partial');
    await page.locator('[data-testid="run-view-log"]').click();
  });

  it('closed while its run waits, the app leaves the run going; opened again it follows it, answers it, and logs it once', async () => {
    assert.ok(RESTART, 'WEFT_RESTART must be set (run through scripts/e2e.sh)');
    const dir = join(SCRATCH, 'temporal-run');
    const path = join(dir, 'run-escalation.json');
    rmSync(join(dir, 'out'), { recursive: true, force: true });
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    await page.locator('[data-testid="escalation-dialog"]').waitFor({ timeout: 30_000 });

    // The window closes (wails dev and its Go process stop) and opens again.
    execSync(RESTART, { stdio: 'inherit', timeout: 320_000 });
    await page.goto(URL, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
    await page.waitForFunction(() => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null, null, { timeout: 30_000 });
    if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) await page.locator('[data-testid="dialog-discard"]').click();
    await page.evaluate(async (p) => window.weft.actions.openPath(p), path);
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('run-escalation.json'));
    await page.locator('[data-testid="tab-run"]').click();
    const note = page.locator('[data-testid="runs-going"]');
    await note.waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-temporal-going.png') });
    await note.locator('[data-testid="follow-run"]').click();

    const dialog = page.locator('[data-testid="escalation-dialog"]');
    await dialog.waitFor({ timeout: 30_000 });
    assert.equal((await dialog.locator('[data-testid="esc-node"]').textContent()).trim(), 'Check report');
    await dialog.locator('[data-testid="esc-skip"]').click();
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    assert.equal((await page.locator('[data-testid="run-summary"] [data-testid="run-outcome"]').textContent()).trim(), 'Completed with 1 skipped');
    assert.ok(existsSync(join(dir, 'out', 'finish.txt')), 'the run did not go on to its end');
    await page.locator('[data-testid="run-view-history"]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-row"]').length === 2);
    assert.equal(await page.locator('[data-testid="history-row"]').first().getAttribute('data-outcome'), 'partial');
    assert.equal(await page.locator('[data-testid="runs-going"]').count(), 0);
  });

  it("runs a sub-workflow on Temporal: the caller's log opens the child's run, and the child's history opens the caller's", async () => {
    const dir = join(SCRATCH, 'temporal-subflow');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const doc = (id, nodes) => JSON.stringify({ format: 'weft/v1', id, name: id, nodes, edges: [] });
    writeFileSync(
      join(dir, 'child.weft.json'),
      doc('child', [{ id: 'c', key: 'hello', type: 'Tool', params: { tool: 'run_command', arguments: { command: 'printf child-ran > child.txt' } } }]),
    );
    const parent = join(dir, 'parent.weft.json');
    writeFileSync(parent, doc('parent', [{ id: 's', key: 'sub', type: 'Workflow', params: { path: 'child.weft.json' } }]));
    await page.evaluate(async (p) => {
      if (window.weft.store.getState().dirty) await window.weft.actions.save();
      await window.weft.actions.openPath(p);
    }, parent);
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('parent.weft.json'));
    await page.locator('[data-testid="node-s"]').waitFor();
    await page.locator('[data-testid="tab-run"]').click();
    await page.locator('[data-testid="run-button"]').click();
    try {
      await page.waitForFunction(() => window.weft.store.getState().runPhase === 'finished', null, { timeout: 60_000 });
    } finally {
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-temporal-subflow-run.png') });
    }
    await page.waitForSelector('[data-testid="node-s"] [data-testid="run-chip"][data-status="ok"]', { timeout: 30_000 });
    assert.equal(readFileSync(join(dir, 'child.txt'), 'utf8'), 'child-ran', "the child's step ran on the worker");
    const parentRun = await page.evaluate(() => window.weft.store.getState().runId);

    // The caller's log names the child's Temporal run where the step started it.
    await page.locator('[data-testid="run-view-log"]').click();
    const open = page.locator('[data-testid="log-open-sub-run"]');
    await open.waitFor();
    await open.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('child.weft.json'));
    await page.locator('[data-testid="viewing-past-run"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-temporal-subflow-child.png') });

    // The child's history names its caller, and opens the caller's run.
    await page.locator('[data-testid="run-view-history"]').click();
    const row = page.locator('[data-testid="history-row"]').first();
    await row.waitFor();
    assert.equal(await row.getAttribute('data-outcome'), 'succeeded');
    await row.getByRole('button').first().click();
    const back = row.locator('[data-testid="history-parent"]');
    const said = await back.textContent();
    assert.ok(said.includes(`Called by parent.weft.json (step sub, run ${parentRun})`), said);
    await back.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes('parent.weft.json'));
    await page.locator('[data-testid="viewing-past-run"]').waitFor();
  });
});
