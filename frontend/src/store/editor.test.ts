// The editing model: undo/redo and its grouping, selection outside the
// history, drags, copy/paste/duplicate, delete, connections and their rules.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { edgeKey, setField, setParam } from '../graph/edit';
import type { Workflow } from '../types';
import { createAppStore, type AppStore } from './index';
import { GROUP_MS, historyClock } from './workflowSlice';

let store: AppStore;
let now = 1_000_000;
const s = () => store.getState();
const node = (id: string, w: Workflow = s().doc!) => w.nodes.find((n) => n.id === id)!;
const edgesFrom = (id: string) => s().doc!.edges.filter((e) => e.from === id);

beforeEach(() => {
  store = createAppStore();
  now = 1_000_000;
  historyClock.now = () => now;
  s().loadDocument(fixtureOpen());
});

function typeName(id: string, text: string) {
  // One commit per keystroke, as the inspector's name field does.
  for (let i = 1; i <= text.length; i++) {
    s().updateNode(id, (n) => setField(n, 'name', text.slice(0, i)), { group: `${id}:name` });
    now += 80;
  }
}

describe('undo and redo', () => {
  it('groups a burst of keystrokes in one field into one step', () => {
    typeName('n1', 'Fetch');
    expect(node('n1').name).toBe('Fetch');
    expect(s().past).toHaveLength(1);
    expect(s().dirty).toBe(true);
    s().undo();
    expect(node('n1').name).toBe('List files');
    expect(s().dirty).toBe(false); // back at the saved document
    s().redo();
    expect(node('n1').name).toBe('Fetch');
    expect(s().dirty).toBe(true);
  });

  it('starts a new step after a pause, after the field loses focus, or in another field', () => {
    typeName('n1', 'ab');
    now += GROUP_MS + 1;
    typeName('n1', 'abc');
    expect(s().past).toHaveLength(2);
    s().endEditGroup();
    typeName('n1', 'abcd');
    expect(s().past).toHaveLength(3);
    s().updateNode('n1', (n) => setParam(n, 'tool', 'read_file'), { group: 'n1:tool' });
    expect(s().past).toHaveLength(4);
    s().undo();
    s().undo();
    expect(node('n1').name).toBe('abc');
    expect(node('n1').params.tool).toBe('fs.list');
  });

  it('drops the redo steps when a new edit is made', () => {
    typeName('n1', 'x');
    s().undo();
    expect(s().future).toHaveLength(1);
    s().updateNode('n2', (n) => setField(n, 'name', 'Other'));
    expect(s().future).toHaveLength(0);
    s().redo();
    expect(node('n1').name).toBe('List files');
  });

  it('keeps selection out of the history', () => {
    s().selectNodes(['n1']);
    typeName('n1', 'Renamed');
    s().onNodesChange([
      { type: 'select', id: 'n1', selected: false },
      { type: 'select', id: 'n3', selected: true },
    ]);
    expect(s().past).toHaveLength(1); // selecting recorded nothing
    s().undo();
    expect(node('n1').name).toBe('List files');
    // Undo changed the document, not what is selected.
    expect(s().selectedNodeIds).toEqual(['n3']);
    expect(s().nodes.filter((n) => n.selected).map((n) => n.id)).toEqual(['n3']);
    s().undo(); // nothing left: no-op
    expect(s().selectedNodeIds).toEqual(['n3']);
  });

  it('records a drag as one step when it ends', () => {
    for (const x of [5, 10, 20, 40]) {
      s().onNodesChange([{ type: 'position', id: 'n1', position: { x, y: 3 }, dragging: true }]);
    }
    expect(s().past).toHaveLength(0);
    expect(s().nodes.find((n) => n.id === 'n1')!.position).toEqual({ x: 40, y: 3 });
    s().onNodesChange([{ type: 'position', id: 'n1', position: { x: 40, y: 3 }, dragging: false }]);
    expect(s().past).toHaveLength(1);
    expect(node('n1').position).toEqual({ x: 40, y: 3 });
    s().undo();
    expect(node('n1').position).toEqual({ x: 0, y: 0 });
    expect(s().nodes.find((n) => n.id === 'n1')!.position).toEqual({ x: 0, y: 0 });
  });

  it('redraws only the nodes an edit changes', () => {
    const before = s().nodes;
    typeName('n1', 'Z');
    const after = s().nodes;
    expect(after.find((n) => n.id === 'n1')).not.toBe(before.find((n) => n.id === 'n1'));
    for (const id of ['n3', 'n4', 'n5']) expect(after.find((n) => n.id === id)).toBe(before.find((n) => n.id === id));
  });

  it('makes setWorkflow (the assistant applying a change) one undo step', () => {
    const w = structuredClone(s().doc!);
    w.nodes = w.nodes.slice(0, 2);
    w.edges = w.edges.filter((e) => e.from === 'n1');
    s().setWorkflow(w, { label: 'Apply assistant change' });
    expect(s().doc!.nodes).toHaveLength(2);
    expect(s().past.at(-1)!.label).toBe('Apply assistant change');
    s().undo();
    expect(s().doc!.nodes).toHaveLength(6);
  });
});

describe('delete', () => {
  it('removes the selected nodes with every edge touching them, as one step', () => {
    s().selectNodes(['n3']);
    expect(s().deleteSelection()).toBe(1);
    const d = s().doc!;
    expect(d.nodes.map((n) => n.id)).not.toContain('n3');
    expect(d.edges.some((e) => e.from === 'n3' || e.to === 'n3')).toBe(false);
    expect(d.edges).toHaveLength(4);
    expect(s().selectedNodeIds).toEqual([]);
    s().undo();
    expect(s().doc!.edges).toHaveLength(7);
  });

  it('removes a selected edge alone', () => {
    const id = s().edges[2].id; // n3 → n4, IfTrue
    s().onEdgesChange([{ type: 'select', id, selected: true }]);
    s().deleteSelection();
    expect(s().doc!.nodes).toHaveLength(6);
    expect(s().doc!.edges).toHaveLength(6);
    expect(edgesFrom('n3').map((e) => e.output?.type)).toEqual(['IfFalse']);
  });

  it('does nothing without a selection', () => {
    expect(s().deleteSelection()).toBe(0);
    expect(s().past).toHaveLength(0);
  });
});

describe('copy, paste and duplicate', () => {
  it('pastes with fresh ids, unique keys, internal edges, rewritten references and an offset', () => {
    s().selectNodes(['n1', 'n2', 'n3']);
    expect(s().copySelection()).toBe(3);
    expect(s().paste()).toBe(3);
    const d = s().doc!;
    expect(d.nodes).toHaveLength(9);
    const pasted = d.nodes.slice(6);
    const ids = new Set(d.nodes.map((n) => n.id));
    expect(ids.size).toBe(9);
    const keys = d.nodes.map((n) => n.key);
    expect(new Set(keys).size).toBe(9);
    expect(pasted.map((n) => n.key)).toEqual(['list_2', 'loop_2', 'check_2']);
    // The If referred to list; its copy refers to the copy of list.
    expect(pasted[2].params.condition).toBe('list_2.count > 2');
    expect(node('n3').params.condition).toBe('list.count > 2');
    expect(pasted[0].position).toEqual({ x: 40, y: 40 });
    // Edges between copied nodes are copied; edges to the rest are not.
    const newEdges = d.edges.slice(7);
    expect(newEdges).toEqual([
      { from: pasted[0].id, to: pasted[1].id },
      { from: pasted[1].id, to: pasted[2].id, output: { type: 'LoopBody' } },
    ]);
    expect(s().selectedNodeIds).toEqual(pasted.map((n) => n.id));
    // Pasting again moves further and numbers on.
    s().paste();
    expect(s().doc!.nodes.slice(9).map((n) => n.key)).toEqual(['list_3', 'loop_3', 'check_3']);
    expect(s().doc!.nodes[9].position).toEqual({ x: 80, y: 80 });
    s().undo();
    s().undo();
    expect(s().doc!.nodes).toHaveLength(6);
  });

  it('remaps an EndLoop copied with its Loop and unpairs one copied alone', () => {
    s().selectNodes(['n2', 'n6']);
    s().duplicateSelection();
    const d = s().doc!;
    const [loop, end] = d.nodes.slice(6);
    expect(end.params.loop_id).toBe(loop.id);
    expect(d.edges.at(-1)).toEqual({ from: end.id, to: loop.id });
    s().selectNodes(['n6']);
    s().duplicateSelection();
    expect(s().doc!.nodes.at(-1)!.params.loop_id).toBe('');
  });

  it('marks steps copied out of a file nobody reviewed, so they are reviewed where they are pasted', () => {
    const path = s().path || '/tmp/fixture.json';
    store.setState({ path });
    s().setFileTrust(path, { path, trusted: false, why: 'cloned', changed: false });
    s().selectNodes(['n1', 'n2']);
    s().copySelection();
    // Another document, trusted: the pasted steps keep the mark.
    s().loadDocument(fixtureOpen());
    store.setState({ path: '/tmp/mine.json' });
    s().setFileTrust('/tmp/mine.json', { path: '/tmp/mine.json', trusted: true, why: 'saved in Weft', changed: false });
    s().paste();
    const pasted = s().doc!.nodes.slice(6) as Array<{ provenance?: { source: string; via: string } }>;
    expect(pasted.map((n) => n.provenance)).toEqual([
      { source: 'file', via: 'copy' },
      { source: 'file', via: 'copy' },
    ]);
    // From a trusted file they are the person's, as before.
    s().selectNodes(['n1']);
    s().copySelection();
    s().paste();
    expect((s().doc!.nodes.at(-1) as { provenance?: unknown }).provenance).toBeUndefined();
  });

  it('does not paste an empty clipboard', () => {
    expect(s().copySelection()).toBe(0);
    expect(s().paste()).toBe(0);
    expect(s().duplicateSelection()).toBe(0);
    expect(s().past).toHaveLength(0);
  });
});

describe('connecting', () => {
  const conn = (source: string, sourceHandle: string, target: string, targetHandle = 'in') => ({ source, sourceHandle, target, targetHandle });

  function removeEdges(pred: (e: Workflow['edges'][number]) => boolean) {
    s().edit((w) => ({ ...w, edges: w.edges.filter((e) => !pred(e)) }));
  }

  it('labels the edge after the handle it leaves from', () => {
    removeEdges((e) => e.from === 'n3');
    expect(s().connect(conn('n3', 'false', 'n5')).ok).toBe(true);
    expect(s().connect(conn('n3', 'true', 'n4')).ok).toBe(true);
    expect(edgesFrom('n3').map((e) => e.output)).toEqual([{ type: 'IfFalse' }, { type: 'IfTrue' }]);
    expect(s().past).toHaveLength(3);
  });

  it.each([
    ['a second edge from a plain node', () => conn('n1', 'out', 'n3'), /already continues to “Each file”/],
    ['an edge into itself', () => conn('n1', 'out', 'n1'), /cannot connect to itself/],
    ['a duplicate edge', () => conn('n3', 'true', 'n4'), /already connected to “Summarise” that way/],
    ['IfTrue already used', () => conn('n3', 'true', 'n6'), /true branch of If “Is big” already goes to “Summarise”/],
    ['a Switch case already used', () => conn('n5', 'case:small', 'n4'), /case “small” of Switch “Route” already goes/],
    ['an EndLoop edge not to its Loop', () => conn('n6', 'back', 'n3'), /belongs to Loop “Each file”/],
    ['a cycle not closed by EndLoop → Loop', () => conn('n4', 'out', 'n2'), /already continues|would make a cycle/],
    ['an output the node does not have', () => conn('n3', 'out', 'n5'), /has no output/],
    ['a plain edge into a Loop’s loop-back input', () => conn('n5', 'default', 'n2', 'back'), /Only the EndLoop/],
  ])('refuses %s, saying why', (_, c, reason) => {
    const before = s().doc;
    const r = s().connect(c());
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
    expect(s().doc).toBe(before);
  });

  it('refuses a cycle even between plain nodes', () => {
    removeEdges((e) => e.from === 'n4');
    const r = s().connect(conn('n4', 'out', 'n1'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/would make a cycle; to repeat steps, use a Loop/);
    expect(s().connect(conn('n4', 'out', 'n6')).ok).toBe(true);
  });

  it('re-routes an edge whose end was dragged to another handle, as one step, or says why not', () => {
    const key = edgeKey({ from: 'n3', to: 'n4', output: { type: 'IfTrue' } });
    const before = s().past.length;
    // IfTrue now goes to the Switch instead of the AI step.
    removeEdges((e) => e.from === 'n3' && e.to === 'n5');
    expect(s().reconnect(key, conn('n3', 'true', 'n5')).ok).toBe(true);
    expect(s().doc!.edges.filter((e) => e.from === 'n3')).toEqual([{ from: 'n3', to: 'n5', output: { type: 'IfTrue' } }]);
    expect(s().past.length).toBe(before + 2); // the removal above, then the reconnect
    // A move that is not allowed (onto the node itself) is refused and the edge stays.
    const k2 = edgeKey({ from: 'n1', to: 'n2' });
    const r = s().reconnect(k2, conn('n1', 'out', 'n1'));
    expect(r.ok).toBe(false);
    expect(s().doc!.edges).toContainEqual({ from: 'n1', to: 'n2' });
    expect(s().reconnect('no-such-edge', conn('n1', 'out', 'n2'))).toMatchObject({ ok: false });
  });

  it('pairs an EndLoop without a Loop with the Loop it is connected to', () => {
    const ids = s().addNode({ type: 'Loop' }, { x: 0, y: 400 });
    expect(ids).toHaveLength(2); // a Loop comes with its EndLoop
    const end = node(ids[1]);
    expect(end.params.loop_id).toBe(ids[0]);
    s().edit((w) => ({ ...w, edges: w.edges.filter((e) => e.from !== end.id), nodes: w.nodes.map((n) => (n.id === end.id ? { ...n, params: { loop_id: '' } } : n)) }));
    expect(s().connect(conn(end.id, 'back', 'n2', 'back'))).toMatchObject({ ok: false, reason: expect.stringMatching(/already has the EndLoop “End loop”/) });
    expect(s().connect(conn(end.id, 'back', ids[0], 'back')).ok).toBe(true);
    expect(node(end.id).params.loop_id).toBe(ids[0]);
  });
});

describe('adding nodes', () => {
  it('adds a palette node with a unique key, selected, as one step', () => {
    const [id] = s().addNode({ type: 'Tool', tool: 'read_file' }, { x: 10.4, y: 20.6 });
    const n = node(id);
    expect(n).toMatchObject({ type: 'Tool', name: 'Read file', key: 'read_file', params: { tool: 'read_file', arguments: {} }, position: { x: 10, y: 21 } });
    expect(s().selectedNodeIds).toEqual([id]);
    const [id2] = s().addNode({ type: 'Tool', tool: 'read_file' }, { x: 0, y: 0 });
    expect(node(id2).key).toBe('read_file_2');
    expect(s().past).toHaveLength(2);
  });

  it('connects a node added after the selected one to its first free output', () => {
    s().edit((w) => ({ ...w, edges: w.edges.filter((e) => !(e.from === 'n3' && e.output?.type === 'IfFalse')) }));
    const [id] = s().addNode({ type: 'AiStep' }, { x: 0, y: 0 }, { after: 'n3' });
    expect(edgesFrom('n3').find((e) => e.to === id)!.output).toEqual({ type: 'IfFalse' });
    // A plain node that already continues somewhere gets no second edge.
    const [id2] = s().addNode({ type: 'AiStep' }, { x: 0, y: 0 }, { after: 'n1' });
    expect(s().doc!.edges.some((e) => e.to === id2)).toBe(false);
  });

  it('opens the added node\'s form in the inspector, from any tab (the assistant tab stayed open)', () => {
    s().setSidebarTab('assistant');
    s().addNode({ type: 'AiStep' }, { x: 0, y: 0 });
    expect(s().sidebarTab).toBe('inspector');
    s().setSidebarTab('assistant');
    const ids = s().insertOnEdge(edgeKey(s().doc!.edges[0]), { type: 'AiStep' }, { x: 0, y: 0 });
    expect(ids).toHaveLength(1);
    expect(s().sidebarTab).toBe('inspector');
  });

  it('names an added node in the undo history as the palette does (not "Add AiStep")', () => {
    s().addNode({ type: 'AiStep' }, { x: 0, y: 0 });
    expect(s().past.at(-1)!.label).toBe('Add AI step');
    s().addNode({ type: 'Tool', tool: 'read_file' }, { x: 0, y: 300 });
    expect(s().past.at(-1)!.label).toBe('Add read_file');
    s().setPositions({ n1: { x: 500, y: 500 } }, { label: 'Auto-layout' });
    expect(s().past.at(-1)!.label).toBe('Auto-layout');
  });

  it('starts a new, empty document', () => {
    typeName('n1', 'x');
    s().newDocument();
    expect(s().doc).toMatchObject({ format: 'weft/v1', nodes: [], edges: [] });
    expect(s().doc!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s()).toMatchObject({ path: '', fileName: 'untitled.json', dirty: false });
    expect(s().past).toHaveLength(0);
  });
});
