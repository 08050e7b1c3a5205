// A workflow written elsewhere refers to secrets this computer lacks: the
// editor asks for them when it opens (a file, an autosave restored), and a
// run refused for want of them asks again instead of starting.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';
import type { NeededSecret } from '../types';

vi.mock('../api', () => ({
  api: {
    openWorkflow: vi.fn(),
    loadSample: vi.fn(async () => ({ path: '', name: '', workflow: null, warnings: [] })),
    loadStart: vi.fn(async () => ({ open: { path: '', name: '', workflow: null, warnings: [] }, notice: '' })),
    validateWorkflow: vi.fn(async () => ({ valid: true, problems: [] })),
    toolCatalog: vi.fn(async () => []),
    log: vi.fn(),
    autosave: vi.fn(async () => {}),
    loadAutosave: vi.fn(async () => ({ found: false, saved_at: '', path: '', name: '', workflow: null, warnings: [] })),
    clearAutosave: vi.fn(async () => {}),
    recentFiles: vi.fn(async () => []),
    addRecentFile: vi.fn(async () => []),
    setDirty: vi.fn(async () => {}),
    getSettings: vi.fn(async () => ({ warnings: [] })),
    onCloseRequested: vi.fn(() => () => {}),
    workflowSecrets: vi.fn(async () => []),
  },
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { api } from '../api';
import { makeRunActions, type RunApi } from '../components/run/runActions';
import { makeActions } from './actions';
import { createAppStore, type AppStore } from './index';
import { missingSecretsOf } from './secretsSlice';

const mocked = vi.mocked(api);
let store: AppStore;
let actions: ReturnType<typeof makeActions>;
let unwatch: () => void;
const s = () => store.getState();

const TOKEN: NeededSecret = { name: 'API_TOKEN', hosts: ['api.example.com'], tools: [], nodes: ['n1'], missing: true };
const HAD: NeededSecret = { name: 'OLD', hosts: [], tools: ['run_command'], nodes: ['n1'], missing: false };

beforeEach(() => {
  vi.clearAllMocks();
  store = createAppStore();
  actions = makeActions(store);
  unwatch = actions.watch();
});
afterEach(() => unwatch());

describe('secrets a workflow lacks', () => {
  it('are asked for when a workflow opens, those held here are not', async () => {
    mocked.openWorkflow.mockResolvedValueOnce(fixtureOpen());
    mocked.workflowSecrets.mockResolvedValueOnce([HAD, TOKEN]);
    await actions.openPath('/tmp/fixture.json');
    expect(mocked.workflowSecrets).toHaveBeenCalledWith(s().doc);
    expect(missingSecretsOf(s())).toEqual([TOKEN]);
    expect(s().secretsAskOpen).toBe(true);
  });

  it('ask nothing when none is missing, and forget those of the workflow shown before', async () => {
    mocked.openWorkflow.mockResolvedValueOnce(fixtureOpen());
    mocked.workflowSecrets.mockResolvedValueOnce([TOKEN]);
    await actions.openPath('/tmp/fixture.json');
    s().setSecretsAskOpen(false);
    const other = fixtureOpen();
    other.workflow!.id = 'wf-2';
    mocked.openWorkflow.mockResolvedValueOnce(other);
    mocked.workflowSecrets.mockResolvedValueOnce([HAD]);
    await actions.openPath('/tmp/other.json');
    expect(missingSecretsOf(s())).toEqual([]);
    expect(s().secretsAskOpen).toBe(false);
  });

  it('are asked for when an autosave is restored', async () => {
    const w = fixtureOpen().workflow!;
    mocked.loadAutosave.mockResolvedValueOnce({ found: true, saved_at: '2026-03-04T05:06:07Z', path: '/home/u/flow.json', name: 'flow.json', workflow: w, warnings: [] });
    mocked.workflowSecrets.mockResolvedValueOnce([TOKEN]);
    const started = actions.startup();
    await vi.waitFor(() => expect(s().dialog).not.toBeNull());
    s().answerDialog('restore');
    await started;
    expect(missingSecretsOf(s())).toEqual([TOKEN]);
    expect(s().secretsAskOpen).toBe(true);
  });

  it('an answer for a workflow no longer shown is dropped', async () => {
    s().loadDocument(fixtureOpen());
    let answer: (l: NeededSecret[]) => void = () => {};
    mocked.workflowSecrets.mockReturnValueOnce(new Promise((r) => (answer = r)));
    const { refreshMissingSecrets } = await import('./secretsSlice');
    const asked = refreshMissingSecrets(store, mocked.workflowSecrets, { ask: true });
    const other = fixtureOpen();
    other.workflow!.id = 'wf-2';
    s().loadDocument(other);
    answer([TOKEN]);
    await asked;
    expect(missingSecretsOf(s())).toEqual([]);
    expect(s().secretsAskOpen).toBe(false);
  });

  it('a run refused for want of them asks for them instead of starting', async () => {
    s().loadDocument(fixtureOpen());
    const runApi = {
      startRun: vi.fn(async () => ({ started: false, error: 'missing', problems: [], approval: [], warnings: [], missing_secrets: [TOKEN] })),
      log: vi.fn(),
    } as unknown as RunApi;
    await makeRunActions(store, runApi, { flushMs: 0 }).start();
    expect(runApi.startRun).toHaveBeenCalled();
    expect(s().runPhase).toBe('idle');
    expect(s().runError).toBeNull();
    expect(missingSecretsOf(s())).toEqual([TOKEN]);
    expect(s().secretsAskOpen).toBe(true);
  });
});
