import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';
import type { AssistantProgress, AssistantResult, Workflow, WorkflowPatch } from '../types';

vi.mock('../api', () => ({
  api: {},
  ASSISTANT_STOPPED: 'assistant: stopped',
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { makeAssistantActions, type AssistantApi } from './assistantActions';
import { changeSummary, previewGraph, progressText, receivedText } from './assistantSlice';
import { createAppStore, type AppStore } from './index';

// The patch: add n7 after n1, rename n1, remove n4 (and its edges).
function patch(): WorkflowPatch {
  return {
    added_nodes: [{ id: 'n7', key: 'say', name: 'Say hi', type: 'Tool', params: { tool: 'log' }, position: { x: 0, y: 200 } }],
    removed_node_ids: ['n4'],
    updated_nodes: [{ ...fixtureWorkflow().nodes[0], name: 'List all files' }],
    added_edges: [{ from: 'n1', to: 'n7' }],
    removed_edges: [],
    warnings: [],
  };
}

function merged(): Workflow {
  const w = fixtureWorkflow();
  w.nodes = w.nodes.filter((n) => n.id !== 'n4');
  w.nodes[0] = { ...w.nodes[0], name: 'List all files' };
  w.nodes.push(patch().added_nodes![0]);
  w.edges = w.edges.filter((e) => e.from !== 'n4' && e.to !== 'n4');
  w.edges.push({ from: 'n1', to: 'n7' });
  return w;
}

function result(over: Partial<AssistantResult> = {}): AssistantResult {
  return {
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    unused: {},
    kind: 'patch',
    message: 'Added a greeting.',
    patch: patch(),
    workflow: merged(),
    diff: {
      added_node_ids: ['n7'],
      removed_node_ids: ['n4'],
      modified_node_ids: ['n1'],
      added_edges: [{ from: 'n1', to: 'n7' }],
      removed_edges: [
        { from: 'n3', to: 'n4', output: { type: 'IfTrue' } },
        { from: 'n4', to: 'n6' },
      ],
    },
    warnings: [{ stage: 'patch', message: 'read "new_nodes" as "add_nodes"' }],
    problems: [],
    valid: true,
    validated: true,
    attempts: 2,
    llm_calls: 2,
    ...over,
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

let store: AppStore;
let progress: ((p: AssistantProgress) => void) | null;
let fake: { [K in keyof AssistantApi]: ReturnType<typeof vi.fn> };
let validate: ReturnType<typeof vi.fn>;

function actions() {
  return makeAssistantActions(store, fake, { validate: validate as unknown as () => Promise<void> });
}

beforeEach(() => {
  store = createAppStore();
  store.getState().loadDocument(fixtureOpen());
  progress = null;
  validate = vi.fn().mockResolvedValue(undefined);
  fake = {
    assistantSend: vi.fn(),
    assistantStop: vi.fn().mockResolvedValue(true),
    assistantHistory: vi.fn().mockResolvedValue({ messages: [], path: '/tmp/fixture.chat.json', warnings: [] }),
    assistantClearHistory: vi.fn().mockResolvedValue(undefined),
    previewPatch: vi.fn(),
    applyPatch: vi.fn().mockImplementation(async () => ({ workflow: merged(), warnings: [] })),
    onAssistantProgress: vi.fn().mockImplementation((cb) => {
      progress = cb;
      return () => {
        progress = null;
      };
    }),
    log: vi.fn(),
  };
});

describe('progress text', () => {
  it('says what the backend reports', () => {
    expect(progressText(null)).toBe('');
    expect(progressText({ kind: 'thinking', attempt: 1, max: 3 })).toBe('Thinking…');
    expect(progressText({ kind: 'thinking', attempt: 1, max: 3, elapsed_ms: 45_400 })).toBe('Waiting for the model: 45 s…');
    expect(progressText({ kind: 'thinking', elapsed_ms: 3000, wait_ms: 20_000, wait: 'rate limited by the model server (429 Too Many Requests)' })).toBe(
      'rate limited by the model server (429 Too Many Requests); trying again in 20 s…',
    );
    expect(progressText({ kind: 'repairing', attempt: 2, max: 3 })).toBe('Repairing (attempt 2 of 3)…');
    expect(progressText({ kind: 'summarizing' })).toBe('Summarising the conversation…');
  });

  it('follows the progress events of the request in flight and ignores late ones', async () => {
    const reply = deferred<AssistantResult>();
    fake.assistantSend.mockReturnValue(reply.promise);
    const a = actions();
    const sent = a.send('add a greeting');
    expect(store.getState().chatBusy).toBe(true);
    expect(progressText(store.getState().chatProgress)).toBe('Thinking…');
    expect(store.getState().chatMessages.map((m) => [m.role, m.state])).toEqual([
      ['user', undefined],
      ['assistant', 'pending'],
    ]);
    expect(progress).not.toBeNull();
    progress!({ kind: 'repairing', attempt: 2, max: 3 });
    expect(progressText(store.getState().chatProgress)).toBe('Repairing (attempt 2 of 3)…');
    reply.resolve(result({ kind: 'conversation', patch: null, workflow: undefined, diff: undefined }));
    await sent;
    expect(store.getState().chatBusy).toBe(false);
    expect(store.getState().chatProgress).toBeNull();
    progress!({ kind: 'thinking', attempt: 1, max: 3 });
    expect(store.getState().chatProgress).toBeNull();
    expect(fake.assistantSend).toHaveBeenCalledWith(expect.objectContaining({ id: 'wf-1' }), '/tmp/fixture.json', 'add a greeting');
  });
});

describe('preview of a proposed change', () => {
  it('marks added, modified and removed nodes and keeps the removed ones as ghosts', async () => {
    fake.assistantSend.mockResolvedValue(result());
    const before = store.getState().doc;
    await actions().send('add a greeting');
    const s = store.getState();
    expect(s.proposal).not.toBeNull();
    expect(s.previewStatus).toEqual({ n7: 'added', n1: 'modified', n4: 'removed' });
    expect(s.previewNodes!.map((n) => n.id).sort()).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7']);
    expect(s.previewNodes!.every((n) => n.draggable === false)).toBe(true);
    const added = s.previewEdges!.filter((e) => e.className?.includes('edge-preview-added'));
    const ghosts = s.previewEdges!.filter((e) => e.className?.includes('edge-preview-removed'));
    expect(added.map((e) => [e.source, e.target])).toEqual([['n1', 'n7']]);
    expect(ghosts.map((e) => [e.source, e.target])).toEqual([
      ['n3', 'n4'],
      ['n4', 'n6'],
    ]);
    // Nothing is applied yet.
    expect(s.doc).toBe(before);
    expect(s.dirty).toBe(false);
    expect(s.chatMessages[1]).toMatchObject({ state: 'proposed', valid: true, summary: '+1 node, −1 node, 1 modified' });
    // The canvas is asked to show the changed nodes.
    expect(s.focusRequest?.nodeIds).toEqual(['n7', 'n1', 'n4', 'n3', 'n6']);
  });

  it('re-merges through the backend when the document changed meanwhile', async () => {
    const reply = deferred<AssistantResult>();
    fake.assistantSend.mockReturnValue(reply.promise);
    fake.previewPatch.mockResolvedValue({ workflow: merged(), diff: result().diff, warnings: [{ stage: 'merge', message: 'x' }], valid: false, problems: [] });
    const sent = actions().send('add a greeting');
    store.getState().setPositions({ n2: { x: 999, y: 9 } });
    reply.resolve(result());
    await sent;
    expect(fake.previewPatch).toHaveBeenCalledWith(store.getState().doc, expect.objectContaining({ removed_node_ids: ['n4'] }));
    expect(store.getState().proposal?.valid).toBe(false);
    expect(store.getState().proposal?.warnings.map((w) => w.stage)).toEqual(['patch', 'merge']);
  });

  it('discard clears the preview and leaves the document alone', async () => {
    fake.assistantSend.mockResolvedValue(result());
    const a = actions();
    await a.send('add a greeting');
    const before = store.getState().doc;
    a.discard();
    const s = store.getState();
    expect(s.proposal).toBeNull();
    expect(s.previewNodes).toBeNull();
    expect(s.previewStatus).toBeNull();
    expect(s.doc).toBe(before);
    expect(s.chatMessages[1].state).toBe('discarded');
  });

  it('ends the review when another document is opened', async () => {
    fake.assistantSend.mockResolvedValue(result());
    const a = actions();
    await a.send('add a greeting');
    expect(store.getState().previewNodes).not.toBeNull();
    store.getState().loadDocument(fixtureOpen({ path: '/tmp/other.json', name: 'other.json' }));
    expect(store.getState().proposal).toBeNull();
    expect(store.getState().previewNodes).toBeNull();
  });

  it('summarises diffs', () => {
    expect(changeSummary(result().diff)).toBe('+1 node, −1 node, 1 modified');
    expect(
      changeSummary({ added_node_ids: [], removed_node_ids: [], modified_node_ids: [], added_edges: [{ from: 'a', to: 'b' }], removed_edges: [] }),
    ).toBe('1 edge rewired');
  });

  it('previewGraph keeps a removed edge that the merge re-added only once', () => {
    const w = fixtureWorkflow();
    const g = previewGraph(w, w, {
      added_node_ids: [],
      removed_node_ids: [],
      modified_node_ids: [],
      added_edges: [],
      removed_edges: [w.edges[0]],
    });
    expect(g.edges).toHaveLength(w.edges.length);
  });
});

describe('apply', () => {
  it('applies a valid change through the backend merge as one document replacement', async () => {
    fake.assistantSend.mockResolvedValue(result());
    const a = actions();
    await a.send('add a greeting');
    const base = store.getState().doc;
    expect(await a.apply()).toBe('applied');
    expect(fake.applyPatch).toHaveBeenCalledWith(base, expect.objectContaining({ removed_node_ids: ['n4'] }));
    const s = store.getState();
    expect(s.doc!.nodes.map((n) => n.id)).toEqual(['n1', 'n2', 'n3', 'n5', 'n6', 'n7']);
    expect(s.nodes.map((n) => n.id)).toContain('n7');
    expect(s.dirty).toBe(true);
    expect(s.proposal).toBeNull();
    expect(s.previewNodes).toBeNull();
    expect(s.chatMessages[1].state).toBe('applied');
    expect(validate).toHaveBeenCalled();
    // One undo step takes the whole change back.
    store.getState().undo();
    expect(store.getState().doc!.nodes.map((n) => n.id)).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
    expect(store.getState().dirty).toBe(false);
  });

  it('applies through the editor history (setWorkflow)', async () => {
    const setWorkflow = vi.fn();
    store.setState({ setWorkflow });
    fake.assistantSend.mockResolvedValue(result({ kind: 'plan' }));
    const a = actions();
    await a.send('plan it');
    await a.apply();
    expect(setWorkflow).toHaveBeenCalledTimes(1);
    expect(setWorkflow).toHaveBeenCalledWith(expect.objectContaining({ id: 'wf-1' }), { label: 'Apply assistant plan' });
  });

  it('an invalid change needs an explicit Apply anyway', async () => {
    fake.assistantSend.mockResolvedValue(
      result({
        valid: false,
        problems: [{ code: 'if_missing_branch', severity: 'error', message: 'no IfFalse', node_ids: ['n3'], edges: null }],
      }),
    );
    const a = actions();
    await a.send('add a greeting');
    const before = store.getState().doc;
    expect(store.getState().proposal?.problems).toHaveLength(1);
    expect(await a.apply()).toBe('needs-confirm');
    expect(fake.applyPatch).not.toHaveBeenCalled();
    expect(store.getState().doc).toBe(before);
    expect(store.getState().confirmingApplyAnyway).toBe(true);
    expect(await a.apply({ anyway: true })).toBe('applied');
    expect(store.getState().doc!.nodes.map((n) => n.id)).toContain('n7');
    expect(store.getState().confirmingApplyAnyway).toBe(false);
  });

  it('a valid change that leaves steps of the reply out needs an explicit Apply anyway', async () => {
    fake.assistantSend.mockResolvedValue(result({ unused: { steps: ['more_nodes[0] (tool_name "log", id "h")'] } }));
    const a = actions();
    await a.send('add a greeting');
    const before = store.getState().doc;
    expect(store.getState().proposal?.leftOut).toEqual(['more_nodes[0] (tool_name "log", id "h")']);
    expect(await a.apply()).toBe('needs-confirm');
    expect(fake.applyPatch).not.toHaveBeenCalled();
    expect(store.getState().doc).toBe(before);
    expect(store.getState().confirmingApplyAnyway).toBe(true);
    expect(await a.apply({ anyway: true })).toBe('applied');
    expect(store.getState().doc!.nodes.map((n) => n.id)).toContain('n7');
  });

  it('keeps the backend review and, when the document changed after it, reviews again instead of applying', async () => {
    const changes = {
      added_nodes: [],
      removed_nodes: [],
      updated_nodes: [
        {
          id: 'n1',
          key: 'list',
          name: 'List all files',
          type: 'Tool' as const,
          fields: [{ field: 'name', old: { text: 'List files' }, new: { text: 'List all files' } }],
        },
      ],
      added_edges: [],
      removed_edges: [],
    };
    fake.assistantSend.mockResolvedValue(result({ changes }));
    const a = actions();
    await a.send('add a greeting');
    expect(store.getState().proposal?.changes).toEqual(changes);
    // The document moves under the review (a node dragged, a file reloaded).
    store.getState().setPositions({ n2: { x: 999, y: 9 } });
    const again = { ...changes, updated_nodes: [] };
    fake.previewPatch.mockResolvedValue({ workflow: merged(), diff: result().diff, changes: again, warnings: [], valid: true, problems: [] });
    expect(await a.apply()).toBe('needs-review');
    expect(fake.applyPatch).not.toHaveBeenCalled();
    expect(fake.previewPatch).toHaveBeenCalledWith(store.getState().doc, expect.objectContaining({ removed_node_ids: ['n4'] }));
    expect(store.getState().proposal?.changes).toEqual(again);
    expect(store.getState().chatError).toMatch(/changed since this review/);
    // Reviewed against the document as it is, it applies.
    expect(await a.apply()).toBe('applied');
    expect(fake.applyPatch).toHaveBeenCalledTimes(1);
  });

  it('sends the warnings to the problems panel', async () => {
    const setWarnings = vi.fn();
    store.setState({ setWarnings });
    fake.assistantSend.mockResolvedValue(result());
    const a = actions();
    await a.send('add a greeting');
    expect(setWarnings).toHaveBeenLastCalledWith('assistant', [
      { source: 'assistant', stage: 'patch', message: 'read "new_nodes" as "add_nodes"', node_id: undefined },
    ]);
    a.discard();
    expect(setWarnings).toHaveBeenLastCalledWith('assistant', []);
  });
});

describe('conversation', () => {
  it('stop leaves a quiet "Stopped." rather than an error', async () => {
    fake.assistantSend.mockRejectedValue('assistant: stopped');
    await actions().send('hello');
    const s = store.getState();
    expect(s.chatBusy).toBe(false);
    expect(s.chatError).toBeNull();
    expect(s.chatMessages[1]).toMatchObject({ content: 'Stopped.', state: 'stopped' });
  });

  it('an error is shown on the message, once', async () => {
    fake.assistantSend.mockRejectedValue(new Error('no model is configured'));
    await actions().send('hello');
    expect(store.getState().chatError).toBeNull();
    expect(store.getState().chatMessages[1]).toMatchObject({ state: 'error', content: 'no model is configured' });
  });

  it('loads the history of the open workflow once per workflow', async () => {
    fake.assistantHistory.mockResolvedValue({
      messages: [
        { role: 'user', content: 'add a greeting' },
        { role: 'assistant', content: 'Added.', kind: 'patch', valid: true, patch: patch() },
      ],
      path: '/tmp/fixture.chat.json',
      warnings: ['moved aside'],
    });
    const a = actions();
    await a.loadHistory();
    await a.loadHistory();
    expect(fake.assistantHistory).toHaveBeenCalledTimes(1);
    expect(fake.assistantHistory).toHaveBeenCalledWith('wf-1', '/tmp/fixture.json');
    const s = store.getState();
    expect(s.chatNotes).toEqual(['moved aside']);
    expect(s.chatMessages.map((m) => m.content)).toEqual(['add a greeting', 'Added.']);
    expect(s.chatMessages[1].summary).toBe('+1 node, −1 node, 1 modified');
  });

  it('clears the history', async () => {
    fake.assistantSend.mockResolvedValue(result({ kind: 'conversation', patch: null, workflow: undefined, diff: undefined }));
    const a = actions();
    await a.send('hi');
    await a.clearHistory();
    expect(fake.assistantClearHistory).toHaveBeenCalledWith('wf-1', '/tmp/fixture.json');
    expect(store.getState().chatMessages).toEqual([]);
  });
});

describe('streamed progress', () => {
  it('says how much of the reply has arrived, without changing the stage text', () => {
    const p: AssistantProgress = { kind: 'repairing', attempt: 2, max: 3, received: 1536 };
    expect(progressText(p)).toBe('Repairing (attempt 2 of 3)…');
    expect(receivedText(p)).toBe('1.5k characters received');
    expect(receivedText({ kind: 'thinking', received: 12 })).toBe('12 characters received');
    expect(receivedText({ kind: 'thinking', received: 23456 })).toBe('23k characters received');
    expect(receivedText({ kind: 'thinking' })).toBe('');
    expect(receivedText(null)).toBe('');
  });
});
