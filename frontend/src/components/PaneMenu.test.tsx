// The canvas's own menu (right-click on empty canvas, Shift+F10 or the
// context-menu key on the focused canvas): paste, select all, fit view,
// auto-layout, add a sticky note, group the selection; focus goes back
// to the canvas when it closes.
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { Canvas } from './Canvas';
import { ContextMenu, type MenuTarget } from './ContextMenu';

const initial = useStore.getState();
const s = () => useStore.getState();
const at = { screen: { x: 10, y: 10 }, flow: { x: 500, y: 446 } };
const run = { startFrom: vi.fn(async () => {}), pinFromRun: vi.fn(async () => true), unpin: vi.fn() };
const pane = { autoLayout: vi.fn(), fitView: vi.fn() };

beforeEach(() => {
  vi.clearAllMocks();
  useStore.setState(initial, true);
  s().loadDocument(fixtureOpen());
});

function open(target: MenuTarget = { kind: 'pane', ...at }) {
  const onClose = vi.fn();
  render(<ContextMenu target={target} onClose={onClose} run={run} pane={pane} />);
  return onClose;
}
const labels = () => screen.getAllByRole('menuitem').map((b) => b.textContent);

describe('the pane menu', () => {
  it('lists what the canvas can do; Paste waits for something copied', () => {
    open();
    expect(labels()).toEqual(['Add a node here…', 'Add sticky note', 'Paste', 'Select all', 'Fit view', 'Auto-layout']);
    expect(screen.getByTestId('menu-paste')).toBeDisabled();
    // The first item that can be picked has focus; the arrows skip Paste.
    expect(document.activeElement).toBe(screen.getByTestId('menu-add-here'));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(screen.getByTestId('menu-select-all'));
  });

  it('adds a sticky note where it was opened, one undo step', () => {
    open();
    fireEvent.click(screen.getByTestId('menu-add-note'));
    expect(s().doc!.notes).toHaveLength(1);
    expect(s().doc!.notes![0].position).toEqual({ x: 500, y: 446 });
    s().undo();
    expect(s().doc!.notes).toBeUndefined();
  });

  it('pastes what was copied, selects all, fits and lays out', () => {
    s().selectNodes(['n1']);
    s().copySelection();
    const n = s().doc!.nodes.length;
    open();
    fireEvent.click(screen.getByTestId('menu-paste'));
    expect(s().doc!.nodes).toHaveLength(n + 1);
    cleanup();
    open();
    fireEvent.click(screen.getByTestId('menu-select-all'));
    expect(s().selectedNodeIds).toHaveLength(n + 1);
    cleanup();
    open();
    fireEvent.click(screen.getByTestId('menu-fit'));
    expect(pane.fitView).toHaveBeenCalledOnce();
    cleanup();
    open();
    fireEvent.click(screen.getByTestId('menu-layout'));
    expect(pane.autoLayout).toHaveBeenCalledOnce();
  });

  it('groups the selected nodes', () => {
    open();
    expect(screen.queryByTestId('menu-group')).toBeNull();
    cleanup();
    s().selectNodes(['n1', 'n2']);
    open();
    fireEvent.click(screen.getByTestId('menu-group'));
    expect(s().doc!.groups![0].nodes).toEqual(['n1', 'n2']);
  });

  it('over a preview offers only what does not edit', () => {
    useStore.setState({ previewNodes: s().nodes, previewEdges: s().edges });
    open();
    expect(labels()).toEqual(['Select all', 'Fit view']);
  });

  it('on a note or group: delete it (a group keeps its nodes)', () => {
    const id = s().addNote({ x: 0, y: 0 })!;
    open({ kind: 'annotation', id: `note:${id}`, ...at });
    fireEvent.click(screen.getByTestId('menu-delete'));
    expect(s().doc!.notes).toBeUndefined();
  });
});

describe('the pane menu from the keyboard', () => {
  it('opens on Shift+F10 and the context-menu key on the focused canvas; focus comes back when it closes', async () => {
    render(<Canvas />);
    await screen.findByTestId('node-n1');
    const canvas = screen.getByTestId('canvas');
    for (const key of [{ key: 'F10', shiftKey: true }, { key: 'ContextMenu' }]) {
      act(() => canvas.focus());
      fireEvent.keyDown(canvas, key);
      const menu = await screen.findByTestId('context-menu');
      expect(menu.getAttribute('aria-label')).toBe('Canvas');
      expect(document.activeElement).toBe(screen.getByTestId('menu-add-here'));
      fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
      await waitFor(() => expect(screen.queryByTestId('context-menu')).toBeNull());
      await waitFor(() => expect(document.activeElement).toBe(canvas));
    }
    // Picking an item gives focus back too.
    act(() => canvas.focus());
    fireEvent.keyDown(canvas, { key: 'F10', shiftKey: true });
    fireEvent.click(await screen.findByTestId('menu-add-note'));
    expect(s().doc!.notes).toHaveLength(1);
    await waitFor(() => expect(document.activeElement).toBe(canvas));
  });

  it('on a focused node opens its menu, and gives focus back to it', async () => {
    render(<Canvas />);
    const node = (await screen.findByTestId('node-n1')).closest<HTMLElement>('.react-flow__node')!;
    act(() => node.focus());
    fireEvent.keyDown(node, { key: 'F10', shiftKey: true });
    expect((await screen.findByTestId('context-menu')).getAttribute('aria-label')).toBe('Node');
    expect(s().selectedNodeIds).toEqual(['n1']);
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(document.activeElement).toBe(node));
  });
});
