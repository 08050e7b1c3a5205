// End-to-end: a workflow file with a token written in a header shows a
// literal_secret warning; "Move to secrets" stores the token (the 0600
// file: the app runs with WEFT_KEYRING=off and private XDG folders, see
// scripts/e2e.sh) and the header then reads Bearer {{secrets.NAME}}, one
// undo step; after Save the token is in no file of the workflow's folder,
// and `weft secrets list --json` lists the secret bound to the URL's host.
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const TOKEN = 'e2eTok3nZq8Xw3Vb7Nm2Lk5Jh9Gf4Ds1Pa6Ou0';

let page;
let closeBrowser;
let dir;
let file;
const consoleErrors = [];

function workflowFile() {
  return `${JSON.stringify(
    {
      format: 'weft/v1',
      id: 'e2e-literal',
      name: 'Literal token',
      nodes: [
        {
          id: 'fetch',
          key: 'fetch',
          name: 'Fetch items',
          type: 'Tool',
          params: { tool: 'http_request', arguments: { method: 'GET', url: 'https://api.example.com/v1/items', headers: { Authorization: `Bearer ${TOKEN}` } } },
          position: { x: 0, y: 80 },
        },
        { id: 'report', key: 'report', name: 'Report', type: 'Tool', params: { tool: 'log', arguments: { message: 'status {{fetch.status}}' } }, position: { x: 320, y: 80 } },
      ],
      edges: [{ from: 'fetch', to: 'report' }],
    },
    null,
    2,
  )}\n`;
}

/** filesHolding lists the files beneath root whose bytes hold s. */
function filesHolding(root, s) {
  const out = [];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) out.push(...filesHolding(p, s));
    else if (readFileSync(p).includes(s)) out.push(p);
  }
  return out;
}

const authorization = () => page.evaluate(() => window.weft.store.getState().doc.nodes.find((n) => n.id === 'fetch').params.arguments.headers.Authorization);
const literalRow = () => page.locator('[data-testid="problem-row"][data-code="literal_secret"]');

before(async () => {
  dir = mkdtempSync(join(process.env.WEFT_E2E_SCRATCH ?? '/tmp', 'literal-'));
  file = join(dir, 'literal.json');
  writeFileSync(file, workflowFile());
  ({ page, close: closeBrowser } = await openBrowser({ width: 1400, height: 860, errors: consoleErrors }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
  await page.waitForFunction(() => window.weft.store.getState().doc !== null || window.weft.store.getState().dialog !== null, null, { timeout: 30_000 });
  if (await page.evaluate(() => window.weft.store.getState().dialog !== null)) {
    await page.locator('[data-testid="dialog-discard"]').click();
    await page.waitForFunction(() => window.weft.store.getState().doc !== null);
  }
  await page.evaluate(async (p) => {
    if (window.weft.store.getState().dirty) await window.weft.actions.save();
    await window.weft.actions.openPath(p);
  }, file);
  await page.waitForFunction((p) => window.weft.store.getState().path === p, file);
});

after(async () => {
  await closeBrowser?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a token written in a workflow', () => {
  it('is a literal_secret warning that shows it masked', async () => {
    await literalRow().waitFor({ timeout: 15_000 });
    const text = await literalRow().textContent();
    assert.match(text, /Fetch items/);
    assert.match(text, /\/headers\/Authorization/);
    assert.ok(!text.includes(TOKEN.slice(0, 8)), `the warning shows the token: ${text}`);
    assert.ok(!(await page.content()).includes(TOKEN.slice(0, 12)), 'the page shows the token');
  });

  it('moves to secrets: the header reads Bearer {{secrets.API_TOKEN}}, one undo step', async () => {
    await page.locator('[data-testid="move-to-secrets-button"]').click();
    const dlg = page.locator('[data-testid="move-to-secrets"]');
    await dlg.waitFor();
    assert.equal(await dlg.locator('[data-testid="move-secret-name"]').inputValue(), 'API_TOKEN');
    assert.equal(await dlg.locator('[data-testid="move-secret-hosts"]').inputValue(), 'api.example.com');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-move-to-secrets.png') });
    await dlg.locator('[data-testid="move-secret-save"]').click();
    await dlg.waitFor({ state: 'detached' });
    assert.equal(await authorization(), 'Bearer {{secrets.API_TOKEN}}');
    await literalRow().waitFor({ state: 'detached' });
    // Nothing else to warn about: the reference is neither a node key nor a missing secret.
    await page.waitForFunction(() => window.weft.store.getState().problems.length === 0 && !window.weft.store.getState().validating);

    await page.evaluate(() => window.weft.store.getState().undo());
    assert.equal(await authorization(), `Bearer ${TOKEN}`);
    await page.evaluate(() => window.weft.store.getState().redo());
    assert.equal(await authorization(), 'Bearer {{secrets.API_TOKEN}}');
    await page.locator('[data-testid="node-fetch"]').click();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-moved-to-secrets.png') });
  });

  it('is stored for the command line and is in no file of the folder after Save', async () => {
    await page.evaluate(() => window.weft.actions.save());
    await page.waitForFunction(() => !window.weft.store.getState().dirty);
    assert.match(readFileSync(file, 'utf8'), /"Authorization": "Bearer \{\{secrets\.API_TOKEN\}\}"/);
    assert.deepEqual(filesHolding(dir, TOKEN), []);
    assert.deepEqual(filesHolding(dir, Buffer.from(TOKEN).toString('base64')), []);
    const listed = JSON.parse(execSync(`"${process.env.WEFT_CLI}" secrets list --json`, { encoding: 'utf8' }));
    assert.deepEqual(listed.secrets.find((s) => s.name === 'API_TOKEN'), { name: 'API_TOKEN', hosts: ['api.example.com'], stored: 'file' });
    assert.deepEqual(realErrors(consoleErrors), []);
  });
});
