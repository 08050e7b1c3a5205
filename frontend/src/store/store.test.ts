import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';
import type { Problem } from '../types';

vi.mock('../api', () => ({
  api: {
    loadSample: vi.fn(),
    openWorkflow: vi.fn(),
    openWorkflowDialog: vi.fn(),
    saveWorkflow: vi.fn(),
    saveWorkflowAsDialog: vi.fn(),
    validateWorkflow: vi.fn(),
    setWindowTitle: vi.fn(),
    log: vi.fn(),
    addRecentFile: vi.fn(async () => []),
    removeRecentFile: vi.fn(async () => []),
    recentFiles: vi.fn(async () => []),
    setDirty: vi.fn(async () => {}),
    clearAutosave: vi.fn(async () => {}),
    autosave: vi.fn(async () => {}),
    onCloseRequested: vi.fn(() => () => {}),
    staleSchedules: vi.fn(async () => []),
  },
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { api } from '../api';
import { makeActions } from './actions';
import { createAppStore, type AppStore } from './index';
import { statusInfoMs } from './uiSlice';

const mocked = vi.mocked(api);

const problems: Problem[] = [
  { code: 'unknown_tool', severity: 'warning', message: 'no such tool', node_ids: ['n1'], edges: null },
  { code: 'if_missing_branch', severity: 'error', message: 'If lacks a branch', node_ids: ['n3'], edges: null },
  {
    code: 'dangling_edge',
    severity: 'error',
    message: 'edge to nowhere',
    node_ids: ['n3', 'n5'],
    edges: [{ from: 'n3', to: 'n5', output: { type: 'IfFalse' } }],
  },
];

let store: AppStore;

beforeEach(() => {
  store = createAppStore();
  vi.clearAllMocks();
  mocked.validateWorkflow.mockResolvedValue({ valid: false, problems });
});

describe('workflow slice', () => {
  it('loads a document into React Flow nodes and edges', () => {
    store.getState().loadDocument(fixtureOpen());
    const s = store.getState();
    expect(s.fileName).toBe('fixture.json');
    expect(s.dirty).toBe(false);
    expect(s.nodes).toHaveLength(6);
    expect(s.nodes[0]).toMatchObject({ id: 'n1', type: 'weft', position: { x: 0, y: 0 } });
    // Flow edges are in document order, with ids that name what they connect.
    const byIndex = s.edges;
    expect(byIndex[1]).toMatchObject({ id: 'n2>n3>body', source: 'n2', sourceHandle: 'body', label: 'body' });
    expect(byIndex[2]).toMatchObject({ sourceHandle: 'true', label: 'true' });
    expect(byIndex[5]).toMatchObject({ sourceHandle: 'case:small', label: 'small' });
    // The EndLoop → Loop edge is a back edge into the Loop's bottom handle.
    expect(byIndex[6]).toMatchObject({ sourceHandle: 'back', targetHandle: 'back', type: 'smoothstep' });
    expect(byIndex[6].className).toContain('edge-back');
  });

  it('writes dragged positions into the document and marks it dirty', () => {
    store.getState().loadDocument(fixtureOpen());
    store.getState().onNodesChange([{ type: 'position', id: 'n1', position: { x: 40.4, y: 80.6 }, dragging: true }]);
    expect(store.getState().dirty).toBe(false);
    store.getState().onNodesChange([{ type: 'position', id: 'n1', position: { x: 40.4, y: 80.6 }, dragging: false }]);
    const s = store.getState();
    expect(s.dirty).toBe(true);
    expect(s.doc!.nodes[0].position).toEqual({ x: 40, y: 81 });
    // Unknown top-level fields survive edits.
    expect(s.doc!.custom_top).toEqual({ kept: true });
    s.markSaved('/home/u/flows/new.json');
    expect(store.getState()).toMatchObject({ dirty: false, fileName: 'new.json', path: '/home/u/flows/new.json' });
  });
});

describe('problems slice', () => {
  it('sorts errors first and indexes problems by node', () => {
    store.getState().loadDocument(fixtureOpen());
    store.getState().setValidation({ valid: false, problems });
    const s = store.getState();
    expect(s.problems.map((p) => p.code)).toEqual(['if_missing_branch', 'dangling_edge', 'unknown_tool']);
    expect(s.problemsByNode.n3.map((p) => p.code)).toEqual(['if_missing_branch', 'dangling_edge']);
    expect(s.problemsByNode.n1[0].severity).toBe('warning');
    expect(s.valid).toBe(false);
    // The edge named by an error problem is highlighted.
    expect(s.edges[3].className).toContain('edge-problem');
    expect(s.edges[2].className).not.toContain('edge-problem');
  });

  it('clears problems when another document loads', () => {
    store.getState().loadDocument(fixtureOpen());
    store.getState().setValidation({ valid: false, problems });
    store.getState().loadDocument(fixtureOpen({ name: 'other.json' }));
    expect(store.getState().problems).toEqual([]);
    expect(store.getState().valid).toBeNull();
  });
});

describe('selection slice', () => {
  it('selects exactly the given nodes and asks the canvas to focus them', () => {
    store.getState().loadDocument(fixtureOpen());
    const seq = store.getState().focusRequest!.seq;
    store.getState().selectNodes(['n3', 'n5', 'missing'], { focus: true });
    const s = store.getState();
    expect(s.selectedNodeIds).toEqual(['n3', 'n5']);
    expect(s.nodes.filter((n) => n.selected).map((n) => n.id)).toEqual(['n3', 'n5']);
    expect(s.focusRequest).toEqual({ nodeIds: ['n3', 'n5'], seq: seq + 1 });
    store.getState().selectNodes(['n1']);
    expect(store.getState().nodes.filter((n) => n.selected).map((n) => n.id)).toEqual(['n1']);
    expect(store.getState().focusRequest!.seq).toBe(seq + 1);
  });
});

describe('actions', () => {
  it('loads the sample and validates it through the api', async () => {
    mocked.loadSample.mockResolvedValue(fixtureOpen({ path: '', name: 'sample.json' }));
    const actions = makeActions(store);
    await actions.loadSample();
    expect(mocked.validateWorkflow).toHaveBeenCalledTimes(1);
    expect(store.getState()).toMatchObject({ fileName: 'sample.json', path: '', valid: false });
    expect(store.getState().problems).toHaveLength(3);
  });

  it('lays out a workflow without positions, without marking it dirty', async () => {
    const w = fixtureWorkflow();
    for (const n of w.nodes) delete n.position;
    mocked.openWorkflow.mockResolvedValue(fixtureOpen({ workflow: w }));
    await makeActions(store).openPath('/tmp/fixture.json');
    const s = store.getState();
    expect(s.doc!.nodes.every((n) => n.position)).toBe(true);
    expect(s.dirty).toBe(false);
    // Left to right: the first node lies left of the Loop that follows it.
    expect(s.doc!.nodes[0].position!.x).toBeLessThan(s.doc!.nodes[1].position!.x);
  });

  it('keeps the document when the open dialog is cancelled', async () => {
    const actions = makeActions(store);
    store.getState().loadDocument(fixtureOpen());
    mocked.openWorkflowDialog.mockResolvedValue({ path: '', name: '', workflow: null, warnings: [] });
    await actions.openDialog();
    expect(store.getState().fileName).toBe('fixture.json');
    expect(store.getState().status).toBeNull();
  });

  it('reports an open error in the status bar', async () => {
    mocked.openWorkflow.mockRejectedValue('parse workflow x.json: line 1, column 1: invalid JSON');
    await makeActions(store).openPath('x.json');
    expect(store.getState().status).toEqual({
      kind: 'error',
      text: 'Could not open workflow: parse workflow x.json: line 1, column 1: invalid JSON',
    });
    expect(store.getState().busy).toBe(false);
  });

  it('saves to the current path, or asks for one when there is none', async () => {
    const actions = makeActions(store);
    store.getState().loadDocument(fixtureOpen());
    store.getState().setPositions({ n1: { x: 5, y: 5 } });
    await actions.save();
    expect(mocked.saveWorkflow).toHaveBeenCalledWith('/tmp/fixture.json', expect.objectContaining({ custom_top: { kept: true } }), '/tmp/fixture.json');
    expect(store.getState().dirty).toBe(false);

    store.getState().loadDocument(fixtureOpen({ path: '', name: 'sample.json' }));
    mocked.saveWorkflowAsDialog.mockResolvedValue('/home/u/mine.json');
    await actions.save();
    expect(mocked.saveWorkflowAsDialog).toHaveBeenCalledTimes(1);
    expect(store.getState()).toMatchObject({ path: '/home/u/mine.json', fileName: 'mine.json', dirty: false });

    mocked.saveWorkflowAsDialog.mockResolvedValue('');
    store.getState().setPositions({ n1: { x: 9, y: 9 } });
    await actions.saveAs();
    expect(store.getState()).toMatchObject({ path: '/home/u/mine.json', dirty: true });
  });
});

describe('saving a scheduled file', () => {
  it('offers to update the schedules whose content the save changed, and only those', async () => {
    const store = createAppStore();
    const actions = makeActions(store);
    store.getState().loadDocument(fixtureOpen());
    await actions.save();
    await vi.waitFor(() => expect(mocked.staleSchedules).toHaveBeenCalledWith('/tmp/fixture.json'));
    expect(store.getState().scheduleUpdate).toBeNull();

    const entry = { id: 'fx-1', file: '/tmp/fixture.json', cron: '0 7 * * *', backend: 'cron', paused: false, created: '2026-11-20T10:00:00Z' };
    mocked.staleSchedules.mockResolvedValueOnce([entry]);
    store.getState().setPositions({ n1: { x: 7, y: 7 } });
    await actions.save();
    await vi.waitFor(() => expect(store.getState().scheduleUpdate).toEqual({ path: '/tmp/fixture.json', schedules: [entry] }));
  });
});

describe('status messages', () => {
  it('lets information go by itself and keeps errors until dismissed', () => {
    vi.useFakeTimers();
    try {
      const s = createAppStore();
      s.getState().setStatus({ kind: 'info', text: 'Preferences saved.' });
      vi.advanceTimersByTime(statusInfoMs - 1);
      expect(s.getState().status?.text).toBe('Preferences saved.');
      vi.advanceTimersByTime(1);
      expect(s.getState().status).toBeNull();

      // A newer message is not cleared by the older one's timer.
      s.getState().setStatus({ kind: 'info', text: 'first' });
      vi.advanceTimersByTime(statusInfoMs / 2);
      s.getState().setStatus({ kind: 'info', text: 'second' });
      vi.advanceTimersByTime(statusInfoMs / 2 + 1);
      expect(s.getState().status?.text).toBe('second');

      s.getState().setStatus({ kind: 'error', text: 'Save failed' });
      vi.advanceTimersByTime(statusInfoMs * 10);
      expect(s.getState().status?.text).toBe('Save failed');
    } finally {
      vi.useRealTimers();
    }
  });
});
