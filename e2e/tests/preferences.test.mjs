// End-to-end: the Preferences dialog saves through the Go bindings to the
// settings file and the value survives a restart of the app.
// scripts/e2e.sh sets WEFT_URL, WEFT_SETTINGS (the private settings.json),
// WEFT_FAKE_LLM, WEFT_RESTART (a command that restarts `wails dev`) and
// WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const SETTINGS = process.env.WEFT_SETTINGS;
const RESTART = process.env.WEFT_RESTART;
const FAKE_URL = process.env.WEFT_FAKE_LLM;
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const HELP = '0 = skip validation, 1 = validate only, N = validate and retry (up to N model calls)';

let context;
let page;
let closeBrowser;
const consoleErrors = [];

const onDisk = () => JSON.parse(readFileSync(SETTINGS, 'utf8'));

async function load() {
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions, null, { timeout: 60_000 });
  await page.waitForSelector('[data-testid="doc-title"]');
}

async function openPreferences() {
  await page.locator('[data-testid="preferences-button"]').click();
  await page.waitForSelector('[data-testid="preferences-dialog"] [data-testid="pref-max-repair"]');
  return page.locator('[data-testid="preferences-dialog"]');
}

before(async () => {
  assert.ok(SETTINGS && RESTART, 'WEFT_SETTINGS and WEFT_RESTART must be set (run through scripts/e2e.sh)');
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1280, height: 860, errors: consoleErrors }));
  await load();
});

after(async () => {
  await closeBrowser?.();
});

describe('Preferences', () => {
  it('shows the settings file, the stored key as set, and tests the connection', async () => {
    const dlg = await openPreferences();
    assert.match(await dlg.locator('[data-testid="settings-path"]').textContent(), new RegExp(SETTINGS.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(await dlg.locator('[data-testid="pref-base-url"]').inputValue(), FAKE_URL);
    assert.equal(await dlg.locator('[data-testid="pref-model"]').inputValue(), 'fake-model');
    assert.match(await dlg.locator('[data-testid="pref-api-key-status"]').textContent(), /^set \(/);
    assert.equal(await dlg.locator('[data-testid="pref-api-key"]').getAttribute('type'), 'password');
    assert.ok((await dlg.textContent()).includes(HELP), 'the repair help text');

    await dlg.locator('[data-testid="test-connection"]').click();
    await page.waitForFunction(() => /available|answered/.test(document.querySelector('[data-testid="test-connection-result"]')?.textContent ?? ''));
    assert.match(await dlg.locator('[data-testid="test-connection-result"]').textContent(), /model "fake-model" is available/);

    // A wrong key typed into the form fails the test and is not saved.
    await dlg.locator('[data-testid="pref-api-key"]').fill('sk-wrong');
    assert.match(await dlg.locator('[data-testid="pref-api-key-status"]').textContent(), /will be replaced/);
    await dlg.locator('[data-testid="test-connection"]').click();
    await page.waitForFunction(() => /API key|401|auth/i.test(document.querySelector('[data-testid="test-connection-result"]')?.textContent ?? ''));
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    assert.equal(onDisk().llm.api_key, 'sk-e2e-fake-0123456789');
  });

  it('adds an MCP server with arguments and environment, and removes it again', async () => {
    let dlg = await openPreferences();
    await dlg.locator('[data-testid="mcp-add"]').click();
    const row = dlg.locator('[data-testid="mcp-server"]').last();
    await row.getByLabel('Server name', { exact: true }).fill('my files');
    await dlg.getByText('No dots, spaces or slashes (tools are named server.tool)').waitFor();
    assert.equal(await dlg.locator('[data-testid="prefs-save"]').isDisabled(), true);
    await row.getByLabel('Server name', { exact: true }).fill('files');
    await row.getByLabel('Command', { exact: true }).fill('/bin/false');
    await row.getByLabel('Arguments', { exact: true }).fill('--root "/tmp/my files" -v');
    await row.getByRole('button', { name: /environment variable/ }).click();
    await row.getByLabel('Variable', { exact: true }).fill('LOG_LEVEL');
    await row.getByLabel('Value', { exact: true }).fill('debug');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-preferences-mcp.png') });
    await dlg.locator('[data-testid="prefs-save"]').click();
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    assert.deepEqual(onDisk().mcp_servers, { files: { command: '/bin/false', args: ['--root', '/tmp/my files', '-v'], env: { LOG_LEVEL: 'debug' } } });

    dlg = await openPreferences();
    await dlg.getByRole('button', { name: 'Remove server files' }).click();
    await dlg.locator('[data-testid="prefs-save"]').click();
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    assert.deepEqual(onDisk().mcp_servers, {});
  });

  it('stores a secret from the Secrets section, which the command line sees, and never shows its value', async () => {
    const VALUE = 'ghp_e2ePreferencesSecret0123456789';
    const dlg = await openPreferences();
    const section = dlg.locator('[data-testid="prefs-secrets"]');
    await section.scrollIntoViewIfNeeded();
    assert.equal(await section.locator('[data-testid="secret-value"]').getAttribute('type'), 'password');
    await section.locator('[data-testid="secret-name"]').fill('E2E_TOKEN');
    await section.locator('[data-testid="secret-value"]').fill(VALUE);
    await section.locator('[data-testid="secret-hosts"]').fill('api.example.com, *.example.org');
    await section.locator('[data-testid="secret-add"]').click();
    const row = section.locator('[data-testid="secret-row"]', { hasText: 'E2E_TOKEN' });
    await row.waitFor();
    assert.match(await row.textContent(), /secrets file.*api\.example\.com, \*\.example\.org/);
    assert.equal(await section.locator('[data-testid="secret-value"]').inputValue(), '');
    assert.ok(!(await page.content()).includes(VALUE), 'the value is on the page');
    // The command line reads the same store: the name and bindings, no value.
    const listed = execSync(`"${process.env.WEFT_CLI}" secrets list --json`, { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(listed).secrets.find((x) => x.name === 'E2E_TOKEN'), { name: 'E2E_TOKEN', hosts: ['api.example.com', '*.example.org'], stored: 'file' });
    assert.ok(!listed.includes(VALUE));
    const values = readFileSync(join(process.env.XDG_DATA_HOME, 'weft', 'secrets', 'values.json'), 'utf8');
    assert.equal(JSON.parse(values).E2E_TOKEN, VALUE);

    await row.getByRole('button', { name: 'Remove secret E2E_TOKEN' }).click();
    await row.locator('[data-testid="secret-remove-confirm"]').click();
    await row.waitFor({ state: 'detached' });
    assert.ok(!readFileSync(join(process.env.XDG_DATA_HOME, 'weft', 'secrets', 'values.json'), 'utf8').includes(VALUE));
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
  });

  it('validates Max repair attempts, saves 5 and keeps it across a restart', async () => {
    const dlg = await openPreferences();
    const field = dlg.locator('[data-testid="pref-max-repair"]');
    const save = dlg.locator('[data-testid="prefs-save"]');
    await field.fill('11');
    await dlg.getByText('Must be from 0 to 10').waitFor();
    assert.equal(await save.isDisabled(), true, 'Save is disabled while invalid');
    await field.fill('5');
    assert.equal(await dlg.getByText('Must be from 0 to 10').count(), 0);
    assert.equal(await save.isDisabled(), false);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-preferences.png') });
    await save.click();
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    const saved = onDisk();
    assert.equal(saved.max_repair_attempts, 5);
    assert.equal(saved.llm.base_url, FAKE_URL, 'the rest is kept');
    assert.equal(saved.llm.api_key, 'sk-e2e-fake-0123456789', 'the key is kept');

    // Restart the app (wails dev and its Go process) and load the page again.
    execSync(RESTART, { stdio: 'inherit', timeout: 320_000 });
    await load();
    const again = await openPreferences();
    assert.equal(await again.locator('[data-testid="pref-max-repair"]').inputValue(), '5');
    assert.equal(onDisk().max_repair_attempts, 5);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-preferences-after-restart.png') });

    // Back to the value the other specs expect.
    await again.locator('[data-testid="pref-max-repair"]').fill('3');
    await again.locator('[data-testid="prefs-save"]').click();
    await page.waitForSelector('[data-testid="preferences-dialog"]', { state: 'detached' });
    assert.equal(onDisk().max_repair_attempts, 3);
  });

  it('logged no errors in the page', () => {
    // The restart drops the dev server's connection for a moment.
    const real = realErrors(consoleErrors, /ERR_CONNECTION|WebSocket/i);
    assert.deepEqual(real, []);
  });
});
