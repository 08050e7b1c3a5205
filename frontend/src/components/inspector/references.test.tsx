import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, TOOLS } from '../../test/fixtures';
import type { Reference } from '../../types';

vi.mock('../../api', () => ({
  api: { checkCondition: vi.fn(async () => ''), referencesAt: vi.fn() },
  errorMessage: String,
}));

import { api } from '../../api';
import { useStore } from '../../store';
import { Inspector } from './Inspector';
import { openBrace, REF_MIME } from './references';

const REFS: Reference[] = [
  { key: 'inputs', field: 'name', label: 'Name', type: 'string' },
  { key: 'list', field: 'count', node_id: 'n1', label: 'List files', type: 'integer' },
  { key: 'list', field: 'success', node_id: 'n1', label: 'List files', type: 'boolean' },
  { key: 'loop', field: 'iteration', node_id: 'n2', label: 'Each file', type: 'integer' },
];

const initial = useStore.getState();
const s = () => useStore.getState();
const node = (id: string) => s().doc!.nodes.find((n) => n.id === id)!;
const refsAt = vi.mocked(api.referencesAt);

beforeEach(() => {
  useStore.setState(initial, true);
  s().setTools(TOOLS);
  s().loadDocument(fixtureOpen());
  refsAt.mockReset();
  refsAt.mockImplementation(async () => REFS);
});

function open(id: string) {
  act(() => s().selectNodes([id]));
  return render(<Inspector />);
}

/** type sets a field's text with the caret at its end, as typing does. */
function type(el: HTMLElement, text: string) {
  fireEvent.change(el, { target: { value: text } });
}

const listed = () => within(screen.getByRole('listbox')).getAllByRole('option');
const options = () => listed().map((o) => o.textContent);
const active = () => listed().find((o) => o.getAttribute('aria-selected') === 'true')?.querySelector('code')?.textContent;

describe('the {{ completion', () => {
  it('offers, after {{, what Go says the step can read, narrows as you type and inserts with Enter', async () => {
    open('n4');
    const prompt = screen.getByTestId<HTMLTextAreaElement>('inspector-prompt');
    type(prompt, 'Count: {{');
    await screen.findByRole('listbox');
    expect(refsAt).toHaveBeenCalledWith(s().doc, 'n4', '');
    expect(options()).toEqual(['inputs.nameName · string', 'list.countList files · integer', 'list.successList files · boolean', 'loop.iterationEach file · integer']);
    // The combobox pattern: the field names the list and its active option.
    const list = screen.getByRole('listbox');
    expect(prompt).toHaveAttribute('aria-autocomplete', 'list');
    expect(prompt).toHaveAttribute('aria-controls', list.id);
    expect(prompt.getAttribute('aria-activedescendant')).toBe(within(list).getAllByRole('option')[0].id);

    type(prompt, 'Count: {{ cou');
    expect(options()).toEqual(['list.countList files · integer']);
    fireEvent.keyDown(prompt, { key: 'Enter' });
    expect(prompt.value).toBe('Count: {{ list.count }}');
    expect(prompt.selectionStart).toBe('Count: {{ list.count }}'.length);
    expect(node('n4').params.prompt).toBe('Count: {{ list.count }}');
    expect(screen.queryByTestId('ref-popup')).toBeNull();
  });

  it('moves with the arrows (wrapping), inserts with Tab, and closes on Escape without leaving the field', async () => {
    open('n4');
    const prompt = screen.getByTestId<HTMLTextAreaElement>('inspector-prompt');
    type(prompt, '{{');
    await screen.findByRole('listbox');
    expect(active()).toBe('inputs.name');
    fireEvent.keyDown(prompt, { key: 'ArrowDown' });
    fireEvent.keyDown(prompt, { key: 'ArrowDown' });
    expect(active()).toBe('list.success');
    expect(prompt.getAttribute('aria-activedescendant')).toBe(listed()[2].id);
    fireEvent.keyDown(prompt, { key: 'ArrowUp' });
    fireEvent.keyDown(prompt, { key: 'ArrowUp' });
    fireEvent.keyDown(prompt, { key: 'ArrowUp' });
    expect(active()).toBe('loop.iteration');
    fireEvent.keyDown(prompt, { key: 'Tab' });
    expect(prompt.value).toBe('{{ loop.iteration }}');

    type(prompt, '{{ loop.iteration }} and {{');
    await screen.findByRole('listbox');
    const outside = vi.fn();
    document.addEventListener('keydown', outside);
    fireEvent.keyDown(prompt, { key: 'Escape' });
    document.removeEventListener('keydown', outside);
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(outside).not.toHaveBeenCalled(); // the Escape closed the list only
    expect(prompt).not.toHaveAttribute('aria-activedescendant');
    // Enter with the list closed is the textarea's own.
    fireEvent.keyDown(prompt, { key: 'Enter' });
    expect(prompt.value).toBe('{{ loop.iteration }} and {{');
  });

  it('a }} already typed is the reference’s own; a click on an option inserts it', async () => {
    open('n4');
    const prompt = screen.getByTestId<HTMLTextAreaElement>('inspector-prompt');
    fireEvent.change(prompt, { target: { value: 'a {{}} b' } });
    prompt.setSelectionRange(4, 4);
    fireEvent.select(prompt);
    await screen.findByRole('listbox');
    fireEvent.click(listed()[1]);
    expect(prompt.value).toBe('a {{ list.count }} b');
  });

  it('asks for the place of each condition and writes key.field there, after {{ or Ctrl+Space', async () => {
    open('n3');
    const cond = screen.getByTestId<HTMLTextAreaElement>('inspector-condition');
    type(cond, 'list.count > 2 && {{');
    await screen.findByRole('listbox');
    expect(refsAt).toHaveBeenLastCalledWith(s().doc, 'n3', '');
    fireEvent.keyDown(cond, { key: 'ArrowDown' });
    fireEvent.keyDown(cond, { key: 'Enter' });
    expect(cond.value).toBe('list.count > 2 && list.count');

    // The verify condition reads the step itself too: its own place.
    const verify = screen.getByTestId<HTMLTextAreaElement>('inspector-verify');
    type(verify, 'x');
    fireEvent.keyDown(verify, { key: ' ', ctrlKey: true });
    await screen.findByRole('listbox');
    expect(refsAt).toHaveBeenLastCalledWith(s().doc, 'n3', 'verify');
    fireEvent.keyDown(verify, { key: 'Enter' });
    expect(verify.value).toBe('xinputs.name');
  });

  it('asks for the workflow’s own done_when as node ""', async () => {
    render(<Inspector />);
    type(screen.getByTestId('workflow-done-condition'), '{{');
    await screen.findByRole('listbox');
    expect(refsAt).toHaveBeenLastCalledWith(s().doc, '', 'done_when');
  });

  it('asks for a Loop’s exit condition as such', async () => {
    open('n2');
    type(screen.getByTestId('inspector-exit-condition'), '{{');
    await screen.findByRole('listbox');
    expect(refsAt).toHaveBeenLastCalledWith(s().doc, 'n2', 'exit_condition');
  });

  it('says when nothing matches or Go could not answer; fields that take no references stay plain', async () => {
    open('n4');
    const prompt = screen.getByTestId<HTMLTextAreaElement>('inspector-prompt');
    type(prompt, '{{ zzz');
    expect(await screen.findByRole('status')).toHaveTextContent('No reference here matches “zzz”.');
    refsAt.mockImplementation(async () => {
      throw new Error('boom');
    });
    type(prompt, 'x');
    type(prompt, 'x {{');
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not list the references: Error: boom');

    fireEvent.blur(prompt);
    expect(screen.queryByTestId('ref-popup')).toBeNull();
    type(screen.getByTestId('inspector-name'), '{{');
    expect(screen.queryByTestId('ref-popup')).toBeNull();
    expect(screen.getByTestId('inspector-name')).not.toHaveAttribute('aria-autocomplete');
  });
});

describe('dropping an output field', () => {
  const drop = (el: HTMLElement, name: string) => {
    const data: Record<string, string> = { [REF_MIME]: name, 'text/plain': `{{${name}}}` };
    const dataTransfer = { types: Object.keys(data), getData: (t: string) => data[t] ?? '', dropEffect: 'none' };
    fireEvent.dragOver(el, { dataTransfer });
    fireEvent.drop(el, { dataTransfer });
  };

  it('inserts the reference at the caret of the field being edited, else at its end', () => {
    open('n4');
    const prompt = screen.getByTestId<HTMLTextAreaElement>('inspector-prompt');
    type(prompt, 'Count: ');
    drop(prompt, 'list.count');
    expect(prompt.value).toBe('Count: {{list.count}}');
    expect(node('n4').params.prompt).toBe('Count: {{list.count}}');
    prompt.focus();
    prompt.setSelectionRange(0, 0);
    drop(prompt, 'loop.iteration');
    expect(prompt.value).toBe('{{loop.iteration}}Count: {{list.count}}');
  });

  it('writes key.field in a condition and leaves a field that takes no references alone', () => {
    open('n3');
    const cond = screen.getByTestId<HTMLTextAreaElement>('inspector-condition');
    type(cond, '');
    drop(cond, 'list.count');
    expect(cond.value).toBe('list.count');
    const name = screen.getByTestId<HTMLInputElement>('inspector-name');
    drop(name, 'list.count');
    expect(name.value).toBe('Is big');
  });
});

describe('dragging an output from the run data', () => {
  it('drops it into the step’s prompt as a reference', () => {
    s().applyRunEvents([
      { seq: 1, time: '', type: 'run_started', run_id: 'r' },
      { seq: 2, time: '', type: 'variable_set', run_id: 'r', node_id: 'n1', node_key: 'list', outputs: { count: 3 } },
      { seq: 3, time: '', type: 'node_started', run_id: 'r', node_id: 'n4', node_key: 'sum', reads: ['list'] },
      { seq: 4, time: '', type: 'attempt', run_id: 'r', node_id: 'n4', attempt: 1, arguments: { prompt: 'x' } },
    ]);
    open('n4');
    const data: Record<string, string> = {};
    const dataTransfer = {
      setData: (t: string, v: string) => (data[t] = v),
      getData: (t: string) => data[t] ?? '',
      get types() {
        return Object.keys(data);
      },
      effectAllowed: '',
      dropEffect: '',
    };
    const chip = screen.getAllByTestId('run-data-field').find((f) => f.textContent?.includes('list.count'))!;
    fireEvent.dragStart(chip, { dataTransfer });
    const prompt = screen.getByTestId<HTMLTextAreaElement>('inspector-prompt');
    type(prompt, 'Count: ');
    fireEvent.dragOver(prompt, { dataTransfer });
    fireEvent.drop(prompt, { dataTransfer });
    expect(node('n4').params.prompt).toBe('Count: {{list.count}}');
  });
});

describe('openBrace', () => {
  it('finds the {{ the caret types after, and nothing once it is closed or holds more than a name', () => {
    expect(openBrace('a {{ li', 7)).toEqual({ from: 2, query: 'li' });
    expect(openBrace('a {{ li', 4)).toEqual({ from: 2, query: '' });
    expect(openBrace('a {{ li }} b', 12)).toBeNull();
    expect(openBrace('a {{ x + y', 10)).toBeNull();
    expect(openBrace('no brace', 8)).toBeNull();
  });
});
