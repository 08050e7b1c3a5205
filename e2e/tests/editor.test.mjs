// End-to-end: editing a workflow in the real frontend with the live Go
// bindings served by `wails dev` — add nodes from the palette (click and
// drag), connect them by dragging between handles (and see an illegal
// connection refused), edit arguments in the inspector, undo/redo, save to
// a file and read it back from disk, and restore an autosave after the
// page is reloaded as if the app had crashed. scripts/e2e.sh sets WEFT_URL
// and WEFT_ARTIFACTS and gives the app private XDG directories.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, realErrors } from './browser.mjs';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const MOD = 'Control';

let context;
let page;
let closeBrowser;
let scratch;
const consoleErrors = [];

const state = () =>
  page.evaluate(() => {
    const s = window.weft.store.getState();
    return {
      nodes: s.doc?.nodes ?? [],
      edges: s.doc?.edges ?? [],
      dirty: s.dirty,
      path: s.path,
      selected: s.selectedNodeIds,
      past: s.past.length,
    };
  });

/** ready waits for the app and answers a leftover restore question with Discard. */
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

async function center(locator) {
  const b = await locator.boundingBox();
  assert.ok(b, 'element is on screen');
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** autosaveWhere polls the backend until the autosave satisfies pred. */
async function autosaveWhere(pred, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const a = await page.evaluate(() => window.go.main.App.LoadAutosave());
    if (pred(a)) return a;
    if (Date.now() > end) throw new Error(`autosave never matched; last: found=${a.found} path=${a.path}`);
    await page.waitForTimeout(200);
  }
}

/** dragBetween drags with the mouse from one element's centre to another's. */
async function dragBetween(from, to) {
  const a = await center(from);
  const b = await center(to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 6 });
  await page.mouse.move(b.x, b.y, { steps: 6 });
  await page.mouse.up();
}

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'weft-e2e-editor-'));
  ({ context, page, close: closeBrowser } = await openBrowser({ width: 1440, height: 860, errors: consoleErrors }));
  await page.goto(URL, { waitUntil: 'domcontentloaded' });
  await ready();
});

after(async () => {
  // Leave no autosave behind for the specs that follow.
  await page?.evaluate(() => window.go.main.App.ClearAutosave()).catch(() => {});
  await closeBrowser?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('Weft editor', () => {
  let readId;
  let logId;
  const file = () => join(scratch, 'edited.json');

  it('starts a new workflow and adds a node from the palette by clicking', async () => {
    await page.locator('[data-testid="new-button"]').click();
    await page.waitForSelector('[data-testid="canvas-empty-hint"]');
    assert.equal((await state()).nodes.length, 0);

    const search = page.locator('[data-testid="palette-search"]');
    await search.fill('read');
    await page.locator('[data-testid="palette-tool:read_file"]').click();
    await page.waitForFunction(() => document.querySelectorAll('.weft-node').length === 1);
    const s = await state();
    assert.equal(s.nodes.length, 1);
    readId = s.nodes[0].id;
    assert.deepEqual(s.nodes[0].params, { tool: 'read_file', arguments: {} });
    assert.equal(s.nodes[0].key, 'read_file');
    assert.deepEqual(s.selected, [readId]);
    // The inspector shows the tool's form, with its required argument marked.
    await page.waitForSelector('[data-testid="argfield-path"] .required');
    assert.equal(await page.locator('[data-testid="inspector-tool"]').inputValue(), 'read_file');
    await search.fill('');
  });

  it('adds a second node by dragging it onto the canvas', async () => {
    const canvas = await page.locator('[data-testid="canvas"]').boundingBox();
    await page.locator('[data-testid="palette-search"]').fill('log');
    await page
      .locator('[data-testid="palette-tool:log"]')
      .dragTo(page.locator('[data-testid="canvas"]'), { targetPosition: { x: canvas.width * 0.8, y: canvas.height * 0.55 } });
    await page.waitForFunction(() => document.querySelectorAll('.weft-node').length === 2);
    const s = await state();
    logId = s.nodes[1].id;
    assert.equal(s.nodes[1].params.tool, 'log');
    // Dropped where it was released, right of the first node; not connected.
    assert.ok(s.nodes[1].position.x > s.nodes[0].position.x + 150, `dropped to the right (${s.nodes[1].position.x} vs ${s.nodes[0].position.x})`);
    assert.equal(s.edges.length, 0);
  });

  it('connects the nodes by dragging from an output to an input, and refuses an illegal connection with a reason', async () => {
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(300);
    await dragBetween(page.locator(`[data-testid="handle-${readId}-out"]`), page.locator(`[data-testid="handle-${logId}-in"]`));
    await page.waitForFunction(() => window.weft.store.getState().doc.edges.length === 1);
    assert.deepEqual((await state()).edges, [{ from: readId, to: logId }]);
    await page.waitForSelector('.react-flow__edge');

    // A node cannot connect to itself: refused, and the toast says why.
    await dragBetween(page.locator(`[data-testid="handle-${logId}-out"]`), page.locator(`[data-testid="handle-${logId}-in"]`));
    const toast = page.locator('[data-testid="toast"][data-kind="error"]');
    await toast.waitFor();
    assert.match(await toast.textContent(), /cannot connect to itself/);
    // A second edge from a plain node is refused too.
    await dragBetween(page.locator(`[data-testid="handle-${readId}-out"]`), page.locator(`[data-testid="handle-${logId}-in"]`));
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="toast"]')].some((t) => /already/.test(t.textContent)));
    assert.equal((await state()).edges.length, 1);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-editor-connected.png') });
  });

  it('adds a connected node by dropping a connection on empty canvas and picking it in the palette', async () => {
    const before = await state();
    const from = page.locator(`[data-testid="handle-${logId}-out"]`);
    const a = await center(from);
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move(a.x + 120, a.y + 140, { steps: 8 });
    await page.mouse.up();
    await page.waitForSelector('[data-testid="palette-pending"]');
    await page.locator('[data-testid="palette-search"]').fill('wait');
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => window.weft.store.getState().doc.nodes.length === n + 1, before.nodes.length);
    const s = await state();
    const added = s.nodes.at(-1);
    assert.equal(added.params.tool, 'wait');
    assert.deepEqual(s.edges.at(-1), { from: logId, to: added.id });
    assert.equal(s.past, before.past + 1, 'added and connected in one step');
    // Undo it, to keep the rest of the spec about two nodes.
    await page.locator('[data-testid="undo-button"]').click();
    assert.equal((await state()).nodes.length, before.nodes.length);
    await page.locator('[data-testid="palette-search"]').fill('');
  });

  it('adds an If from the palette that is valid at once: its key is not a word of the condition language', async () => {
    const before = await state();
    await page.locator('[data-testid="palette-search"]').fill('If');
    await page.locator('[data-testid="palette-type:If"]').click();
    await page.waitForFunction((n) => window.weft.store.getState().doc.nodes.length === n + 1, before.nodes.length);
    const added = (await state()).nodes.at(-1);
    assert.equal(added.type, 'If');
    assert.equal(added.key, 'if_step');
    // Live validation has no key problem for it (an unset condition is its only one).
    await page.waitForFunction(
      (id) => window.weft.store.getState().problems.some((p) => (p.node_ids ?? []).includes(id)),
      added.id,
    );
    const codes = await page.evaluate((id) => window.weft.store.getState().problems.filter((p) => (p.node_ids ?? []).includes(id)).map((p) => p.code), added.id);
    assert.ok(!codes.includes('bad_key'), `problems of the new If: ${codes}`);
    await page.locator('[data-testid="undo-button"]').click();
    assert.equal((await state()).nodes.length, before.nodes.length);
    await page.locator('[data-testid="palette-search"]').fill('');
  });

  it('right-click menus: insert a node on an edge, duplicate a node, add a node on empty canvas; Ctrl+F finds', async () => {
    const before = await state();
    assert.deepEqual(before.edges, [{ from: readId, to: logId }]);
    const menu = page.locator('[data-testid="context-menu"]');

    // On the edge: insert a node there.
    const edge = page.locator('.react-flow__edge').first();
    const e = await center(edge);
    await page.mouse.click(e.x, e.y, { button: 'right' });
    await menu.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-editor-edge-menu.png') });
    await menu.locator('[data-testid="menu-insert"]').click();
    assert.match(await page.textContent('[data-testid="palette-pending"]'), /insert on the edge/);
    await page.locator('[data-testid="palette-search"]').fill('wait');
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => window.weft.store.getState().doc.nodes.length === n + 1, before.nodes.length);
    let s = await state();
    const waitId = s.nodes.at(-1).id;
    assert.deepEqual(s.edges, [{ from: readId, to: waitId }, { from: waitId, to: logId }].sort((x, y) => (x.from === readId ? -1 : 1)));
    assert.equal(s.past, before.past + 1, 'inserted in one step');
    await page.locator('[data-testid="undo-button"]').click();
    await page.locator('[data-testid="palette-search"]').fill('');

    // On a node: duplicate it.
    await page.locator(`[data-testid="node-${logId}"]`).click({ button: 'right' });
    await menu.waitFor();
    await menu.locator('[data-testid="menu-duplicate"]').click();
    await page.waitForFunction((n) => window.weft.store.getState().doc.nodes.length === n + 1, before.nodes.length);
    await page.locator('[data-testid="undo-button"]').click();

    // On empty canvas: add a node there, unconnected.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    await page.mouse.click(pane.x + pane.width / 2, pane.y + 24, { button: 'right' }); // above the nodes, clear of the minimap and controls
    await menu.waitFor();
    await menu.locator('[data-testid="menu-add-here"]').click();
    await page.locator('[data-testid="palette-search"]').fill('wait');
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => window.weft.store.getState().doc.nodes.length === n + 1, before.nodes.length);
    s = await state();
    assert.equal(s.edges.length, 1, 'added unconnected');
    await page.locator('[data-testid="palette-search"]').fill('');

    // Ctrl+F: find the read node by its key.
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+f');
    await page.locator('[data-testid="find-input"]').fill(before.nodes.find((n) => n.id === readId).key);
    await page.waitForFunction((id) => window.weft.store.getState().selectedNodeIds[0] === id, readId);
    await page.keyboard.press('Escape');

    // Drag the end of read → log to the new node's input: the edge is
    // re-routed (one undo step). The drag starts on React Flow's grab
    // circle at the edge's end.
    const hereId = (await state()).nodes.find((n) => n.params.tool === 'wait').id;
    await page.locator('[aria-label="Fit to view"]').click(); // Ctrl+F zoomed in on the node it found
    await page.waitForTimeout(400);
    const end = await page.locator('.react-flow__edgeupdater-target').first().boundingBox();
    const to = await page.locator(`[data-testid="handle-${hereId}-in"]`).boundingBox();
    const pastBefore = (await state()).past;
    const [x0, y0] = [end.x + end.width / 2, end.y + end.height / 2];
    const [x1, y1] = [to.x + to.width / 2, to.y + to.height / 2];
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) await page.mouse.move(x0 + ((x1 - x0) * i) / 12, y0 + ((y1 - y0) * i) / 12);
    await page.mouse.up();
    await page.waitForFunction(
      ([r, w]) => window.weft.store.getState().doc.edges.some((e) => e.from === r && e.to === w),
      [readId, hereId],
      { timeout: 5000 },
    );
    s = await state();
    assert.deepEqual(s.edges, [{ from: readId, to: hereId }], 're-routed, not added');
    assert.equal(s.past, pastBefore + 1, 'one undo step');
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-edge-reroute.png') });
    await page.locator('[data-testid="undo-button"]').click();
    await page.locator('[data-testid="undo-button"]').click();
    assert.deepEqual((await state()).edges, [{ from: readId, to: logId }]);
    assert.equal((await state()).nodes.length, before.nodes.length);
  });

  it('edits the arguments in the inspector, and undoes and redoes the edit', async () => {
    await page.locator(`[data-testid="node-${readId}"] .weft-node-name`).click();
    await page.waitForFunction((id) => window.weft.store.getState().selectedNodeIds.join() === id, readId);
    const path = page.locator('[data-testid="arg-path"]');
    await path.click();
    await path.pressSequentially('/tmp/notes.txt', { delay: 15 });
    let s = await state();
    assert.deepEqual(s.nodes[0].params.arguments, { path: '/tmp/notes.txt' });
    // The canvas summary follows.
    await page.waitForFunction((id) => document.querySelector(`[data-testid="node-${id}"] .weft-node-summary`)?.textContent.includes('/tmp/notes.txt'), readId);
    const stepsBefore = s.past;

    // Undo from inside the field undoes the whole burst of typing in one step.
    await page.keyboard.press(`${MOD}+z`);
    s = await state();
    assert.equal(s.past, stepsBefore - 1);
    assert.deepEqual(s.nodes[0].params.arguments, {});
    assert.equal(await path.inputValue(), '');
    await page.keyboard.press(`${MOD}+Shift+z`);
    s = await state();
    assert.deepEqual(s.nodes[0].params.arguments, { path: '/tmp/notes.txt' });
    assert.equal(await path.inputValue(), '/tmp/notes.txt');

    // Toolbar undo/redo and the canvas keys do the same outside fields.
    await page.locator('[data-testid="undo-button"]').click();
    assert.deepEqual((await state()).nodes[0].params.arguments, {});
    await page.locator('[data-testid="redo-button"]').click();
    assert.deepEqual((await state()).nodes[0].params.arguments, { path: '/tmp/notes.txt' });

    const name = page.locator('[data-testid="inspector-name"]');
    await name.fill('Read the notes');
    await page.waitForSelector(`[data-testid="node-${readId}"] >> text=Read the notes`);
    // Live validation ran after the edits: the workflow is valid now that
    // every required argument is set (log's message aside).
    await page.waitForFunction(() => window.weft.store.getState().valid !== null && !window.weft.store.getState().validating);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-editor-inspector.png') });
  });

  it('saves to a file, and the file on disk has the change', async () => {
    assert.match(await page.title(), /^● untitled\.json — Weft$/);
    const ok = await page.evaluate((p) => window.weft.actions.saveTo(p), file());
    assert.equal(ok, true);
    await page.waitForSelector('[data-testid="dirty-marker"]', { state: 'detached' });
    assert.equal(await page.title(), 'edited.json — Weft');
    const saved = JSON.parse(readFileSync(file(), 'utf8'));
    assert.equal(saved.format, 'weft/v1');
    assert.equal(saved.nodes.length, 2);
    const read = saved.nodes.find((n) => n.id === readId);
    assert.equal(read.name, 'Read the notes');
    assert.deepEqual(read.params, { tool: 'read_file', arguments: { path: '/tmp/notes.txt' } });
    assert.deepEqual(saved.edges, [{ from: readId, to: logId }]);
    // Saved files join the recent files.
    const recent = await page.evaluate(() => window.go.main.App.RecentFiles());
    assert.equal(recent[0].path, file());
  });

  it('autosaves after an edit and offers to restore it after a crash', async () => {
    await page.locator(`[data-testid="node-${logId}"] .weft-node-name`).click();
    await page.locator('[data-testid="arg-message"]').fill('notes read');
    assert.equal((await state()).dirty, true);
    // Autosave follows about two seconds after the last edit.
    const t0 = Date.now();
    const a = await autosaveWhere((x) => x.found);
    assert.ok(Date.now() - t0 > 1000, 'autosave waits for a pause in editing');
    assert.equal(a.path, file());
    assert.equal(a.workflow.nodes.find((n) => n.params.tool === 'log').params.arguments.message, 'notes read');

    // The page dies without saving; the next start asks to restore.
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.weft?.store?.getState().dialog !== null, null, { timeout: 60_000 });
    const dialog = page.locator('[data-testid="dialog"]');
    assert.match(await dialog.textContent(), /Restore unsaved changes from .+\?/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-editor-restore.png') });
    await page.locator('[data-testid="dialog-restore"]').click();
    await page.waitForFunction(() => window.weft.store.getState().doc?.nodes.length === 2);
    const s = await state();
    assert.equal(s.path, file());
    assert.equal(s.dirty, true);
    assert.equal(s.nodes.find((n) => n.id === logId).params.arguments.message, 'notes read');
    assert.match(await page.title(), /^● edited\.json — Weft$/);

    // Saving clears the autosave.
    await page.keyboard.press(`${MOD}+s`);
    await page.waitForSelector('[data-testid="dirty-marker"]', { state: 'detached' });
    await autosaveWhere((x) => !x.found, 5000);
    assert.equal(JSON.parse(readFileSync(file(), 'utf8')).nodes.find((n) => n.id === logId).params.arguments.message, 'notes read');
  });

  it('asks before New discards unsaved changes', async () => {
    await page.locator(`[data-testid="node-${readId}"] .weft-node-name`).click();
    await page.keyboard.press(`${MOD}+d`);
    await page.waitForFunction(() => window.weft.store.getState().doc.nodes.length === 3);
    const copy = (await state()).nodes[2];
    assert.equal(copy.key, 'read_file_2');
    await page.locator('[data-testid="new-button"]').click();
    await page.locator('[data-testid="dialog"]').waitFor();
    await page.locator('[data-testid="dialog-cancel"]').click();
    assert.equal((await state()).nodes.length, 3);
    // The copy is selected: Delete removes it; undo twice is back at the saved document.
    await page.keyboard.press('Delete');
    await page.waitForFunction(() => window.weft.store.getState().doc.nodes.length === 2);
    assert.equal((await state()).dirty, true);
    await page.keyboard.press(`${MOD}+z`);
    await page.keyboard.press(`${MOD}+z`);
    const s = await state();
    assert.equal(s.nodes.length, 2);
    assert.equal(s.dirty, false, 'undone back to the saved document');
  });

  it('shows the keyboard shortcuts sheet', async () => {
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('?');
    const sheet = page.locator('[data-testid="shortcuts-sheet"]');
    await sheet.waitFor();
    assert.match(await sheet.textContent(), /Undo.*Redo/s);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-editor-shortcuts.png') });
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
    assert.ok(existsSync(file()));
  });

  it('logged no errors in the page', () => {
    const real = realErrors(consoleErrors);
    assert.deepEqual(real, []);
  });
});
