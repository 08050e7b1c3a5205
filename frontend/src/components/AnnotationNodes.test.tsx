// Notes and groups drawn on the canvas: a note's text is text (markup in
// it is never made into elements), edited in place; colours and titles
// are edits of the document.
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { Canvas } from './Canvas';

const initial = useStore.getState();
const s = () => useStore.getState();
const hostile = '<img src=x onerror="window.pwned=1"><b>bold?</b>\n{{list.stdout}} && rm -rf ~';

beforeEach(() => {
  useStore.setState(initial, true);
  const w = fixtureWorkflow();
  w.notes = [{ id: 'note1', text: hostile, position: { x: 0, y: 300 }, size: { width: 240, height: 140 }, color: 'blue' }];
  w.groups = [{ id: 'g1', title: 'Listing', position: { x: -30, y: -60 }, size: { width: 600, height: 200 }, nodes: ['n1', 'n2'] }];
  s().loadDocument(fixtureOpen({ workflow: w }));
});

describe('notes and groups on the canvas', () => {
  it('shows a note as text, never as HTML', async () => {
    render(<Canvas />);
    const note = await screen.findByTestId('sticky-note');
    const text = within(note).getByTestId('note-text');
    expect(text.textContent).toBe(hostile);
    expect(note.querySelector('img, b')).toBeNull();
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
    expect(note.className).toContain('color-blue');
  });

  it('edits a note in place: one undo step for a burst of typing; Escape ends it', async () => {
    render(<Canvas />);
    const note = await screen.findByTestId('sticky-note');
    fireEvent.doubleClick(note);
    const area = await screen.findByTestId('note-textarea');
    expect(document.activeElement).toBe(area);
    fireEvent.change(area, { target: { value: 'Ask Ana' } });
    fireEvent.change(area, { target: { value: 'Ask Ana first' } });
    expect(s().doc!.notes![0].text).toBe('Ask Ana first');
    fireEvent.keyDown(area, { key: 'Escape' });
    expect(screen.queryByTestId('note-textarea')).toBeNull();
    act(() => s().undo());
    expect(s().doc!.notes![0].text).toBe(hostile);
    // From the keyboard: Enter on the focused note edits it.
    fireEvent.keyDown(screen.getByTestId('note-text'), { key: 'Enter' });
    expect(document.activeElement).toBe(await screen.findByTestId('note-textarea'));
  });

  it('colours a selected note and renames a group', async () => {
    render(<Canvas />);
    await screen.findByTestId('sticky-note');
    act(() => s().onAnnotationsChange([{ type: 'select', id: 'note:note1', selected: true }]));
    fireEvent.click(await screen.findByTestId('note-color-green'));
    expect(s().doc!.notes![0].color).toBe('green');
    expect(screen.getByTestId('sticky-note').className).toContain('color-green');

    const group = screen.getByTestId('canvas-group');
    expect(within(group).getByTestId('group-title').textContent).toBe('Listing');
    fireEvent.doubleClick(within(group).getByTestId('group-title'));
    const input = await screen.findByTestId('group-title-input');
    fireEvent.change(input, { target: { value: 'List the files' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(s().doc!.groups![0].title).toBe('List the files');
    expect(screen.getByTestId('group-title').textContent).toBe('List the files');
  });

  it('draws groups behind the steps and does not open the inspector for them', async () => {
    render(<Canvas />);
    await screen.findByTestId('canvas-group');
    const order = [...document.querySelectorAll<HTMLElement>('.react-flow__node')].map((n) => n.dataset.id);
    expect(order.indexOf('group:g1')).toBeLessThan(order.indexOf('n1'));
    act(() => s().setSidebarTab('assistant'));
    fireEvent.doubleClick(screen.getByTestId('canvas-group'));
    expect(s().sidebarTab).toBe('assistant');
  });
});

describe('fitting the view', () => {
  it('takes in the notes and groups too', async () => {
    const { canvasBridge } = await import('./canvasBridge');
    render(<Canvas />);
    await screen.findByTestId('sticky-note');
    // A note far below the steps.
    act(() => s().placeAnnotation('note', 'note1', { x: 0, y: 3000 }));
    act(() => canvasBridge.fitView({ duration: 0 }));
    await new Promise((r) => setTimeout(r, 0));
    const v = canvasBridge.getViewport()!;
    // The note's bottom edge (3000 + 140) is inside the 800 px high canvas.
    expect((3140 * v.zoom + v.y) | 0).toBeLessThanOrEqual(800);
    expect(v.y + 3000 * v.zoom).toBeGreaterThanOrEqual(0);
  });
});
