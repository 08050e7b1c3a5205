// End-to-end: a workflow written on another computer refers to a secret by
// name ({{secrets.SHARED_TOKEN}}) that this computer lacks. Opening it
// lists the secret with the host its step sends it to; Run asks again
// instead of starting; the value entered is stored (the command line, with
// the app's XDG folders, lists it) and the workflow then runs against a
// local HTTP server, which receives the token. The token is never on the
// page. scripts/e2e.sh sets WEFT_URL, WEFT_ARTIFACTS, WEFT_CLI and the XDG
// folders this process inherits.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openApp, realErrors } from './browser.mjs';
import { inBothThemes } from './axe.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const TOKEN = 'shared-e2e-tok_5e3c1a9f7b2d4e60';

let page;
let closeBrowser;
let dir;
let file;
let server;
let host;
const seen = [];
const consoleErrors = [];

const asking = () => page.locator('[data-testid="secrets-needed"]');
const row = () => asking().locator('[data-testid="needed-secret"][data-name="SHARED_TOKEN"]');

before(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${server.address().port}`;
  // Written elsewhere: a folder of its own, outside the one scripts/e2e.sh trusts.
  dir = mkdtempSync(join(tmpdir(), 'weft-e2e-shared-'));
  file = join(dir, 'shared.json');
  const wf = {
    format: 'weft/v1',
    id: 'e2e-shared-secrets',
    name: 'Shared workflow',
    nodes: [
      {
        id: 'me',
        key: 'me',
        name: 'Who am I',
        type: 'Tool',
        params: { tool: 'http_request', arguments: { method: 'GET', url: `http://${host}/v1/me`, headers: { Authorization: 'Bearer {{secrets.SHARED_TOKEN}}' } } },
        position: { x: 0, y: 80 },
      },
    ],
    edges: [],
  };
  writeFileSync(file, `${JSON.stringify(wf, null, 2)}\n`);
  ({ page, close: closeBrowser } = await openApp(URL, { width: 1400, height: 860, errors: consoleErrors }));
});

after(async () => {
  await page?.evaluate(() => window.go.main.App.StopRun()).catch(() => {});
  await closeBrowser?.();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  // The secret goes with the test.
  try {
    execFileSync(process.env.WEFT_CLI, ['secrets', 'remove', 'SHARED_TOKEN'], { stdio: 'ignore' });
  } catch {
    /* not stored */
  }
});

describe('a shared workflow that refers to a secret this computer lacks', () => {
  it('opens asking for it, with the host its step sends it to', async () => {
    await page.evaluate(async (p) => {
      if (window.weft.store.getState().dirty) await window.weft.actions.save();
      await window.weft.actions.openPath(p);
    }, file);
    await asking().waitFor();
    assert.equal(await asking().locator('[data-testid="needed-secret"]').count(), 1);
    assert.match(await row().textContent(), /SHARED_TOKEN.*used by Who am I/);
    assert.equal(await row().locator('[data-testid="needed-secret-hosts"]').inputValue(), host);
    assert.equal(await row().locator('[data-testid="needed-secret-value"]').getAttribute('type'), 'password');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-shared-secrets-ask.png') });
    const found = await inBothThemes(page, '[data-testid="secrets-needed"]');
    assert.deepEqual(found, [], found.join('\n'));
  });

  it('Later closes it; the Run panel says what is missing, and Run asks again instead of starting', async () => {
    await asking().locator('[data-testid="secrets-needed-later"]').click();
    await asking().waitFor({ state: 'detached' });
    await page.locator('[data-testid="tab-run"]').click();
    const notice = page.locator('[data-testid="run-missing-secrets"]');
    assert.match(await notice.textContent(), /Secrets missing here: SHARED_TOKEN\. The workflow does not run without them\./);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-shared-secrets-notice.png') });
    await notice.locator('[data-testid="run-missing-secrets-add"]').click();
    await asking().waitFor();
    await page.keyboard.press('Escape');
    await asking().waitFor({ state: 'detached' });
    await page.locator('[data-testid="run-button"]').click();
    await asking().waitFor();
    assert.equal(await page.locator('[data-testid="approval-dialog"]').count(), 0);
    assert.equal(await page.locator('[data-testid="run-status"]').getAttribute('data-phase'), 'idle');
    assert.deepEqual(seen, [], 'nothing was sent');
  });

  it('stores the value entered, which the command line lists (never the value)', async () => {
    await row().locator('[data-testid="needed-secret-value"]').fill(TOKEN);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-shared-secrets-filled.png') });
    await row().locator('[data-testid="needed-secret-save"]').click();
    await asking().waitFor({ state: 'detached' });
    await page.locator('[data-testid="run-missing-secrets"]').waitFor({ state: 'detached' });
    const listed = execFileSync(process.env.WEFT_CLI, ['secrets', 'list', '--json'], { encoding: 'utf8' });
    assert.ok(!listed.includes(TOKEN));
    assert.deepEqual(
      JSON.parse(listed).secrets.find((x) => x.name === 'SHARED_TOKEN'),
      { name: 'SHARED_TOKEN', hosts: [host], stored: 'file' },
    );
  });

  it('then runs, once its steps are reviewed, and the server receives the token', async () => {
    await page.locator('[data-testid="run-button"]').click();
    const approval = page.locator('[data-testid="approval-dialog"]');
    await approval.waitFor(); // written elsewhere: reviewed before it acts
    await approval.locator('[data-testid="approve-run"]').click();
    await approval.waitFor({ state: 'detached' });
    await page.waitForSelector('[data-testid="run-status"][data-phase="finished"]', { timeout: 30_000 });
    assert.equal((await page.locator('[data-testid="run-outcome"]').textContent()).trim(), 'Succeeded');
    assert.deepEqual(seen, [`Bearer ${TOKEN}`]);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-shared-secrets-ran.png') });
    assert.ok(!(await page.content()).includes(TOKEN), 'the token is not on the page');
  });

  it('left no errors in the console', () => {
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
