import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, TOOLS } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { Palette, paletteEntries, searchEntries } from './Palette';

const initial = useStore.getState();
const s = () => useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
  s().setTools(TOOLS);
  s().loadDocument(fixtureOpen());
});

describe('palette search', () => {
  const entries = paletteEntries(TOOLS);

  it('lists the node types, then built-in and MCP tools', () => {
    expect(entries.map((e) => e.group)).toEqual([...Array(8).fill('Nodes'), 'Built-in tools', 'Built-in tools', 'MCP: files']);
    expect(searchEntries(entries, '')).toBe(entries);
  });

  it('matches names first, then descriptions, every word', () => {
    expect(searchEntries(entries, 'http').map((e) => e.id)).toEqual(['tool:http_request']);
    expect(searchEntries(entries, 'LOOP').map((e) => e.id)).toEqual(['type:Loop', 'type:EndLoop']);
    // A name that starts with the word beats one that contains it.
    expect(searchEntries(entries, 'file').map((e) => e.id).slice(0, 2)).toEqual(['tool:files.search', 'tool:read_file']);
    expect(searchEntries(entries, 'files search').map((e) => e.id)).toEqual(['tool:files.search']);
    expect(searchEntries(entries, 'classify').map((e) => e.id)).toEqual(['type:AiTransform']);
    expect(searchEntries(entries, 'sub-workflow').map((e) => e.id)).toEqual(['type:Workflow']);
    expect(searchEntries(entries, 'zzz')).toEqual([]);
  });
});

describe('Palette', () => {
  it('filters as you type and adds a tool node with its tool set', () => {
    render(<Palette />);
    fireEvent.change(screen.getByTestId('palette-search'), { target: { value: 'read' } });
    const items = screen.getAllByRole('listitem').map((li) => li.querySelector('button')!);
    expect(items.map((i) => i.getAttribute('data-testid'))).toEqual(['palette-tool:read_file']);
    fireEvent.click(items[0]);
    const added = s().doc!.nodes.at(-1)!;
    expect(added).toMatchObject({ type: 'Tool', name: 'Read file', key: 'read_file', params: { tool: 'read_file' } });
    expect(s().selectedNodeIds).toEqual([added.id]);
  });

  it('adds the first match on Enter and says when nothing matches', () => {
    render(<Palette />);
    const search = screen.getByTestId('palette-search');
    fireEvent.change(search, { target: { value: 'switch' } });
    fireEvent.keyDown(search, { key: 'Enter' });
    expect(s().doc!.nodes.at(-1)!.type).toBe('Switch');
    fireEvent.change(search, { target: { value: 'nothing like this' } });
    expect(screen.getByTestId('palette')).toHaveTextContent('Nothing matches');
  });

  it('adds after the selected node, connected to it', () => {
    act(() => s().edit((w) => ({ ...w, edges: w.edges.filter((e) => e.from !== 'n4') })));
    act(() => s().selectNodes(['n4']));
    render(<Palette />);
    fireEvent.click(within(screen.getByTestId('palette')).getByTestId('palette-type:If'));
    const added = s().doc!.nodes.at(-1)!;
    expect(s().doc!.edges.at(-1)).toEqual({ from: 'n4', to: added.id });
    const n4 = s().doc!.nodes.find((n) => n.id === 'n4')!;
    expect(added.position!.x).toBeGreaterThan(n4.position!.x);
  });

  it('adds the node a connection dropped on empty canvas asked for, connected from its handle', () => {
    act(() => s().edit((w) => ({ ...w, edges: w.edges.filter((e) => !(e.from === 'n3' && e.output?.type === 'IfFalse')) })));
    act(() => s().setPendingConnect({ source: 'n3', sourceHandle: 'false', position: { x: 700, y: 300 } }));
    render(<Palette />);
    expect(screen.getByTestId('palette-pending')).toHaveTextContent('Pick a node to add and connect.');
    fireEvent.click(screen.getByTestId('palette-tool:read_file'));
    const added = s().doc!.nodes.at(-1)!;
    expect(added.position).toEqual({ x: 700, y: 300 });
    expect(s().doc!.edges.at(-1)).toEqual({ from: 'n3', to: added.id, output: { type: 'IfFalse' } });
    expect(s().pendingConnect).toBeNull();
    expect(s().past).toHaveLength(2); // the edit above, then add-and-connect as one step
  });

  it('adds the node a connection dragged from an input asked for, connected into that input', () => {
    act(() => s().setPendingConnect({ target: 'n1', position: { x: -300, y: 0 } }));
    render(<Palette />);
    fireEvent.click(screen.getByTestId('palette-tool:read_file'));
    const added = s().doc!.nodes.at(-1)!;
    expect(added.position).toEqual({ x: -300, y: 0 });
    expect(s().doc!.edges.at(-1)).toEqual({ from: added.id, to: 'n1' });
    expect(s().pendingConnect).toBeNull();
  });

  it('puts the node spec on a drag', () => {
    render(<Palette />);
    const data: Record<string, string> = {};
    const dataTransfer = { setData: (k: string, v: string) => (data[k] = v), effectAllowed: '' };
    fireEvent.dragStart(screen.getByTestId('palette-tool:http_request'), { dataTransfer });
    expect(JSON.parse(data['application/x-weft-node'])).toEqual({ type: 'Tool', tool: 'http_request' });
  });
});
