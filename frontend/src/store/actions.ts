// Async operations that go through the api module and update the store.
import { api, errorMessage } from '../api';
import { layoutWorkflow } from '../graph/layout';
import { missingPositions } from '../graph/toFlow';
import type { OpenResult } from '../types';
import { useStore, type AppStore } from './index';

export function makeActions(store: AppStore) {
  const fail = (what: string, e: unknown) => {
    const text = `${what}: ${errorMessage(e)}`;
    api.log('error', text);
    store.getState().setStatus({ kind: 'error', text });
  };

  async function validate(): Promise<void> {
    const { doc, docSeq } = store.getState();
    if (!doc) return;
    store.getState().setValidating(true);
    try {
      const r = await api.validateWorkflow(doc);
      if (store.getState().docSeq === docSeq) store.getState().setValidation(r);
    } catch (e) {
      store.getState().setValidating(false);
      fail('Validation failed', e);
    }
  }

  async function show(r: OpenResult): Promise<boolean> {
    if (!r.workflow) return false; // cancelled dialog
    store.getState().loadDocument(r);
    store.getState().setStatus(null);
    const { doc, docSeq } = store.getState();
    const validated = validate();
    if (doc && missingPositions(doc)) {
      const pos = await layoutWorkflow(doc, {
        onFallback: (why) => api.log('warning', `automatic layout fell back to simple layering: ${errorMessage(why)}`),
      });
      if (store.getState().docSeq === docSeq) {
        store.getState().setPositions(pos, { markDirty: false });
        store.getState().requestFitAll();
      }
    }
    await validated;
    return true;
  }

  async function run<T>(what: string, f: () => Promise<T>): Promise<T | undefined> {
    store.getState().setBusy(true);
    try {
      return await f();
    } catch (e) {
      fail(what, e);
      return undefined;
    } finally {
      store.getState().setBusy(false);
    }
  }

  const self = {
    validate,
    show,
    loadSample: () => run('Could not load the sample', async () => show(await api.loadSample())),
    openPath: (path: string) => run('Could not open workflow', async () => show(await api.openWorkflow(path))),
    openDialog: () => run('Could not open workflow', async () => show(await api.openWorkflowDialog())),
    saveAs: () =>
      run('Could not save workflow', async () => {
        const { doc } = store.getState();
        if (!doc) return false;
        const path = await api.saveWorkflowAsDialog(doc);
        if (!path) return false;
        store.getState().markSaved(path);
        store.getState().setStatus({ kind: 'info', text: `Saved ${path}` });
        return true;
      }),
    save: async (): Promise<boolean | undefined> => {
      const { doc, path } = store.getState();
      if (!doc) return false;
      if (!path) return self.saveAs();
      return run('Could not save workflow', async () => {
        await api.saveWorkflow(path, doc);
        store.getState().markSaved(path);
        store.getState().setStatus({ kind: 'info', text: `Saved ${path}` });
        return true;
      });
    },
  };
  return self;
}

export const actions = makeActions(useStore);
export type Actions = ReturnType<typeof makeActions>;
