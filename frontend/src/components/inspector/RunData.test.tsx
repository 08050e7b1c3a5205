import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../../test/fixtures';

vi.mock('../../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../../store';
import { RunData } from './RunData';
import { REF_MIME } from './references';

const initial = useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen());
});

describe('RunData', () => {
  it('says the node has not run yet', () => {
    render(<RunData nodeId="n1" />);
    expect(screen.getByTestId('run-data')).toHaveTextContent('Not run yet');
  });

  it('shows the newest attempt open, older ones on click, and copies as JSON', async () => {
    const writeText = vi.fn(async () => {});
    Object.assign(navigator, { clipboard: { writeText } });
    useStore.getState().applyRunEvents([
      { seq: 1, time: '', type: 'run_started', run_id: 'r' },
      { seq: 2, time: '', type: 'attempt', run_id: 'r', node_id: 'n1', attempt: 1, arguments: { path: '.' } },
      { seq: 3, time: '', type: 'failure', run_id: 'r', node_id: 'n1', attempt: 1, failure: { error: 'denied', failure_type: 'execution_error' } as never },
      { seq: 4, time: '', type: 'attempt', run_id: 'r', node_id: 'n1', attempt: 2, arguments: { path: '/tmp' } },
      { seq: 5, time: '', type: 'variable_set', run_id: 'r', node_id: 'n1', outputs: { files: ['a'] } },
    ]);
    render(<RunData nodeId="n1" />);
    const items = screen.getAllByTestId('run-data-item');
    expect(items.map((i) => i.getAttribute('data-status'))).toEqual(['ok', 'failed']);
    expect(within(items[0]).getByTestId('run-data-arguments')).toHaveTextContent('"path": "/tmp"');
    expect(within(items[0]).getByTestId('run-data-outputs')).toHaveTextContent('"files"');
    fireEvent.click(within(items[1]).getByRole('button', { name: /attempt 1/i }));
    expect(within(items[1]).getByTestId('run-data-failure')).toHaveTextContent('denied');
    const copy = within(items[1]).getByRole('button', { name: 'Copy failure' });
    await act(async () => {
      fireEvent.click(copy);
    });
    expect(writeText).toHaveBeenCalledWith(expect.stringContaining('"error": "denied"'));
    expect(copy).toHaveTextContent('copied');
    expect(screen.queryByTestId('run-data-cut')).toBeNull();
  });

  it('splits INPUT (arguments and the outputs it read, as they were then) from OUTPUT', () => {
    const set = (seq: number, outputs: Record<string, unknown>) =>
      ({ seq, time: '', type: 'variable_set', run_id: 'r', node_id: 'n1', node_key: 'list', outputs }) as const;
    useStore.getState().applyRunEvents([
      { seq: 1, time: '', type: 'run_started', run_id: 'r' },
      set(2, { count: 3 }),
      { seq: 3, time: '', type: 'node_started', run_id: 'r', node_id: 'n4', node_key: 'sum', reads: ['list', 'loop'] },
      { seq: 4, time: '', type: 'attempt', run_id: 'r', node_id: 'n4', attempt: 1, arguments: { prompt: 'Summarise 3 files' } },
      { seq: 5, time: '', type: 'variable_set', run_id: 'r', node_id: 'n4', node_key: 'sum', outputs: { text: 'three' } },
      set(6, { count: 5 }),
      { seq: 7, time: '', type: 'node_started', run_id: 'r', node_id: 'n4', node_key: 'sum', reads: ['list', 'loop'] },
      { seq: 8, time: '', type: 'attempt', run_id: 'r', node_id: 'n4', attempt: 1, arguments: { prompt: 'Summarise 5 files' } },
    ]);
    render(<RunData nodeId="n4" />);
    const items = screen.getAllByTestId('run-data-item');
    // The newest (running): its input read list as it was then; no output yet.
    const input = within(items[0]).getByTestId('run-data-input');
    expect(within(input).getByTestId('run-data-arguments')).toHaveTextContent('Summarise 5 files');
    const read = within(input).getAllByTestId('run-data-read');
    expect(read.map((r) => r.querySelector('.run-data-label span')?.textContent)).toEqual(['Read from list', 'Read from loop']);
    expect(read[0]).toHaveTextContent('"count": 5');
    expect(read[1]).toHaveTextContent('{}'); // not set yet in this run: read as empty
    expect(within(items[0]).getByTestId('run-data-output')).toHaveTextContent('Running…');
    // The one before read the older outputs, and produced its own.
    fireEvent.click(within(items[1]).getByRole('button', { name: /attempt 1/i }));
    expect(within(items[1]).getAllByTestId('run-data-read')[0]).toHaveTextContent('"count": 3');
    expect(within(within(items[1]).getByTestId('run-data-output')).getByTestId('run-data-outputs')).toHaveTextContent('"three"');
    expect(within(items[1]).getByTestId('run-data-input')).not.toHaveTextContent('three');
  });

  it('says which outputs were cut at a cap, and why', () => {
    useStore.getState().applyRunEvents([
      { seq: 1, time: '', type: 'run_started', run_id: 'r' },
      { seq: 2, time: '', type: 'attempt', run_id: 'r', node_id: 'n1', attempt: 1, arguments: { url: 'https://x.test' } },
      {
        seq: 3,
        time: '',
        type: 'variable_set',
        run_id: 'r',
        node_id: 'n1',
        outputs: { status: 200, body: 'abc', 'weft.truncated': { body: 'keeps at most 1 MiB; give the step save_to' } },
      },
    ]);
    render(<RunData nodeId="n1" />);
    const cut = screen.getByTestId('run-data-cut');
    expect(cut).toHaveTextContent('body was cut at a size limit');
    expect(cut).toHaveTextContent('give the step save_to');
    expect(screen.getByTestId('run-data-outputs')).toHaveTextContent('"weft.truncated"');
  });

  it('lists each output field as a reference to drag (key.field, and {{key.field}} as text) or copy', async () => {
    const writeText = vi.fn(async () => {});
    Object.assign(navigator, { clipboard: { writeText } });
    useStore.getState().applyRunEvents([
      { seq: 1, time: '', type: 'run_started', run_id: 'r' },
      { seq: 2, time: '', type: 'attempt', run_id: 'r', node_id: 'n1', attempt: 1, arguments: { url: 'https://x.test' } },
      { seq: 3, time: '', type: 'variable_set', run_id: 'r', node_id: 'n1', outputs: { status: 200, 'not a name': 1, 'weft.truncated': { body: 'cut' } } },
    ]);
    render(<RunData nodeId="n1" />);
    const fields = screen.getAllByTestId('run-data-field');
    expect(fields.map((f) => f.querySelector('code')?.textContent)).toEqual(['list.status']);
    expect(fields[0]).toHaveAttribute('draggable', 'true');
    const data: Record<string, string> = {};
    const dataTransfer = { setData: (t: string, v: string) => (data[t] = v), effectAllowed: '' };
    fireEvent.dragStart(fields[0], { dataTransfer });
    expect(data).toEqual({ [REF_MIME]: 'list.status', 'text/plain': '{{list.status}}' });
    const copy = within(fields[0]).getByRole('button', { name: 'Copy reference {{list.status}}' });
    await act(async () => {
      fireEvent.click(copy);
    });
    expect(writeText).toHaveBeenCalledWith('{{list.status}}');
    expect(copy).toHaveTextContent('copied');
  });
});
