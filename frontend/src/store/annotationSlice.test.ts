// Sticky notes and groups: every edit is one undo step through commit,
// a group's move moves its nodes, a deleted node leaves its groups, and a
// document that never had notes saves as it was.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { createAppStore, type AppStore } from './index';
import { historyClock } from './workflowSlice';

let store: AppStore;
let now = 1_000_000;
const s = () => store.getState();
const pos = (id: string) => s().doc!.nodes.find((n) => n.id === id)!.position!;
const flowPos = (id: string) => s().nodes.find((n) => n.id === id)!.position;

beforeEach(() => {
  store = createAppStore();
  now = 1_000_000;
  historyClock.now = () => now;
  s().loadDocument(fixtureOpen());
});

/** undoRedo does act, then checks that one undo brings back before and one redo what act made. */
function undoRedo(before: unknown, act: () => void, read: () => unknown) {
  expect(read()).toEqual(before);
  act();
  const done = read();
  expect(done).not.toEqual(before);
  s().undo();
  expect(read()).toEqual(before);
  s().redo();
  expect(read()).toEqual(done);
}

describe('sticky notes', () => {
  it('adds, edits, moves, resizes, colours and deletes a note, each one undo step', () => {
    const doc0 = s().doc!;
    const id = s().addNote({ x: 100.4, y: 50 })!;
    expect(s().doc!.notes).toEqual([{ id, text: '', position: { x: 100, y: 50 }, size: { width: 240, height: 140 } }]);
    expect(s().annotations.map((a) => [a.id, a.type, a.selected])).toEqual([[`note:${id}`, 'note', true]]);
    expect(s().past.at(-1)!.label).toBe('Add note');
    const note = () => s().doc!.notes?.[0];

    // A burst of typing is one step.
    for (const t of ['W', 'Wh', 'Why']) {
      s().setNoteText(id, t);
      now += 100;
    }
    expect(note()!.text).toBe('Why');
    const past = s().past.length;
    s().undo();
    expect(note()!.text).toBe('');
    s().redo();
    expect(s().past).toHaveLength(past);

    undoRedo(
      { x: 100, y: 50 },
      () => s().placeAnnotation('note', id, { x: 10, y: 20 }),
      () => note()?.position,
    );
    expect(s().past.at(-1)!.label).toBe('Move note');
    undoRedo(
      { width: 240, height: 140 },
      () => s().placeAnnotation('note', id, { x: 10, y: 20 }, { width: 5, height: 99999 }),
      () => note()?.size,
    );
    expect(note()!.size).toEqual({ width: 20, height: 20000 }); // within the file's bounds
    undoRedo(
      undefined,
      () => s().setAnnotationColor('note', id, 'blue'),
      () => note()?.color,
    );
    s().setAnnotationColor('note', id, 'yellow'); // the default: no field
    expect('color' in note()!).toBe(false);

    // Delete (the key) takes the selected note; no notes left, no field.
    store.setState({ annotations: s().annotations.map((a) => ({ ...a, selected: true })) });
    s().deleteSelection();
    expect(s().doc!.notes).toBeUndefined();
    expect(s().annotations).toEqual([]);
    s().undo();
    expect(note()!.text).toBe('Why');
    // Everything undone: the document is the one opened.
    while (s().past.length) s().undo();
    expect(s().doc).toBe(doc0);
    expect(s().dirty).toBe(false);
  });

  it('choosing steps (Escape, a click in the problems) unselects notes, so Delete keeps them', () => {
    s().addNote({ x: 0, y: 0 });
    expect(s().annotations[0].selected).toBe(true);
    s().clearSelection();
    expect(s().annotations[0].selected).toBe(false);
    s().addNote({ x: 0, y: 0 });
    s().selectNodes(['n1']);
    s().deleteSelection();
    expect(s().doc!.notes).toHaveLength(2);
  });

  it('a finished drag of a note is one step; while dragged only the canvas moves', () => {
    const id = s().addNote({ x: 0, y: 0 })!;
    const steps = s().past.length;
    s().onAnnotationsChange([{ type: 'position', id: `note:${id}`, position: { x: 30, y: 40 }, dragging: true }]);
    expect(s().annotations[0].position).toEqual({ x: 30, y: 40 });
    expect(s().doc!.notes![0].position).toEqual({ x: 0, y: 0 });
    s().onAnnotationsChange([{ type: 'position', id: `note:${id}`, position: { x: 60, y: 40 }, dragging: false }]);
    expect(s().doc!.notes![0].position).toEqual({ x: 60, y: 40 });
    expect(s().past).toHaveLength(steps + 1);
    s().undo();
    expect(s().annotations[0].position).toEqual({ x: 0, y: 0 });
  });
});

describe('groups', () => {
  it('frames the selection, moves its nodes with it, and is undone in one step', () => {
    s().selectNodes(['n1', 'n2']);
    const id = s().groupSelection('Fetch')!;
    const g = () => s().doc!.groups?.[0];
    expect(g()!.nodes).toEqual(['n1', 'n2']);
    expect(g()!.title).toBe('Fetch');
    // The frame holds both nodes.
    for (const n of ['n1', 'n2']) {
      expect(pos(n).x).toBeGreaterThan(g()!.position.x);
      expect(pos(n).y).toBeGreaterThan(g()!.position.y);
      expect(pos(n).x).toBeLessThan(g()!.position.x + g()!.size.width);
    }
    const before = { g: g()!.position, n1: pos('n1'), n2: pos('n2'), n3: pos('n3') };

    // Dragging: the nodes follow on the canvas, the document waits for the drop.
    const to = { x: before.g.x + 100, y: before.g.y - 50 };
    s().onAnnotationsChange([{ type: 'position', id: `group:${id}`, position: to, dragging: true }]);
    expect(flowPos('n1')).toEqual({ x: before.n1.x + 100, y: before.n1.y - 50 });
    expect(pos('n1')).toEqual(before.n1);
    const steps = s().past.length;
    s().onAnnotationsChange([{ type: 'position', id: `group:${id}`, position: to, dragging: false }]);
    expect(s().past).toHaveLength(steps + 1);
    expect(s().past.at(-1)!.label).toBe('Move group');
    expect(g()!.position).toEqual(to);
    expect(pos('n1')).toEqual({ x: before.n1.x + 100, y: before.n1.y - 50 });
    expect(pos('n2')).toEqual({ x: before.n2.x + 100, y: before.n2.y - 50 });
    expect(pos('n3')).toEqual(before.n3); // not a member
    s().undo();
    expect({ g: g()!.position, n1: pos('n1'), n2: pos('n2'), n3: pos('n3') }).toEqual(before);
    expect(flowPos('n1')).toEqual(before.n1);

    undoRedo(
      'Fetch',
      () => s().setGroupTitle(id, 'Fetch and check'),
      () => g()?.title,
    );
    undoRedo(
      undefined,
      () => s().setAnnotationColor('group', id, 'teal'),
      () => g()?.color,
    );
  });

  it('a deleted node leaves its groups; deleting a group keeps its nodes', () => {
    s().selectNodes(['n1', 'n2']);
    const id = s().groupSelection()!;
    s().selectNodes(['n2']);
    s().deleteSelection();
    expect(s().doc!.groups![0].nodes).toEqual(['n1']);
    s().undo();
    expect(s().doc!.groups![0].nodes).toEqual(['n1', 'n2']);
    store.setState({ annotations: s().annotations.map((a) => ({ ...a, selected: a.id === `group:${id}` })) });
    s().selectNodes([]);
    store.setState({ annotations: s().annotations.map((a) => ({ ...a, selected: a.id === `group:${id}` })) });
    const nodes = s().doc!.nodes.length;
    s().deleteSelection();
    expect(s().doc!.groups).toBeUndefined();
    expect(s().doc!.nodes).toHaveLength(nodes);
  });

  it('after a layout each group frames its nodes again, in the same undo step', () => {
    s().selectNodes(['n1', 'n2']);
    s().groupSelection();
    const before = s().doc!.groups![0];
    const steps = s().past.length;
    s().setPositions({ n1: { x: 1000, y: 1000 }, n2: { x: 1300, y: 1000 } }, { label: 'Auto-layout', fitGroups: true });
    const g = s().doc!.groups![0];
    expect(s().past).toHaveLength(steps + 1);
    expect(g.position.x).toBeLessThan(1000);
    expect(g.position.x).toBeGreaterThan(900);
    expect(g.position.x + g.size.width).toBeGreaterThan(1300);
    expect(g.size.height).toBe(before.size.height);
    s().undo();
    expect(s().doc!.groups![0]).toEqual(before);
    // A drag of a node is no layout: its group stays.
    s().setPositions({ n1: { x: 5000, y: 0 } });
    expect(s().doc!.groups![0]).toEqual(before);
  });

  it('a node dropped into a frame joins its group, dragged out leaves it: each one undo step with the move', () => {
    s().selectNodes(['n1']);
    s().groupSelection();
    const members = () => s().doc!.groups![0].nodes;
    const drop = (id: string, position: { x: number; y: number }) => {
      s().onNodesChange([{ type: 'position', id, position, dragging: true }]);
      s().onNodesChange([{ type: 'position', id, position, dragging: false }]);
    };
    const steps = s().past.length;
    drop('n3', { x: 10, y: 5 }); // within the frame around n1
    expect(members()).toEqual(['n1', 'n3']);
    expect(pos('n3')).toEqual({ x: 10, y: 5 });
    expect(s().past).toHaveLength(steps + 1);
    drop('n1', { x: 3000, y: 0 }); // out
    expect(members()).toEqual(['n3']);
    expect(s().past).toHaveLength(steps + 2);
    s().undo();
    expect(members()).toEqual(['n1', 'n3']);
    expect(pos('n1')).toEqual({ x: 0, y: 0 });
    s().undo();
    expect(members()).toEqual(['n1']);
    expect(pos('n3')).toEqual({ x: 600, y: 0 });
  });

  it('nothing selected: no group', () => {
    s().selectNodes([]);
    expect(s().groupSelection()).toBeNull();
    expect(s().doc!.groups).toBeUndefined();
  });
});

describe('copy, paste, duplicate and select all', () => {
  const selectAnnotations = (ids: string[]) => store.setState({ annotations: s().annotations.map((a) => ({ ...a, selected: ids.includes(a.id) })) });
  const selected = () => [...s().nodes, ...s().annotations].filter((n) => n.selected).map((n) => n.id);

  it('a note and a group copied with some of its members paste with new ids, moved, the group framing the copies', () => {
    s().selectNodes(['n1', 'n2']);
    const gid = s().groupSelection('Fetch')!;
    const nid = s().addNote({ x: 10, y: 400 }, 'why')!;
    const g0 = s().doc!.groups![0];
    const nodes0 = s().doc!.nodes.length;
    // n1 and the group and the note; n2 (a member) stays behind.
    s().selectNodes(['n1']);
    selectAnnotations([`group:${gid}`, `note:${nid}`]);
    expect(s().copySelection()).toBe(3);
    const steps = s().past.length;
    expect(s().paste()).toBe(3);
    expect(s().past).toHaveLength(steps + 1);
    const d = s().doc!;
    expect(d.nodes).toHaveLength(nodes0 + 1);
    const n1copy = d.nodes.at(-1)!;
    expect(d.notes).toHaveLength(2);
    expect(d.groups).toHaveLength(2);
    const [note, group] = [d.notes![1], d.groups![1]];
    expect(note.id).not.toBe(nid);
    expect(note.text).toBe('why');
    expect(note.position).toEqual({ x: 50, y: 440 });
    expect(group.id).not.toBe(gid);
    expect(group.title).toBe('Fetch');
    expect(group.position).toEqual({ x: g0.position.x + 40, y: g0.position.y + 40 });
    expect(group.size).toEqual(g0.size);
    expect(group.nodes).toEqual([n1copy.id]);
    expect(d.groups![0]).toEqual(g0); // the original keeps its members
    expect(new Set(selected())).toEqual(new Set([n1copy.id, `note:${note.id}`, `group:${group.id}`]));
    s().undo();
    expect(s().doc!.notes).toHaveLength(1);
    expect(s().doc!.groups).toHaveLength(1);
  });

  it('a group copied without its members pastes empty; a note alone duplicates', () => {
    s().selectNodes(['n1']);
    const gid = s().groupSelection()!;
    s().selectNodes([]);
    selectAnnotations([`group:${gid}`]);
    expect(s().duplicateSelection()).toBe(1);
    expect(s().doc!.groups).toHaveLength(2);
    expect(s().doc!.groups![1].nodes).toEqual([]);
    expect(s().doc!.nodes).toHaveLength(fixtureWorkflow().nodes.length);
    const nid = s().addNote({ x: 0, y: 0 })!;
    selectAnnotations([`note:${nid}`]);
    expect(s().duplicateSelection()).toBe(1);
    expect(s().doc!.notes!.map((n) => n.position)).toEqual([
      { x: 0, y: 0 },
      { x: 40, y: 40 },
    ]);
    expect(selected()).toEqual([`note:${s().doc!.notes![1].id}`]);
  });

  it('select all takes the notes and groups, so copy and delete do too', () => {
    s().selectNodes(['n1']);
    s().groupSelection();
    s().addNote({ x: 0, y: 0 });
    s().selectAll();
    expect(s().annotations.every((a) => a.selected)).toBe(true);
    expect(s().copySelection()).toBe(s().doc!.nodes.length + 2);
    s().deleteSelection();
    expect(s().doc!.notes).toBeUndefined();
    expect(s().doc!.groups).toBeUndefined();
  });
});
