// Keyboard shortcuts, the shortcuts sheet, the sidebar tabs and the modal
// dialog, through the whole App.
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, TOOLS } from '../test/fixtures';

vi.mock('../api', () => ({
  api: {
    setWindowTitle: vi.fn(),
    log: vi.fn(),
    validateWorkflow: vi.fn(async () => ({ valid: true, problems: [] })),
    checkCondition: vi.fn(async () => ''),
    setDirty: vi.fn(async () => {}),
    autosave: vi.fn(async () => {}),
    clearAutosave: vi.fn(async () => {}),
    recentFiles: vi.fn(async () => []),
    onCloseRequested: vi.fn(() => () => {}),
    onAssistantProgress: vi.fn(() => () => {}),
    assistantHistory: vi.fn(async () => ({ messages: [], path: '', warnings: [] })),
    readTestCases: vi.fn(async () => ({ file: '/tmp/fixture.tests.json', exists: false, sha256: '', cases: [] })),
  },
  errorMessage: String,
}));

import App from '../App';
import { useStore } from '../store';
import { makeActions } from '../store/actions';

const initial = useStore.getState();
const s = () => useStore.getState();
const key = (k: string, o: KeyboardEventInit = {}, target: Window | Element = window) =>
  act(() => {
    fireEvent.keyDown(target, { key: k, ...o });
  });

beforeEach(() => {
  useStore.setState(initial, true);
  s().setTools(TOOLS);
  s().loadDocument(fixtureOpen());
});

function renderApp() {
  return render(<App actions={makeActions(useStore)} autoload={false} />);
}

describe('keyboard shortcuts', () => {
  it('deletes, undoes and redoes from the keyboard, but not while typing', async () => {
    renderApp();
    await screen.findByTestId('node-n4');
    act(() => s().selectNodes(['n4']));
    // Delete typed in an input edits the input, not the canvas.
    const name = screen.getByTestId('inspector-name');
    key('Delete', {}, name);
    expect(s().doc!.nodes).toHaveLength(6);
    key('Delete');
    expect(s().doc!.nodes.map((n) => n.id)).not.toContain('n4');
    key('z', { ctrlKey: true });
    expect(s().doc!.nodes.map((n) => n.id)).toContain('n4');
    key('z', { ctrlKey: true, shiftKey: true });
    expect(s().doc!.nodes).toHaveLength(5);
    key('z', { metaKey: true });
    key('y', { ctrlKey: true });
    expect(s().doc!.nodes).toHaveLength(5);
    key('Backspace');
    expect(s().doc!.nodes).toHaveLength(5); // nothing selected any more
  });

  it('copies, pastes and duplicates the selection', async () => {
    renderApp();
    await screen.findByTestId('node-n1');
    act(() => s().selectNodes(['n1']));
    key('c', { ctrlKey: true });
    expect(await screen.findByTestId('toast')).toHaveTextContent('Copied 1 node');
    key('v', { ctrlKey: true });
    expect(s().doc!.nodes.at(-1)!.key).toBe('list_2');
    key('d', { ctrlKey: true });
    expect(s().doc!.nodes.at(-1)!.key).toBe('list_3');
    expect(s().past).toHaveLength(2);
    key('a', { ctrlKey: true });
    expect(s().selectedNodeIds).toHaveLength(8);
    key('Escape');
    expect(s().selectedNodeIds).toHaveLength(0);
  });

  it('Select all and Copy take the notes too, and say items', async () => {
    renderApp();
    await screen.findByTestId('node-n1');
    act(() => void s().addNote({ x: 0, y: 400 }, 'why'));
    key('a', { ctrlKey: true });
    key('c', { ctrlKey: true });
    expect(await screen.findByTestId('toast')).toHaveTextContent(`Copied ${s().doc!.nodes.length + 1} items`);
  });

  it('undoes a field edit from inside the inspector field', async () => {
    renderApp();
    act(() => s().selectNodes(['n1']));
    const name = await screen.findByTestId<HTMLInputElement>('inspector-name');
    fireEvent.change(name, { target: { value: 'Changed' } });
    key('z', { ctrlKey: true }, name);
    expect(name.value).toBe('List files');
    // The palette search keeps its own undo.
    const search = screen.getByTestId('palette-search');
    key('z', { ctrlKey: true }, search);
    expect(s().future).toHaveLength(1);
  });

  it('opens the find box on the canvas with Ctrl+F', async () => {
    renderApp();
    key('f', { ctrlKey: true });
    const input = await screen.findByTestId('find-input');
    fireEvent.change(input, { target: { value: 'route' } });
    expect(s().selectedNodeIds).toEqual(['n5']);
  });

  it('opens the shortcuts sheet with ? and the toolbar button', async () => {
    renderApp();
    key('?');
    const sheet = await screen.findByTestId('shortcuts-sheet');
    expect(within(sheet).getByText('Undo')).toBeInTheDocument();
    expect(within(sheet).getByText('Duplicate selected nodes')).toBeInTheDocument();
    // While it is open, canvas keys do nothing.
    act(() => s().selectNodes(['n1']));
    key('Delete');
    expect(s().doc!.nodes).toHaveLength(6);
    key('Escape');
    expect(screen.queryByTestId('shortcuts-sheet')).toBeNull();
    fireEvent.click(screen.getByTestId('shortcuts-button'));
    expect(screen.getByTestId('shortcuts-sheet')).toBeInTheDocument();
  });

  it('refuses an illegal connection with a toast that says why', async () => {
    renderApp();
    await screen.findByTestId('node-n1');
    const r = s().connect({ source: 'n1', sourceHandle: 'out', target: 'n1', targetHandle: 'in' });
    expect(r.ok).toBe(false);
    act(() => s().toast(!r.ok ? r.reason : ''));
    expect(await screen.findByTestId('toast')).toHaveTextContent('cannot connect to itself');
  });
});

describe('layout', () => {
  it('has the palette, the canvas and a sidebar with Inspector, Assistant, Run and Tests tabs', async () => {
    renderApp();
    expect(screen.getByTestId('palette')).toBeInTheDocument();
    expect(screen.getByTestId('canvas')).toBeInTheDocument();
    expect(screen.getAllByRole('tab').map((t) => t.textContent?.trim())).toEqual(['Inspector', 'Assistant', 'Run', 'Tests']);
    expect(screen.getByTestId('panel-inspector')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('tab-run'));
    expect(screen.getByTestId('panel-run')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('tab-tests'));
    expect(await within(screen.getByTestId('panel-tests')).findByTestId('tests-empty')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('tab-inspector'));
    act(() => s().selectNodes(['n3']));
    expect(screen.getByTestId('inspector-node')).toHaveAttribute('data-node-id', 'n3');
  });

  it('shows a dialog and resolves with the button chosen', async () => {
    renderApp();
    let answer = '';
    act(() => {
      void s()
        .ask({ title: 'Save changes?', message: 'm', buttons: [{ id: 'save', label: 'Save', kind: 'primary' }, { id: 'cancel', label: 'Cancel' }], cancelId: 'cancel' })
        .then((a) => (answer = a));
    });
    const dialog = await screen.findByTestId('dialog');
    expect(dialog).toHaveTextContent('Save changes?');
    expect(screen.getByTestId('dialog-save')).toHaveFocus();
    await act(async () => {
      fireEvent.keyDown(window, { key: 'Escape' });
    });
    expect(answer).toBe('cancel');
    expect(screen.queryByTestId('dialog')).toBeNull();
  });
});
