// Live validation, autosave and restore, and asking before unsaved changes
// are discarded (New, Open, closing the window).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';

const closeHandlers: (() => void)[] = [];

vi.mock('../api', () => ({
  api: {
    loadSample: vi.fn(),
    loadStart: vi.fn(),
    openExample: vi.fn(),
    openWorkflow: vi.fn(),
    openWorkflowDialog: vi.fn(),
    saveWorkflow: vi.fn(async () => {}),
    saveWorkflowAsDialog: vi.fn(),
    validateWorkflow: vi.fn(async () => ({ valid: true, problems: [] })),
    toolCatalog: vi.fn(async () => []),
    setWindowTitle: vi.fn(),
    log: vi.fn(),
    autosave: vi.fn(async () => {}),
    loadAutosave: vi.fn(async () => ({ found: false, saved_at: '', path: '', name: '', workflow: null, warnings: [] })),
    clearAutosave: vi.fn(async () => {}),
    recentFiles: vi.fn(async () => []),
    addRecentFile: vi.fn(async (p: string) => [{ path: p, name: p.split('/').pop(), opened_at: '' }]),
    removeRecentFile: vi.fn(async () => []),
    setDirty: vi.fn(async () => {}),
    confirmClose: vi.fn(async () => {}),
    cancelClose: vi.fn(async () => {}),
    getSettings: vi.fn(async () => ({ warnings: [], settings: { llm: { model: 'm', base_url: 'http://127.0.0.1:1' } } })),
    scheduleNotices: vi.fn(async () => []),
    onCloseRequested: vi.fn((cb: () => void) => {
      closeHandlers.push(cb);
      return () => {};
    }),
  },
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { api } from '../api';
import { setField } from '../graph/edit';
import { makeActions } from './actions';
import { createAppStore, type AppStore } from './index';

const mocked = vi.mocked(api);
let store: AppStore;
let actions: ReturnType<typeof makeActions>;
let unwatch: () => void;
const s = () => store.getState();

function rename(name: string) {
  s().updateNode('n1', (n) => setField(n, 'name', name), { group: 'n1:name' });
}

/** Let queued promise callbacks run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

beforeEach(() => {
  vi.useFakeTimers();
  vi.clearAllMocks();
  closeHandlers.length = 0;
  store = createAppStore();
  actions = makeActions(store);
  unwatch = actions.watch();
  s().loadDocument(fixtureOpen());
});

afterEach(() => {
  unwatch();
  vi.useRealTimers();
});

describe('live validation', () => {
  it('validates once, shortly after a burst of edits', async () => {
    await vi.runAllTimersAsync();
    mocked.validateWorkflow.mockClear();
    rename('a');
    rename('ab');
    rename('abc');
    expect(mocked.validateWorkflow).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(299);
    expect(mocked.validateWorkflow).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(mocked.validateWorkflow).toHaveBeenCalledTimes(1);
    expect(mocked.validateWorkflow.mock.calls[0][0].nodes[0].name).toBe('abc');
    // Undo is an edit too.
    s().undo();
    await vi.advanceTimersByTimeAsync(300);
    expect(mocked.validateWorkflow).toHaveBeenCalledTimes(2);
  });

  it('drops a result that arrives after the document changed', async () => {
    let answer!: (r: { valid: boolean; problems: never[] }) => void;
    mocked.validateWorkflow.mockImplementationOnce(() => new Promise((r) => (answer = r)));
    const pending = actions.validate();
    rename('changed meanwhile');
    answer({ valid: false, problems: [] });
    await pending;
    expect(s().valid).toBeNull();
  });
});

describe('autosave', () => {
  it('autosaves two seconds after the last edit and clears it on save', async () => {
    rename('x');
    await vi.advanceTimersByTimeAsync(1500);
    rename('xy');
    await vi.advanceTimersByTimeAsync(1999);
    expect(mocked.autosave).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(mocked.autosave).toHaveBeenCalledTimes(1);
    const [doc, path, name] = mocked.autosave.mock.calls[0];
    expect(doc.nodes[0].name).toBe('xy');
    expect([path, name]).toEqual(['/tmp/fixture.json', 'fixture.json']);
    expect(mocked.setDirty).toHaveBeenCalledWith(true);

    await actions.save();
    await settle();
    expect(mocked.saveWorkflow).toHaveBeenCalledWith('/tmp/fixture.json', s().doc, '/tmp/fixture.json');
    expect(mocked.clearAutosave).toHaveBeenCalled();
    expect(mocked.setDirty).toHaveBeenLastCalledWith(false);
    expect(mocked.addRecentFile).toHaveBeenCalledWith('/tmp/fixture.json');
    // Nothing is autosaved for a clean document.
    await vi.advanceTimersByTimeAsync(5000);
    expect(mocked.autosave).toHaveBeenCalledTimes(1);
  });

  it('offers to restore an autosave at start', async () => {
    const w = fixtureOpen().workflow!;
    w.nodes[0].name = 'Unsaved edit';
    mocked.loadAutosave.mockResolvedValueOnce({ found: true, saved_at: '2026-03-04T05:06:07Z', path: '/home/u/flow.json', name: 'flow.json', workflow: w, warnings: [] });
    const started = actions.startup();
    await settle();
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    expect(s().dialog!.title).toMatch(/^Restore unsaved changes from .+\?$/);
    expect(s().dialog!.buttons.map((b) => b.label)).toEqual(['Restore', 'Discard']);
    s().answerDialog('restore');
    await started;
    expect(s()).toMatchObject({ path: '/home/u/flow.json', fileName: 'flow.json', dirty: true });
    expect(s().doc!.nodes[0].name).toBe('Unsaved edit');
    expect(mocked.loadStart).not.toHaveBeenCalled();
    // A second startup (React's StrictMode) does not ask again.
    await actions.startup();
    expect(mocked.loadAutosave).toHaveBeenCalledTimes(1);
  });

  it('shows settings values that could not be used', async () => {
    mocked.getSettings.mockResolvedValueOnce({
      warnings: ['max_repair_attempts: "abc" is not a whole number; using 3 (in /home/u/.config/weft/settings.json)'],
      settings: { llm: { model: 'm', base_url: 'http://127.0.0.1:1' } },
    } as never);
    await actions.startup();
    await vi.waitFor(() => expect(s().settingsWarnings).toHaveLength(1));
    expect(s().settingsWarnings[0]).toContain('max_repair_attempts');
  });

  it('says on the main screen when no model is configured, until Preferences set one', async () => {
    mocked.getSettings.mockResolvedValueOnce({ warnings: [], settings: { llm: { model: '', base_url: '' } } } as never);
    await actions.startup();
    await vi.waitFor(() => expect(s().modelMissing).toBe(true));
    expect(s().settingsWarnings).toEqual([]);
    s().setPreferencesOpen(true);
    s().setPreferencesOpen(false); // saved with a model (the default mock)
    await vi.waitFor(() => expect(s().modelMissing).toBe(false));
  });

  it('tells of scheduled runs that failed or did not happen', async () => {
    mocked.scheduleNotices.mockResolvedValueOnce(['Scheduled run of daily.json (0 7 * * *, weft schedule list): last run 2026-11-25 07:00: failed']);
    await actions.startup();
    await vi.waitFor(() => expect(s().toasts.map((t) => t.text)).toContain('Scheduled run of daily.json (0 7 * * *, weft schedule list): last run 2026-11-25 07:00: failed'));
    expect(s().toasts.find((t) => t.text.startsWith('Scheduled'))!.kind).toBe('error');
  });

  it('discards the autosave and opens the sample when asked to', async () => {
    mocked.loadAutosave.mockResolvedValueOnce({ found: true, saved_at: '2026-03-04T05:06:07Z', path: '', name: 'sample.json', workflow: fixtureOpen().workflow, warnings: [] });
    mocked.loadStart.mockResolvedValueOnce({ open: fixtureOpen({ path: '', name: 'sample.json' }), notice: '' });
    const started = actions.startup();
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    s().answerDialog('discard');
    await started;
    expect(mocked.clearAutosave).toHaveBeenCalled();
    expect(s()).toMatchObject({ fileName: 'sample.json', dirty: false });
  });
});

describe('what opens at start', () => {
  beforeEach(() => {
    // A fresh store: nothing is open before startup.
    store = createAppStore();
    actions = makeActions(store);
  });

  it('reopens the workflow last opened or saved, not the sample', async () => {
    mocked.loadStart.mockResolvedValueOnce({ open: fixtureOpen({ path: '/home/u/my flows/daily.json', name: 'daily.json' }), notice: '' });
    await actions.startup();
    expect(s()).toMatchObject({ path: '/home/u/my flows/daily.json', fileName: 'daily.json', dirty: false, status: null });
    expect(mocked.loadSample).not.toHaveBeenCalled();
    // It is the last file still: the recent list says so too.
    expect(mocked.addRecentFile).toHaveBeenCalledWith('/home/u/my flows/daily.json');
  });

  it('opens the sample and says why when the last file is gone', async () => {
    const notice = 'Opened the sample instead of the last workflow: the last workflow, /home/u/gone.json, is no longer there';
    mocked.loadStart.mockResolvedValueOnce({ open: fixtureOpen({ path: '', name: 'sample.json' }), notice });
    await actions.startup();
    expect(s()).toMatchObject({ path: '', fileName: 'sample.json' });
    expect(s().doc).not.toBeNull();
    // Said where the person looks, and it stays until the next action.
    expect(s().status).toEqual({ kind: 'error', text: notice });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s().status?.text).toBe(notice);
  });

  it('says so when nothing could be opened at all', async () => {
    mocked.loadStart.mockRejectedValueOnce(new Error('sample workflow: bad JSON'));
    await actions.startup();
    expect(s().status).toEqual({ kind: 'error', text: 'Could not open a workflow at start: sample workflow: bad JSON' });
  });
});

describe('opening an example', () => {
  it('opens it as a new unsaved workflow', async () => {
    mocked.openExample.mockResolvedValueOnce(fixtureOpen({ path: '', name: 'watch_page.json' }));
    expect(await actions.openExample('watch_page.json')).toBe(true);
    expect(mocked.openExample).toHaveBeenCalledWith('watch_page.json');
    expect(s()).toMatchObject({ path: '', fileName: 'watch_page.json' });
    expect(mocked.addRecentFile).not.toHaveBeenCalled();
  });

  it('asks before unsaved changes are lost, as New does', async () => {
    rename('edited');
    let p = actions.openExample('watch_page.json');
    await vi.waitFor(() => expect(s().dialog?.title).toBe('Save changes?'));
    expect(s().dialog!.message).toMatch(/before opening an example/);
    s().answerDialog('cancel');
    expect(await p).toBe(false);
    expect(mocked.openExample).not.toHaveBeenCalled();
    expect(s().doc!.nodes[0].name).toBe('edited');

    mocked.openExample.mockResolvedValueOnce(fixtureOpen({ path: '', name: 'watch_page.json' }));
    p = actions.openExample('watch_page.json');
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    s().answerDialog('discard');
    expect(await p).toBe(true);
    expect(s()).toMatchObject({ fileName: 'watch_page.json', dirty: false });
  });
});

describe('asking before discarding unsaved changes', () => {
  it('does not ask when there is nothing unsaved', async () => {
    expect(await actions.newDocument()).toBe(true);
    expect(s().dialog).toBeNull();
    expect(s().doc!.nodes).toEqual([]);
  });

  it('keeps the document on Cancel and discards on Don’t save', async () => {
    rename('edited');
    let p = actions.newDocument();
    await vi.waitFor(() => expect(s().dialog?.title).toBe('Save changes?'));
    expect(s().dialog!.message).toMatch(/“fixture.json” has unsaved changes/);
    s().answerDialog('cancel');
    expect(await p).toBe(false);
    expect(s().doc!.nodes[0].name).toBe('edited');

    p = actions.newDocument();
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    s().answerDialog('discard');
    expect(await p).toBe(true);
    expect(s().doc!.nodes).toEqual([]);
    expect(mocked.clearAutosave).toHaveBeenCalled();
  });

  it('saves first on Save, then opens', async () => {
    rename('edited');
    mocked.openWorkflow.mockResolvedValueOnce(fixtureOpen({ path: '/tmp/other.json', name: 'other.json' }));
    const p = actions.openPath('/tmp/other.json');
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    s().answerDialog('save');
    await p;
    expect(mocked.saveWorkflow).toHaveBeenCalledWith('/tmp/fixture.json', expect.objectContaining({ name: 'Fixture' }), '/tmp/fixture.json');
    expect(s().fileName).toBe('other.json');
  });

  it('asks when the window closes, and closes only when allowed', async () => {
    rename('edited');
    expect(closeHandlers).toHaveLength(1);
    closeHandlers[0]();
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    expect(s().dialog!.message).toMatch(/before closing Weft/);
    s().answerDialog('cancel');
    await vi.waitFor(() => expect(mocked.cancelClose).toHaveBeenCalled());
    expect(mocked.confirmClose).not.toHaveBeenCalled();

    closeHandlers[0]();
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    s().answerDialog('discard');
    await vi.waitFor(() => expect(mocked.confirmClose).toHaveBeenCalled());
    expect(mocked.clearAutosave).toHaveBeenCalled();
  });
});
