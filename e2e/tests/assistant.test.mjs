// End-to-end: the Assistant panel against the fake LLM (llmtest's fakellm),
// through the real Go bindings served by `wails dev`. scripts/e2e.sh starts
// both and sets WEFT_URL, WEFT_FAKE_LLM (the fake's /v1 URL), WEFT_PIPELINE
// and WEFT_EMPTY (scratch copies of e2e/fixtures), WEFT_ARTIFACTS.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const FAKE = (process.env.WEFT_FAKE_LLM ?? '').replace(/\/v1\/?$/, '');
const PIPELINE = process.env.WEFT_PIPELINE;
const EMPTY = process.env.WEFT_EMPTY;
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';

// Replies of the fake model. The pipeline is download → unzip → notify.
const ADD_LOG = `{"message": "Added a last step that logs the archive was unpacked.",
 "add_nodes": [{"id": "archive_log", "step_type": "Tool", "name": "Log archive unpacked", "tool_name": "log", "arguments": {"message": "archive unpacked"}}],
 "add_edges": [{"from": "notify", "to": "archive_log"}]}`;
// A change that stays valid whatever the earlier specs did to the pipeline.
const UPDATE_NOTIFY = `{"message": "The notification now says all is done.", "update": [{"id": "notify", "arguments": {"message": "all done"}}]}`;
const IF_ONE_BRANCH = `{"add_nodes": [{"id": "check", "step_type": "If", "name": "Download ok?", "condition": "download.exit_code == 0"}],
 "add_edges": [{"from": "download", "to": "check"}, {"from": "check", "to": "unzip", "output": {"type": "IfTrue"}}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}`;
const IF_BOTH_BRANCHES = `Here is the corrected change.
\`\`\`json
{"message": "Unzip only when the download worked, and report a failed download.",
 "add_nodes": [{"id": "check", "step_type": "If", "name": "Download ok?", "condition": "download.exit_code == 0"},
               {"id": "report", "step_type": "Tool", "name": "Report failure", "tool_name": "log", "arguments": {"message": "download failed"}}],
 "add_edges": [{"from": "download", "to": "check"}, {"from": "check", "to": "unzip", "output": "IfTrue"}, {"from": "check", "to": "report", "output": "false"}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}
\`\`\``;
const PLAN = `{"message": "A workflow that lists the reports and logs how many there are.",
 "steps": [
  {"key": "list_reports", "step_type": "Tool", "name": "List reports", "tool_name": "run_command", "arguments": {"command": "ls reports"}},
  {"key": "say_count", "step_type": "Tool", "name": "Log the list", "tool_name": "log", "arguments": {"message": "reports listed"}}
 ]}`;

let context;
let page;
let closeBrowser;
const consoleErrors = [];

async function fake(path, body) {
  const res = await fetch(FAKE + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(res.ok, `fake LLM ${path}: HTTP ${res.status}`);
  return res.json();
}

/** script resets the fake model and queues its next replies. */
async function script(...steps) {
  await fake('/_llmtest/reset', {});
  await fake('/_llmtest/steps', steps);
}

const state = () => page.evaluate(() => {
  const s = window.weft.store.getState();
  return { nodes: s.doc?.nodes.map((n) => n.key) ?? [], edges: s.doc?.edges.length ?? 0, dirty: s.dirty, path: s.path };
});

/** previewCounts counts the preview's nodes by status (added, removed, modified). */
const previewCounts = () =>
  page.evaluate(() => {
    const out = {};
    for (const v of Object.values(window.weft.store.getState().previewStatus ?? {})) out[v] = (out[v] ?? 0) + 1;
    return out;
  });

async function openWorkflow(path) {
  // Save first so that opening never stops at an unsaved-changes question.
  await page.evaluate(async (p) => {
    if (window.weft.store.getState().dirty) await window.weft.actions.save();
    await window.weft.actions.openPath(p);
  }, path);
  const name = path.split('/').pop();
  await page.waitForFunction((n) => document.querySelector('[data-testid="doc-title"]')?.textContent?.includes(n), name);
  await page.locator('[data-testid="tab-assistant"]').click();
  await page.waitForSelector('[data-testid="assistant-panel"]');
}

async function ask(text) {
  const input = page.locator('[data-testid="assistant-input"]');
  await input.fill(text);
  await input.press('Enter');
}

async function progressText() {
  return (await page.locator('[data-testid="assistant-progress"]').textContent())?.trim();
}

before(async () => {
  assert.ok(FAKE, 'WEFT_FAKE_LLM must name the fake LLM');
  assert.ok(PIPELINE && EMPTY, 'WEFT_PIPELINE and WEFT_EMPTY must name the fixtures');
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1440, height: 860, errors: consoleErrors }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.go?.main?.App && window.weft?.actions && window.weft?.store, null, { timeout: 60_000 });
  // The settings as scripts/e2e.sh wrote them (another spec may have changed
  // the repair budget): three model calls at most.
  await page.evaluate(async () => {
    const v = await window.go.main.App.GetSettings();
    await window.go.main.App.SaveSettings({ ...v.settings, max_repair_attempts: 3 }, null);
  });
});

after(async () => {
  await closeBrowser?.();
});

describe('Assistant panel', () => {
  it('previews a proposed change on the canvas, applies it and saves it to the file', async () => {
    await script({ text: ADD_LOG, delay: '1500ms' });
    await openWorkflow(PIPELINE);
    assert.match(await page.textContent('[data-testid="chat-empty"]'), /Ask about this workflow/);

    await ask('Log that the archive was unpacked at the end');
    await page.waitForSelector('[data-testid="assistant-progress"]');
    assert.equal(await progressText(), 'Thinking…');
    assert.equal(await page.locator('[data-testid="assistant-stop"]').count(), 1, 'Stop shows while the assistant works');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-thinking.png') });

    // The proposal: the new node drawn green on the canvas, a review banner.
    await page.waitForSelector('[data-testid="review-banner"]', { timeout: 20_000 });
    const added = page.locator('.weft-node.preview-added');
    await added.first().waitFor();
    assert.equal(await added.count(), 1);
    assert.deepEqual(await previewCounts(), { added: 1 });
    assert.match(await added.textContent(), /Log archive unpacked/);
    // The theme's green (--ok), whichever theme shows.
    const [border, ok] = await added.evaluate((el) => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--ok)';
      document.body.append(probe);
      const green = getComputedStyle(probe).color;
      probe.remove();
      return [getComputedStyle(el).borderTopColor, green];
    });
    assert.equal(border, ok, 'added nodes are green');
    assert.equal(await page.getAttribute('[data-testid="review-banner"]', 'data-valid'), 'true');
    assert.match(await page.textContent('[data-testid="review-added"]'), /Log archive unpacked/);
    assert.match(await page.textContent('[data-testid="chat-assistant"]'), /Added a last step/);
    // Nothing is applied yet.
    assert.deepEqual((await state()).nodes, ['download', 'unzip', 'notify']);
    await page.waitForTimeout(400); // the canvas centres the change
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-preview.png') });

    // Apply: one change to the document, then Save writes it.
    await page.locator('[data-testid="apply-change"]').click();
    await page.waitForSelector('[data-testid="review-banner"]', { state: 'detached' });
    assert.equal(await page.locator('.weft-node[class*="preview-"]').count(), 0, 'the preview is gone');
    const s = await state();
    assert.deepEqual(s.nodes, ['download', 'unzip', 'notify', 'archive_log']);
    assert.equal(s.dirty, true);
    await page.waitForSelector('.weft-node[data-testid^="node-"]:has-text("Log archive unpacked")');
    await page.keyboard.press('Control+s');
    await page.waitForFunction(() => !window.weft.store.getState().dirty);
    const saved = JSON.parse(readFileSync(PIPELINE, 'utf8'));
    const node = saved.nodes.find((n) => n.key === 'archive_log');
    assert.ok(node, 'the added node is in the file');
    assert.equal(node.params.tool, 'log');
    assert.ok(saved.edges.some((e) => e.from === 'notify' && e.to === node.id), 'and its edge');

    // The request reached the fake model with the workflow in the prompt,
    // and the conversation is kept beside the file.
    const reqs = await fake('/_llmtest/requests');
    assert.equal(reqs.length, 1);
    assert.match(reqs[0].messages.at(-1).content, /archive was unpacked/);
    assert.match(reqs[0].messages[0].content, /download/);
    assert.ok(existsSync(join(dirname(PIPELINE), '.weft', 'chats', basename(PIPELINE).replace(/\.json$/, '.chat.json'))),
      'chat saved in .weft beside the workflow');
    assert.ok(existsSync(join(dirname(PIPELINE), '.weft', '.gitignore')), '.weft keeps itself out of git');
  });

  it('shows the repair progress when the first reply leaves an If with one branch', async () => {
    await script({ text: IF_ONE_BRANCH, delay: '1200ms' }, { text: IF_BOTH_BRANCHES, delay: '3s' });
    await ask('Only unzip when the download worked');
    await page.waitForSelector('[data-testid="assistant-progress"]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="assistant-progress"]')?.textContent?.includes('Repairing'),
      null,
      { timeout: 15_000 },
    );
    assert.equal(await progressText(), 'Repairing (attempt 2 of 3)…');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-repairing.png') });

    await page.waitForSelector('[data-testid="review-banner"]', { timeout: 20_000 });
    assert.equal(await page.getAttribute('[data-testid="review-banner"]', 'data-valid'), 'true');
    assert.match(await page.textContent('[data-testid="review-banner"]'), /2 attempts/);
    assert.deepEqual(await previewCounts(), { added: 2 });
    // The canvas brings the change into view.
    await page.waitForFunction(() => document.querySelectorAll('.weft-node.preview-added').length === 2);
    const reqs = await fake('/_llmtest/requests');
    assert.equal(reqs.length, 2);
    assert.match(reqs[1].messages.at(-1).content, /if_missing_branch/);
    // What the first reply got wrong can be opened on the answer.
    const repair = page.locator('[data-testid="chat-repair"]').last();
    await repair.locator('summary').click();
    assert.match(await repair.textContent(), /Needed 2 attempts/);
    assert.match(await repair.locator('[data-testid="chat-repair-try"]').textContent(), /Attempt 1 was asked again: .*if_missing_branch/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-repair-details.png') });

    // Discard leaves the document as it was.
    const before = await state();
    await page.locator('[data-testid="discard-change"]').click();
    await page.waitForSelector('[data-testid="review-banner"]', { state: 'detached' });
    assert.deepEqual(await state(), before);
    assert.equal(await page.locator('.weft-node[class*="preview-"]').count(), 0);
  });

  it('asks before applying a change that stays invalid, and applies it as one undo step', async () => {
    await script({ text: IF_ONE_BRANCH }, { text: IF_ONE_BRANCH }, { text: IF_ONE_BRANCH });
    const before = await state();
    await ask('Only unzip when the download worked');
    await page.waitForSelector('[data-testid="review-banner"][data-valid="false"]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid="review-problems"]'), /if_missing_branch/);
    // The assistant's warnings are listed in the problems panel too.
    await page.waitForFunction(() => window.weft.store.getState().warnings.some((w) => w.source === 'assistant'));
    const apply = page.locator('[data-testid="apply-change"]');
    assert.match(await apply.textContent(), /Apply anyway/);
    await apply.click();
    await page.waitForSelector('[data-testid="apply-anyway-confirm"]');
    assert.deepEqual(await state(), before, 'not applied before the confirmation');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-invalid.png') });
    await page.getByRole('button', { name: 'Apply anyway', exact: true }).click();
    await page.waitForSelector('[data-testid="review-banner"]', { state: 'detached' });
    assert.ok((await state()).nodes.includes('check'));
    await page.waitForSelector('[data-testid="problem-row"][data-code="if_missing_branch"]');

    // One undo step takes the whole change back.
    await page.evaluate(() => window.weft.store.getState().undo());
    assert.deepEqual((await state()).nodes, before.nodes);
    assert.equal((await state()).edges, before.edges);
  });

  it('stops a request in flight', async () => {
    await script({ text: ADD_LOG, delay: '30s' });
    await ask('Take your time');
    await page.waitForSelector('[data-testid="assistant-stop"]');
    await page.locator('[data-testid="assistant-stop"]').click();
    await page.waitForSelector('[data-testid="assistant-send"]');
    assert.equal(await page.locator('[data-testid="assistant-progress"]').count(), 0);
    assert.match(await page.locator('[data-testid="chat-assistant"]').last().textContent(), /Stopped\./);
    assert.equal(await page.locator('[data-testid="assistant-error"]').count(), 0);
  });

  it('plans an empty workflow: preview, then apply', async () => {
    await script({ text: PLAN, delay: '800ms' });
    await openWorkflow(EMPTY);
    await page.waitForSelector('[data-testid="chat-empty"]');
    assert.match(await page.textContent('[data-testid="chat-empty"]'), /Describe the automation you want/);
    await ask('List the reports and log them');
    await page.waitForSelector('[data-testid="review-banner"]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid="review-banner"]'), /Proposed plan/);
    assert.deepEqual(await previewCounts(), { added: 2 });
    // The person's own message stays in view above the answer.
    const userInView = await page.evaluate(() => {
      const list = document.querySelector('[data-testid="chat-list"]').getBoundingClientRect();
      const users = document.querySelectorAll('[data-testid="chat-user"]');
      const r = users[users.length - 1].getBoundingClientRect();
      return r.top >= list.top - 1 && r.top < list.bottom;
    });
    assert.ok(userInView, 'the last user message is visible');
    await page.waitForFunction(() => document.querySelectorAll('.weft-node.preview-added').length === 2);
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-plan.png') });
    await page.locator('[data-testid="apply-change"]').click();
    await page.waitForSelector('[data-testid="review-banner"]', { state: 'detached' });
    assert.deepEqual((await state()).nodes, ['list_reports', 'say_count']);
    await page.waitForFunction(() => document.querySelectorAll('.weft-node[data-testid^="node-"]').length === 2);
    // Laid out the way edges run, out on the right and in on the left:
    // each edge goes right, none loops back behind a node.
    const backwards = await page.evaluate(() => {
      const doc = window.weft.store.getState().doc;
      const at = new Map(doc.nodes.map((n) => [n.id, n.position]));
      return doc.edges.filter((e) => !(at.get(e.to).x > at.get(e.from).x)).map((e) => `${e.from} → ${e.to}`);
    });
    assert.deepEqual(backwards, []);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-plan-applied.png') });
  });

  it("asks for the reply's shape: a server that enforces it answers in shape at once", async () => {
    await script({ text: 'I would change the notification to say all is done.', enforced: UPDATE_NOTIFY });
    await fake('/_llmtest/structured', { mode: 'enforce' });
    await openWorkflow(PIPELINE);
    await ask('Make the notification say all is done');
    await page.waitForSelector('[data-testid="review-banner"]', { timeout: 20_000 });
    const reqs = await fake('/_llmtest/requests');
    assert.equal(reqs.length, 1, 'one call: the shape was enforced');
    assert.equal(reqs[0].response_format, 'json_schema');
    assert.equal(reqs[0].schema_name, 'weft_assistant_reply');
    await page.locator('[data-testid="discard-change"]').click();
    await page.waitForSelector('[data-testid="review-banner"]', { state: 'detached' });
  });

  it('a server that refuses response_format is asked again without it, and that is remembered', async () => {
    // Enough replies for the chat's own calls too (summarising older turns).
    await script({ text: UPDATE_NOTIFY }, { text: UPDATE_NOTIFY }, { text: UPDATE_NOTIFY }, { text: UPDATE_NOTIFY });
    await fake('/_llmtest/structured', { mode: 'reject' });
    await ask('Make the notification say all is done');
    await page.waitForSelector('[data-testid="review-banner"]', { timeout: 20_000 });
    let reqs = await fake('/_llmtest/requests');
    assert.deepEqual(reqs.slice(0, 3).map((r) => r.response_format ?? ''), ['json_schema', 'json_object', '']);
    await page.locator('[data-testid="discard-change"]').click();
    await page.waitForSelector('[data-testid="review-banner"]', { state: 'detached' });
    // The next request skips the refused forms: no 400 first.
    const before = reqs.length;
    await ask('Make the notification say all is done, please');
    await page.waitForSelector('[data-testid="review-banner"]', { timeout: 20_000 });
    reqs = await fake('/_llmtest/requests');
    assert.ok(reqs.length > before);
    assert.deepEqual(reqs.slice(before).map((r) => r.response_format ?? ''), reqs.slice(before).map(() => ''));
    await page.locator('[data-testid="discard-change"]').click();
    await fake('/_llmtest/reset', {});
  });

  it('with no model configured, finds the local model server, tests the chosen model and saves it', async () => {
    const saved = await page.evaluate(async () => (await window.go.main.App.GetSettings()).settings);
    try {
      await page.evaluate(async (s) => {
        await window.go.main.App.SaveSettings({ ...s, llm: { ...s.llm, model: '' } }, null);
      }, saved);
      await openWorkflow(PIPELINE);
      // The panel was open with a model; asking now says there is none and
      // offers the setup (a fresh start offers it at once: Vitest).
      await ask('Add a step that logs hello');
      await page.locator('[data-testid="chat-assistant"][data-kind="error"]').waitFor();
      const setup = page.locator('[data-testid="model-setup"]');
      await setup.waitFor();
      await setup.locator('[data-testid="setup-discover"]').click();
      const server = setup.locator('[data-testid="setup-server"]');
      await server.waitFor();
      assert.match(await server.textContent(), /Local test server/);
      assert.deepEqual(await server.locator('option').allTextContents(), ['local-llama', 'local-qwen']);
      await server.locator('[data-testid="setup-model"]').selectOption('local-qwen');
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-assistant-model-setup.png') });
      await server.locator('[data-testid="setup-use"]').click();
      const done = page.locator('[data-testid="setup-done"]');
      await done.waitFor();
      assert.match(await done.textContent(), /local-qwen/);
      assert.equal(await setup.count(), 0, 'the setup goes away once a model is set');
      const now = await page.evaluate(async () => await window.go.main.App.GetSettings());
      assert.equal(now.settings.llm.model, 'local-qwen');
      assert.match(now.settings.llm.base_url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      assert.notEqual(now.settings.llm.base_url, saved.llm.base_url);
      // The key stored for the other endpoint was not kept for this one.
      assert.equal(now.api_key_set, false);
      assert.match(await done.textContent(), /stored API key was removed/);
    } finally {
      // Back to the settings scripts/e2e.sh wrote, key included, for the specs after this one.
      await page.evaluate(
        async ([s, key]) => {
          await window.go.main.App.SaveSettings(s, key);
        },
        [saved, process.env.WEFT_FAKE_KEY ?? null],
      );
    }
  });

  it('logged no errors in the page', () => {
    const real = realErrors(consoleErrors);
    assert.deepEqual(real, []);
  });
});
