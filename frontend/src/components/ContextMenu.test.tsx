import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { edgeKey } from '../graph/edit';
import { useStore } from '../store';
import { ContextMenu, type MenuTarget } from './ContextMenu';
import { addFromPalette } from './Palette';

const initial = useStore.getState();
const s = () => useStore.getState();
const at = { screen: { x: 10, y: 10 }, flow: { x: 500, y: 446 } };

beforeEach(() => {
  vi.clearAllMocks();
  useStore.setState(initial, true);
  s().loadDocument(fixtureOpen());
});

const run = { startFrom: vi.fn(async () => {}), pinFromRun: vi.fn(async () => true), unpin: vi.fn() };

function open(target: MenuTarget) {
  const onClose = vi.fn();
  render(<ContextMenu target={target} onClose={onClose} run={run} />);
  return onClose;
}

describe('context menus', () => {
  it('on a node: duplicate, disable and delete, each one undo step', () => {
    open({ kind: 'node', id: 'n1', ...at });
    expect(screen.getAllByRole('menuitem').map((b) => b.textContent)).toEqual([
      'Run from here',
      "Pin the last run's output",
      'Add a node after this one…',
      'Duplicate',
      'Disable',
      'Delete',
    ]);
    expect(document.activeElement).toBe(screen.getAllByRole('menuitem')[0]);
    fireEvent.click(screen.getByTestId('menu-duplicate'));
    expect(s().doc!.nodes).toHaveLength(7);
  });

  it('on a node: runs from it, pins and unpins its data', () => {
    open({ kind: 'node', id: 'n1', ...at });
    fireEvent.click(screen.getByTestId('menu-run-from'));
    expect(run.startFrom).toHaveBeenCalledWith('n1');
    expect(s().sidebarTab).toBe('run');
    cleanup();
    open({ kind: 'node', id: 'n1', ...at });
    fireEvent.click(screen.getByTestId('menu-pin'));
    expect(run.pinFromRun).toHaveBeenCalledWith('n1');
    cleanup();
    s().edit((w) => ({ ...w, pinned: { n1: { stdout: 'x' } } }));
    open({ kind: 'node', id: 'n1', ...at });
    expect(screen.queryByTestId('menu-pin')).toBeNull();
    fireEvent.click(screen.getByTestId('menu-unpin'));
    expect(run.unpin).toHaveBeenCalledWith('n1');
  });

  it('on a node: no run from here while a run goes, no pin on control nodes', () => {
    useStore.setState({ runPhase: 'running' });
    open({ kind: 'node', id: 'n1', ...at });
    expect(screen.queryByTestId('menu-run-from')).toBeNull();
    cleanup();
    useStore.setState({ runPhase: 'idle' });
    open({ kind: 'node', id: 'n3', ...at }); // an If
    expect(screen.getByTestId('menu-run-from')).toBeTruthy();
    expect(screen.queryByTestId('menu-pin')).toBeNull();
  });

  it('on a node: disables an enabled step and enables a disabled one', () => {
    open({ kind: 'node', id: 'n4', ...at }); // n4 is disabled in the fixture
    expect(screen.getByTestId('menu-toggle')).toHaveTextContent('Enable');
    fireEvent.click(screen.getByTestId('menu-toggle'));
    expect(s().doc!.nodes.find((n) => n.id === 'n4')!.enabled).toBeUndefined();
  });

  it('on an edge: inserts the node picked in the palette on it, keeping the branch label', () => {
    const key = edgeKey({ from: 'n3', to: 'n4', output: { type: 'IfTrue' } });
    open({ kind: 'edge', id: key, ...at });
    fireEvent.click(screen.getByTestId('menu-insert'));
    expect(s().pendingConnect).toEqual({ edge: key, position: { x: 500, y: 400 } });
    const [id] = addFromPalette({ type: 'Tool', tool: 'read_file' });
    const edges = s().doc!.edges;
    expect(edges).toContainEqual({ from: 'n3', to: id, output: { type: 'IfTrue' } });
    expect(edges).toContainEqual({ from: id, to: 'n4' });
    expect(edges.some((e) => e.from === 'n3' && e.to === 'n4')).toBe(false);
    expect(s().doc!.nodes.find((n) => n.id === id)!.position).toEqual({ x: 500, y: 400 });
  });

  it('on an edge: deletes it', () => {
    const key = edgeKey({ from: 'n1', to: 'n2' });
    open({ kind: 'edge', id: key, ...at });
    fireEvent.click(screen.getByTestId('menu-delete'));
    expect(s().doc!.edges.some((e) => e.from === 'n1' && e.to === 'n2')).toBe(false);
  });

  it('on empty canvas: adds the node picked in the palette there, unconnected', () => {
    const edges = s().doc!.edges.length;
    open({ kind: 'pane', ...at });
    fireEvent.click(screen.getByTestId('menu-add-here'));
    const [id] = addFromPalette({ type: 'Tool', tool: 'log' });
    expect(s().doc!.nodes.find((n) => n.id === id)!.position).toEqual({ x: 500, y: 400 });
    expect(s().doc!.edges).toHaveLength(edges);
  });

  it('closes on Escape and moves with the arrows', () => {
    const onClose = open({ kind: 'node', id: 'n1', ...at });
    const items = screen.getAllByRole('menuitem');
    fireEvent.keyDown(items[0], { key: 'ArrowDown' });
    expect(document.activeElement).toBe(items[1]);
    fireEvent.keyDown(items[1], { key: 'ArrowUp' });
    fireEvent.keyDown(items[0], { key: 'ArrowUp' });
    expect(document.activeElement).toBe(items[items.length - 1]);
    fireEvent.keyDown(items[items.length - 1], { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });
});
