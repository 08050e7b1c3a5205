// The Tests panel's operations on the store and Go (api.ts): read the case
// file beside the saved workflow, play its cases (all, or one) against the
// editor's copy, record a case from the last run, save a case's mocks.
// What a case is, how it plays and whether mocks are valid is Go's
// (backend/testcase); these only carry the answers into the store.
import { api, errorMessage, type Api } from '../../api';
import type { AppStore } from '../../store/index';
import type { RecordedCase } from '../../types';

export type TestsApi = Pick<Api, 'runTests' | 'recordTestCase' | 'readTestCases' | 'saveTestCaseMocks'>;

export function makeTestsActions(store: AppStore, apiImpl: TestsApi = api) {
  const st = () => store.getState();

  /** load reads the case file of the document's saved file (nothing for an unsaved one). */
  async function load(): Promise<void> {
    const path = st().path;
    st().testsFor(path);
    if (!path) return;
    st().setCaseFileLoading(path);
    try {
      st().setCaseFile(path, await apiImpl.readTestCases(path));
    } catch (e) {
      st().setCaseFile(path, null, errorMessage(e));
    }
  }

  /** run plays every case, or only the one named, against the editor's copy. */
  async function run(only = ''): Promise<void> {
    const { doc, path } = st();
    if (!doc || !path || st().testsRunning !== null) return;
    st().testsFor(path);
    st().startTests(path, only);
    try {
      st().finishTests(path, only, doc, await apiImpl.runTests(doc, path, only));
    } catch (e) {
      st().failTests(path, errorMessage(e));
    }
  }

  /** record adds a case from the last run of the saved file; it rejects with Go's reason. */
  async function record(name: string): Promise<RecordedCase> {
    const path = st().path;
    if (!path) throw new Error('Save the workflow first: its cases live beside its file.');
    const r = await apiImpl.recordTestCase(path, name.trim());
    await load();
    return r;
  }

  /** saveMocks replaces a case's mocks; it resolves to '' when saved, or to why not (Go's check). */
  async function saveMocks(name: string, text: string): Promise<string> {
    const { testsPath, caseFile } = st();
    if (!testsPath || !caseFile) return 'The case file is not loaded.';
    try {
      st().setCaseFile(testsPath, await apiImpl.saveTestCaseMocks(testsPath, name, text, caseFile.sha256));
      return '';
    } catch (e) {
      return errorMessage(e);
    }
  }

  return { load, run, record, saveMocks };
}

export type TestsActions = ReturnType<typeof makeTestsActions>;
