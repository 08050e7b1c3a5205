// Async operations that go through the api module and update the store:
// files (new, open, save, recent), live validation, autosave and restore,
// asking before unsaved changes are discarded, and automatic layout.
import { api, errorMessage } from '../api';
import { layoutWorkflow } from '../graph/layout';
import { missingPositions } from '../graph/toFlow';
import { modelMissing } from '../components/assistant/ModelSetup';
import { canvasBridge, startViewport } from '../components/canvasBridge';
import type { OpenResult, Workflow } from '../types';
import { useStore, type AppStore } from './index';
import { refreshMissingSecrets } from './secretsSlice';
import { refreshFileTrust } from './trustSlice';

/** Validation waits this long after the last edit. */
export const VALIDATE_DELAY_MS = 300;
/** Autosave waits this long after the last edit. */
export const AUTOSAVE_DELAY_MS = 2000;

export interface ActionOptions {
  validateDelayMs?: number;
  autosaveDelayMs?: number;
}

/** formatWhen says when an autosave was made: "14:32" today, else date and time. */
export function formatWhen(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso || 'an earlier session';
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (d.toDateString() === now.toDateString()) return `${time} today`;
  return `${d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })} ${time}`;
}

export function makeActions(store: AppStore, opts: ActionOptions = {}) {
  const validateDelay = opts.validateDelayMs ?? VALIDATE_DELAY_MS;
  const autosaveDelay = opts.autosaveDelayMs ?? AUTOSAVE_DELAY_MS;
  const get = () => store.getState();

  const fail = (what: string, e: unknown) => {
    const text = `${what}: ${errorMessage(e)}`;
    api.log('error', text);
    get().setStatus({ kind: 'error', text });
  };

  // --- validation ----------------------------------------------------------

  let validateTimer: ReturnType<typeof setTimeout> | undefined;

  async function validate(): Promise<void> {
    clearTimeout(validateTimer);
    validateTimer = undefined;
    const { doc, path } = get();
    if (!doc) return;
    get().setValidating(true);
    try {
      const r = await api.validateWorkflow(doc, path);
      // A result for a document edited since is dropped; its own validation follows.
      if (get().doc === doc) get().setValidation(r);
    } catch (e) {
      get().setValidating(false);
      fail('Validation failed', e);
    }
  }

  function scheduleValidate() {
    clearTimeout(validateTimer);
    validateTimer = setTimeout(() => void validate(), validateDelay);
  }

  // --- autosave ------------------------------------------------------------

  let autosaveTimer: ReturnType<typeof setTimeout> | undefined;
  // Session calls run one after another, so a clear never overtakes a write.
  let sessionQueue: Promise<unknown> = Promise.resolve();
  function queue(what: string, f: () => Promise<unknown>): Promise<unknown> {
    sessionQueue = sessionQueue.then(f).catch((e) => api.log('warning', `${what}: ${errorMessage(e)}`));
    return sessionQueue;
  }

  function autosaveNow(): Promise<unknown> {
    clearTimeout(autosaveTimer);
    autosaveTimer = undefined;
    const { doc, dirty, path, fileName } = get();
    if (!doc || !dirty) return sessionQueue;
    return queue('autosave', () => api.autosave(doc, path, fileName));
  }

  function clearAutosave(): Promise<unknown> {
    clearTimeout(autosaveTimer);
    autosaveTimer = undefined;
    return queue('clear autosave', () => api.clearAutosave());
  }

  /** watch keeps validation, autosave and the backend's dirty flag in step
   * with the store; returns the unsubscribe. */
  function watch(): () => void {
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.doc !== prev.doc && s.doc) {
        scheduleValidate();
        if (s.dirty) {
          clearTimeout(autosaveTimer);
          autosaveTimer = setTimeout(() => void autosaveNow(), autosaveDelay);
        }
      }
      if (s.dirty !== prev.dirty) {
        api.setDirty(s.dirty).catch(() => {});
        // Saved, discarded or undone back to the saved state: nothing to restore.
        if (!s.dirty) void clearAutosave();
      }
    });
    const offClose = api.onCloseRequested(() => void closeRequested());
    // Back from another window (an editor, a git pull): the file may have
    // changed on disk, and with it its trust.
    const onFocus = () => void refreshTrust();
    window.addEventListener('focus', onFocus);
    return () => {
      unsubscribe();
      offClose();
      window.removeEventListener('focus', onFocus);
      clearTimeout(validateTimer);
      clearTimeout(autosaveTimer);
    };
  }

  // --- files ---------------------------------------------------------------

  /** refreshTrust asks Go again for the trust of the document's file (store/trustSlice.ts). */
  function refreshTrust(): Promise<void> {
    return refreshFileTrust(store, api.workflowFileTrust);
  }

  async function refreshRecent() {
    try {
      get().setRecent(await api.recentFiles());
    } catch (e) {
      api.log('warning', `recent files: ${errorMessage(e)}`);
    }
  }

  /** offerScheduleUpdate asks, after a save, whether the saved file's
   * schedules should run it as saved: they run the content approved when
   * they were made, and refuse other content (needs review). */
  function offerScheduleUpdate(path: string) {
    if (typeof api.staleSchedules !== 'function') return;
    api
      .staleSchedules(path)
      .then((schedules) => get().setScheduleUpdate(schedules.length ? { path, schedules } : null))
      .catch((e) => api.log('warning', `schedules: ${errorMessage(e)}`));
  }

  function remember(path: string) {
    if (!path) return;
    api
      .addRecentFile(path)
      .then((list) => get().setRecent(list))
      .catch((e) => api.log('warning', `recent files: ${errorMessage(e)}`));
  }

  async function show(r: OpenResult, o?: { dirty?: boolean }): Promise<boolean> {
    if (!r.workflow) return false; // cancelled dialog
    // A large workflow opens on its start: move the view there before its
    // nodes are drawn, so that only the nodes in view are ever rendered.
    const vp = startViewport(r.workflow);
    if (vp) canvasBridge.setViewport(vp);
    get().loadDocument(r, o);
    get().setStatus(null);
    if (!r.file) void refreshTrust(); // a restored autosave: its file as it is now
    const { doc, docSeq } = get();
    const validated = validate();
    // A workflow written elsewhere may refer to secrets this computer
    // lacks: ask for them now rather than fail when it runs.
    const secrets = refreshMissingSecrets(store, api.workflowSecrets, { ask: true }).catch((e) =>
      api.log('warning', `secrets: ${errorMessage(e)}`),
    );
    if (doc && missingPositions(doc)) {
      const pos = await layoutWorkflow(doc, {
        onFallback: (why) => api.log('warning', `automatic layout fell back to simple layering: ${errorMessage(why)}`),
      });
      if (get().docSeq === docSeq) {
        get().setPositions(pos, { markDirty: false, fitGroups: true });
        get().requestFitAll();
      }
    }
    await validated;
    await secrets;
    remember(r.path);
    return true;
  }

  async function run<T>(what: string, f: () => Promise<T>): Promise<T | undefined> {
    get().setBusy(true);
    try {
      return await f();
    } catch (e) {
      fail(what, e);
      return undefined;
    } finally {
      get().setBusy(false);
    }
  }

  /** confirmDiscard asks before unsaved changes are lost; true: go ahead. */
  async function confirmDiscard(before: string): Promise<boolean> {
    const { doc, dirty, fileName } = get();
    if (!doc || !dirty) return true;
    const choice = await get().ask({
      title: 'Save changes?',
      message: `“${fileName || 'untitled.json'}” has unsaved changes. Save them before ${before}?`,
      buttons: [
        { id: 'save', label: 'Save', kind: 'primary' },
        { id: 'discard', label: 'Don’t save', kind: 'danger' },
        { id: 'cancel', label: 'Cancel' },
      ],
      cancelId: 'cancel',
    });
    if (choice === 'save') return (await self.save()) === true;
    if (choice === 'discard') {
      await clearAutosave();
      return true;
    }
    return false;
  }

  async function closeRequested() {
    const ok = await confirmDiscard('closing Weft');
    try {
      if (ok) await api.confirmClose();
      else await api.cancelClose();
    } catch (e) {
      api.log('error', `close: ${errorMessage(e)}`);
    }
  }

  async function saveTo(path: string, doc: Workflow): Promise<boolean> {
    await api.saveWorkflow(path, doc, get().path ?? '');
    get().markSaved(path, doc);
    void refreshTrust(); // Go carried the trust over, or not
    get().toast(`Saved ${path}`, 'info');
    remember(path);
    offerScheduleUpdate(path);
    return true;
  }

  /** loadCatalog lists the built-in tools at once, then adds the MCP
   * servers' tools (starting the servers can take a while). */
  async function loadCatalog() {
    try {
      const builtins = await api.toolCatalog();
      if (!get().tools.length) get().setTools(builtins);
    } catch (e) {
      api.log('warning', `tool catalog: ${errorMessage(e)}`);
    }
    if (typeof api.toolCatalogFull !== 'function') return;
    try {
      const full = await api.toolCatalogFull();
      if (full.tools.length) get().setTools(full.tools);
      for (const w of full.warnings) api.log('warning', `tool catalog: ${w}`);
    } catch (e) {
      api.log('warning', `MCP tools: ${errorMessage(e)}`);
    }
  }

  const self = {
    validate,
    scheduleValidate,
    watch,
    show,
    confirmDiscard,
    refreshRecent,
    refreshTrust,
    loadCatalog,
    /** flushAutosave writes a pending autosave now (tests, benchmarks). */
    flushAutosave: autosaveNow,
    loadSample: () => run('Could not load the sample', async () => show(await api.loadSample())),
    /** openExample opens an example of the gallery as a new unsaved
     * workflow, asking first when the current one has unsaved changes. */
    openExample: async (file: string) => {
      if (!(await confirmDiscard('opening an example'))) return false;
      return run('Could not open the example', async () => show(await api.openExample(file)));
    },

    /** startup loads the catalog and recent files, offers to restore an
     * autosave left by an earlier run, and otherwise opens the workflow
     * last opened or saved (or the sample: openAtStart). */
    startup(): Promise<void> {
      // Once per app, even when React runs effects twice (StrictMode).
      started ??= startupOnce();
      return started;
    },
    newDocument: async (): Promise<boolean> => {
      if (!(await confirmDiscard('starting a new workflow'))) return false;
      get().newDocument();
      get().setStatus(null);
      return true;
    },
    openPath: async (path: string) => {
      if (!(await confirmDiscard('opening another workflow'))) return false;
      return run('Could not open workflow', async () => show(await api.openWorkflow(path)));
    },
    openRecent: async (path: string) => {
      if (!(await confirmDiscard('opening another workflow'))) return false;
      const ok = await run('Could not open workflow', async () => show(await api.openWorkflow(path)));
      if (!ok) {
        api
          .removeRecentFile(path)
          .then((list) => get().setRecent(list))
          .catch(() => {});
      }
      return ok;
    },
    openDialog: async () => {
      if (!(await confirmDiscard('opening another workflow'))) return false;
      return run('Could not open workflow', async () => show(await api.openWorkflowDialog()));
    },
    saveAs: () =>
      run('Could not save workflow', async () => {
        const { doc } = get();
        if (!doc) return false;
        const path = await api.saveWorkflowAsDialog(doc, get().path ?? '');
        if (!path) return false;
        get().markSaved(path, doc);
        void refreshTrust();
        get().toast(`Saved ${path}`, 'info');
        remember(path);
        offerScheduleUpdate(path);
        return true;
      }),
    save: async (): Promise<boolean | undefined> => {
      const { doc, path } = get();
      if (!doc) return false;
      if (!path) return self.saveAs();
      return run('Could not save workflow', () => saveTo(path, doc));
    },
    /** saveTo saves to path without a dialog (Save As for tests and scripts). */
    saveTo: (path: string) =>
      run('Could not save workflow', async () => {
        const { doc } = get();
        return doc ? saveTo(path, doc) : false;
      }),

    /** autoLayout lays the workflow out left to right (ELK layered) as one undo step. */
    autoLayout: async (): Promise<void> => {
      const { doc, docSeq } = get();
      if (!doc || !doc.nodes.length) return;
      const pos = await layoutWorkflow(doc, {
        onFallback: (why) => api.log('warning', `layout fell back to simple layering: ${errorMessage(why)}`),
      });
      if (get().docSeq !== docSeq) return;
      get().setPositions(pos, { direction: 'LR', label: 'Auto-layout', fitGroups: true });
      get().requestFitAll();
    },
  };

  let started: Promise<void> | undefined;
  /** loadSettingsWarnings shows what the settings file held that could
   * not be used, so a slip is seen where the user looks. */
  async function loadSettingsWarnings() {
    try {
      const v = await api.getSettings();
      get().setSettingsWarnings(v.warnings ?? []);
      get().setModelMissing(modelMissing(v.settings.llm));
    } catch (e) {
      get().setSettingsWarnings([`The settings could not be read: ${errorMessage(e)}`]);
    }
  }

  /** loadScheduleNotices tells, when the app opens, of scheduled runs
   * that failed or did not happen (weft schedule). */
  async function loadScheduleNotices() {
    if (typeof api.scheduleNotices !== 'function') return;
    try {
      for (const n of await api.scheduleNotices()) get().toast(n, 'error');
    } catch (e) {
      api.log('warning', `schedules: ${errorMessage(e)}`);
    }
  }

  async function startupOnce(): Promise<void> {
    void loadCatalog();
    void refreshRecent();
    void loadSettingsWarnings();
    // Preferences may have set a model up (or cleared it): read them again on close.
    store.subscribe((s, prev) => {
      if (prev.preferencesOpen && !s.preferencesOpen) void loadSettingsWarnings();
    });
    void loadScheduleNotices();
    try {
      const a = await api.loadAutosave();
      for (const w of a.warnings) api.log('warning', `autosave: ${w}`);
      if (a.found && a.workflow) {
        const choice = await get().ask({
          title: `Restore unsaved changes from ${formatWhen(a.saved_at)}?`,
          message: `Weft closed before “${a.name || 'untitled.json'}” was saved${a.path ? ` (${a.path})` : ''}. Restore the unsaved changes, or discard them?`,
          buttons: [
            { id: 'restore', label: 'Restore', kind: 'primary' },
            { id: 'discard', label: 'Discard', kind: 'danger' },
          ],
          cancelId: 'restore',
        });
        if (choice === 'restore') {
          await run('Could not restore the autosave', () =>
            show({ path: a.path, name: a.name, workflow: a.workflow, warnings: a.warnings }, { dirty: true }),
          );
          if (get().doc) return;
        } else {
          await clearAutosave();
        }
      }
    } catch (e) {
      api.log('warning', `autosave: ${errorMessage(e)}`);
    }
    await openAtStart();
  }

  /** openAtStart opens the workflow last opened or saved, or the sample
   * with a notice that says why not (Go decides: backend/lastfile). */
  function openAtStart() {
    return run('Could not open a workflow at start', async () => {
      const r = await api.loadStart();
      await show(r.open);
      // show cleared the status: the notice goes after it, and stays.
      if (r.notice) get().setStatus({ kind: 'error', text: r.notice });
    });
  }

  return self;
}

export const actions = makeActions(useStore);
export type Actions = ReturnType<typeof makeActions>;
