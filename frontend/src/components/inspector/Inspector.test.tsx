// The inspector: forms generated from tool JSON Schemas, key validation,
// switch cases, the live condition check, and undo grouping of field edits.
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, TOOLS } from '../../test/fixtures';

vi.mock('../../api', () => ({
  api: {
    checkCondition: vi.fn(async (s: string) => (s.includes('&&') && s.trim().endsWith('&&') ? 'unexpected end of expression' : '')),
  },
  errorMessage: String,
}));

import { api } from '../../api';
import { useStore } from '../../store';
import { historyClock } from '../../store/workflowSlice';
import { Inspector } from './Inspector';


const initial = useStore.getState();
const s = () => useStore.getState();
const node = (id: string) => s().doc!.nodes.find((n) => n.id === id)!;

beforeEach(() => {
  useStore.setState(initial, true);
  s().setTools(TOOLS);
  s().loadDocument(fixtureOpen());
  let t = 0;
  historyClock.now = () => (t += 10);
});

function select(id: string) {
  act(() => s().selectNodes([id]));
}

describe('Inspector', () => {
  it('shows the workflow when nothing is selected, and several nodes as a group', () => {
    render(<Inspector />);
    expect(screen.getByTestId('inspector-workflow')).toHaveTextContent('6 nodes, 7 edges');
    fireEvent.change(screen.getByTestId('inspector-workflow-name'), { target: { value: 'Renamed flow' } });
    expect(s().doc!.name).toBe('Renamed flow');
    act(() => s().selectNodes(['n1', 'n3']));
    expect(screen.getByTestId('inspector-multi')).toHaveTextContent('2 nodes selected');
    fireEvent.click(within(screen.getByTestId('inspector-multi')).getByText('Disable'));
    expect(node('n1').enabled).toBe(false);
    expect(node('n3').enabled).toBe(false);
  });

  it('builds the arguments form from the tool’s JSON Schema', () => {
    act(() => s().updateNode('n1', (n) => ({ ...n, params: { tool: 'http_request', arguments: { method: 'GET', extra: 1 } } })));
    select('n1');
    render(<Inspector />);
    // Required fields first, marked; descriptions shown.
    const fields = screen.getAllByTestId(/^argfield-/).map((e) => e.getAttribute('data-testid'));
    expect(fields).toEqual(['argfield-method', 'argfield-url', 'argfield-headers', 'argfield-body', 'argfield-retries', 'argfield-follow', 'argfield-extra']);
    expect(within(screen.getByTestId('argfield-url')).getByLabelText('required')).toBeInTheDocument();
    expect(within(screen.getByTestId('argfield-headers')).queryByLabelText('required')).toBeNull();
    expect(screen.getByTestId('argfield-url')).toHaveTextContent('Required.');
    expect(screen.getByTestId('missing-args')).toHaveTextContent('1 required missing');
    expect(screen.getByTestId('tool-outputs')).toHaveTextContent('list.status');

    // enum → select
    const method = screen.getByTestId<HTMLSelectElement>('arg-method');
    expect(method.tagName).toBe('SELECT');
    expect([...method.options].map((o) => o.textContent)).toEqual(['(not set)', 'GET', 'POST']);
    fireEvent.change(method, { target: { value: '"POST"' } });
    expect(node('n1').params.arguments).toMatchObject({ method: 'POST' });

    // string
    fireEvent.change(screen.getByTestId('arg-url'), { target: { value: 'https://example.test/{{list.count}}' } });
    expect(node('n1').params.arguments!.url).toBe('https://example.test/{{list.count}}');
    expect(screen.queryByTestId('missing-args')).toBeNull();
    // a long string gets a text area
    expect(screen.getByTestId('arg-body').tagName).toBe('TEXTAREA');

    // object as JSON: invalid JSON stays a draft with the reason; valid JSON commits
    const headers = screen.getByTestId('arg-headers');
    fireEvent.change(headers, { target: { value: '{"Accept": ' } });
    expect(within(screen.getByTestId('argfield-headers')).getByRole('alert')).toHaveTextContent(/Not valid JSON/);
    expect(node('n1').params.arguments!.headers).toBeUndefined();
    fireEvent.change(headers, { target: { value: '["x"]' } });
    expect(within(screen.getByTestId('argfield-headers')).getByRole('alert')).toHaveTextContent('Expected a JSON object.');
    fireEvent.change(headers, { target: { value: '{"Accept": "text/csv"}' } });
    expect(node('n1').params.arguments!.headers).toEqual({ Accept: 'text/csv' });

    // integer: checked, minimum respected, empty removes it
    const retries = screen.getByTestId('arg-retries');
    fireEvent.change(retries, { target: { value: '2.5' } });
    expect(within(screen.getByTestId('argfield-retries')).getByRole('alert')).toHaveTextContent('Enter a whole number.');
    fireEvent.change(retries, { target: { value: '-1' } });
    expect(within(screen.getByTestId('argfield-retries')).getByRole('alert')).toHaveTextContent('At least 0.');
    fireEvent.change(retries, { target: { value: '3' } });
    expect(node('n1').params.arguments!.retries).toBe(3);
    fireEvent.change(retries, { target: { value: '' } });
    expect('retries' in node('n1').params.arguments!).toBe(false);

    // boolean: default, true, false
    const follow = screen.getByTestId<HTMLSelectElement>('arg-follow');
    expect(follow.options[0].textContent).toBe('default (true)');
    fireEvent.change(follow, { target: { value: 'false' } });
    expect(node('n1').params.arguments!.follow).toBe(false);

    // an argument the schema does not list is kept and edited as JSON
    expect(screen.getByTestId('argfield-extra')).toHaveTextContent("Not in the tool's schema");
  });

  it('shows an argument of the wrong kind as JSON', () => {
    act(() => s().updateNode('n1', (n) => ({ ...n, params: { tool: 'http_request', arguments: { method: { verb: 'GET' }, retries: [2] } } })));
    select('n1');
    render(<Inspector />);
    expect(screen.getByTestId<HTMLSelectElement>('arg-method').selectedOptions[0].textContent).toBe('{"verb":"GET"} (not allowed)');
    expect(screen.getByTestId<HTMLInputElement>('arg-retries').value).toBe('[2]');
  });

  it('switches the tool from the picker, built-in and MCP tools grouped', () => {
    select('n1');
    render(<Inspector />);
    const picker = screen.getByTestId<HTMLSelectElement>('inspector-tool');
    expect([...picker.querySelectorAll('optgroup')].map((g) => g.label)).toEqual(['Built-in', 'MCP: files']);
    expect(picker.value).toBe('fs.list');
    expect(picker.options[1].textContent).toBe('fs.list (not in the catalog)');
    fireEvent.change(picker, { target: { value: 'read_file' } });
    expect(node('n1').params.tool).toBe('read_file');
    // The old argument "path" fits read_file's schema.
    expect(screen.getByTestId<HTMLInputElement>('arg-path').value).toBe('.');
  });

  it('edits a sub-workflow: its file as text, its inputs as a JSON object', () => {
    act(() => s().updateNode('n1', (n) => ({ ...n, type: 'Workflow', params: { path: '', inputs: {} } })));
    select('n1');
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('inspector-workflow-path'), { target: { value: 'backup-notes.weft.json' } });
    expect(node('n1').params.path).toBe('backup-notes.weft.json');
    const inputs = screen.getByTestId('inspector-workflow-inputs');
    fireEvent.change(inputs, { target: { value: '["not", "an object"]' } });
    fireEvent.blur(inputs);
    expect(screen.getByText('Expected a JSON object.')).toBeInTheDocument();
    fireEvent.change(inputs, { target: { value: '{"name": "{{list.stdout}}; rm -rf /"}' } });
    fireEvent.blur(inputs);
    expect(node('n1').params.inputs).toEqual({ name: '{{list.stdout}}; rm -rf /' });
  });

  it('makes one undo step per burst of typing in a field', () => {
    select('n1');
    render(<Inspector />);
    const name = screen.getByTestId('inspector-name');
    for (const v of ['L', 'Li', 'Lis', 'List']) fireEvent.change(name, { target: { value: v } });
    expect(node('n1').name).toBe('List');
    expect(s().past).toHaveLength(1);
    fireEvent.blur(name);
    fireEvent.change(name, { target: { value: 'List!' } });
    expect(s().past).toHaveLength(2);
    act(() => s().undo());
    expect((name as HTMLInputElement).value).toBe('List');
    act(() => s().undo());
    expect((name as HTMLInputElement).value).toBe('List files');
  });

  it('validates the key and renames its references', () => {
    select('n1');
    render(<Inspector />);
    const key = screen.getByTestId('inspector-key');
    fireEvent.change(key, { target: { value: 'Bad Key' } });
    expect(screen.getByRole('alert')).toHaveTextContent(/lowercase letters, digits and underscores/);
    expect(node('n1').key).toBe('list');
    fireEvent.change(key, { target: { value: 'check' } });
    expect(screen.getByRole('alert')).toHaveTextContent('Another node already has the key “check”.');
    fireEvent.change(key, { target: { value: '' } });
    expect(screen.getByRole('alert')).toHaveTextContent('A key is required.');
    fireEvent.change(key, { target: { value: 'files' } });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(node('n1').key).toBe('files');
    // The If's condition referred to list.count.
    expect(node('n3').params.condition).toBe('files.count > 2');
  });

  it('toggles enabled and edits the advanced settings', () => {
    select('n4');
    render(<Inspector />);
    const enabled = screen.getByTestId<HTMLInputElement>('inspector-enabled');
    expect(enabled.checked).toBe(false);
    fireEvent.click(enabled);
    expect(node('n4').enabled).toBeUndefined();
    fireEvent.change(screen.getByTestId('inspector-timeout'), { target: { value: '5000' } });
    fireEvent.change(screen.getByTestId('inspector-retry-attempts'), { target: { value: '3' } });
    expect(node('n4')).toMatchObject({ timeout_ms: 5000, retry: { max_attempts: 3 } });
    fireEvent.change(screen.getByTestId('inspector-retry-attempts'), { target: { value: '' } });
    expect(node('n4').retry).toBeUndefined();
  });

  it('edits Switch cases: rename follows the edge, add and remove', () => {
    select('n5');
    render(<Inspector />);
    expect(screen.getAllByTestId(/^case-\d$/)).toHaveLength(2);
    fireEvent.change(screen.getByTestId('case-name-0'), { target: { value: 'tiny' } });
    expect(node('n5').params.cases![0].name).toBe('tiny');
    expect(s().doc!.edges.find((e) => e.from === 'n5')!.output).toEqual({ type: 'SwitchCase', name: 'tiny' });
    fireEvent.change(screen.getByTestId('case-name-0'), { target: { value: 'big' } });
    expect(screen.getByRole('alert')).toHaveTextContent('Another case is called “big”.');
    expect(node('n5').params.cases![0].name).toBe('tiny');
    fireEvent.click(screen.getByTestId('add-case'));
    expect(node('n5').params.cases!.map((c) => c.name)).toEqual(['tiny', 'big', 'case_3']);
    fireEvent.click(screen.getByLabelText('Remove case tiny'));
    expect(node('n5').params.cases!.map((c) => c.name)).toEqual(['big', 'case_3']);
    expect(s().doc!.edges.some((e) => e.from === 'n5')).toBe(false);
  });

  it('checks a condition through the backend as it is typed', async () => {
    vi.useFakeTimers();
    try {
      select('n3');
      render(<Inspector />);
      const cond = screen.getByTestId('inspector-condition');
      fireEvent.change(cond, { target: { value: 'list.count > 2 &&' } });
      expect(node('n3').params.condition).toBe('list.count > 2 &&');
      await act(async () => {
        await vi.advanceTimersByTimeAsync(300);
      });
      expect(screen.getByTestId('inspector-condition-error')).toHaveTextContent('unexpected end of expression');
      fireEvent.change(cond, { target: { value: 'list.count > 2 && true' } });
      fireEvent.change(cond, { target: { value: 'list.count > 2 && false' } });
      await act(async () => {
        await vi.advanceTimersByTimeAsync(300);
      });
      expect(screen.getByTestId('inspector-condition-ok')).toBeInTheDocument();
      // Debounced: the intermediate text was never sent.
      expect(vi.mocked(api.checkCondition).mock.calls.map((c) => c[0])).not.toContain('list.count > 2 && true');
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not call a condition valid that reads an output the workflow check says does not exist', async () => {
    act(() => s().updateNode('n3', (n) => ({ ...n, params: { condition: 'list.cuont > 2' } })));
    act(() =>
      s().setValidation({
        valid: false,
        problems: [
          {
            code: 'unknown_output',
            severity: 'error',
            message: "The condition of If 'Is big' reads list.cuont, but Tool 'List files' has no output 'cuont'; did you mean list.count?",
            node_ids: ['n3', 'n1'],
            edges: null,
          },
          // Another node's problem about the same source is not this condition's.
          { code: 'unknown_output', severity: 'error', message: "The prompt of 'Summarise' reads list.cuont, but …", node_ids: ['n4', 'n1'], edges: null },
        ],
      }),
    );
    select('n3');
    render(<Inspector />);
    const shown = await screen.findAllByTestId('inspector-condition-problem');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toHaveTextContent('has no output');
    expect(screen.queryByTestId('inspector-condition-ok')).toBeNull();
    // Fixed (and not yet checked again): the stale problem names what the text no longer reads.
    fireEvent.change(screen.getByTestId('inspector-condition'), { target: { value: 'list.count > 2' } });
    expect(await screen.findByTestId('inspector-condition-ok')).toBeInTheDocument();
  });

  it('takes a list of numbers as "0, 1" (ok_exit_codes wanted raw JSON)', () => {
    const runCommand = {
      name: 'run_command',
      description: 'Run a shell command.',
      input_schema: {
        type: 'object',
        properties: { command: { type: 'string' }, ok_exit_codes: { type: 'array', items: { type: 'integer' }, default: [0] } },
        required: ['command'],
      },
      outputs: [{ name: 'exit_code', type: 'integer', description: '' }],
      side_effects: true,
    };
    act(() => s().setTools([...TOOLS, runCommand]));
    act(() => s().updateNode('n1', (n) => ({ ...n, params: { tool: 'run_command', arguments: { command: 'test -f x' } } })));
    select('n1');
    render(<Inspector />);
    const input = screen.getByTestId('arg-ok_exit_codes');
    for (const [typed, want] of [
      ['0, 1', [0, 1]],
      ['0,1,2', [0, 1, 2]],
      ['[0, 1]', [0, 1]],
      ['0 1', [0, 1]],
      ['', undefined],
    ] as const) {
      fireEvent.change(input, { target: { value: typed } });
      fireEvent.blur(input);
      expect(node('n1').params.arguments?.ok_exit_codes, typed).toEqual(want);
    }
    fireEvent.change(input, { target: { value: '0, 1.5' } });
    fireEvent.blur(input);
    expect(screen.getByTestId('argfield-ok_exit_codes')).toHaveTextContent('"1.5" is not a whole number');
    // A saved list shows as typed.
    act(() => s().updateNode('n1', (n) => ({ ...n, params: { ...n.params, arguments: { command: 'x', ok_exit_codes: [0, 2] } } })));
    expect(screen.getByTestId('arg-ok_exit_codes')).toHaveValue('0, 2');
  });

  it('picks the Loop of an EndLoop and moves its edge there', () => {
    act(() => {
      s().addNode({ type: 'Loop' }, { x: 0, y: 500 });
    });
    const loop2 = s().doc!.nodes[6];
    select('n6');
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('inspector-loop'), { target: { value: loop2.id } });
    expect(node('n6').params.loop_id).toBe(loop2.id);
    expect(s().doc!.edges.filter((e) => e.from === 'n6')).toEqual([{ from: 'n6', to: loop2.id }]);
  });

  it("sets what a step's failure does, and leaving the error branch removes its edge in one undo step", () => {
    select('n1');
    render(<Inspector />);
    const sel = screen.getByTestId<HTMLSelectElement>('inspector-on-error');
    expect(sel.value).toBe('stop');
    expect(screen.queryByTestId('inspector-on-error')).not.toBeNull();
    fireEvent.change(sel, { target: { value: 'branch' } });
    expect(node('n1').on_error).toBe('branch');
    act(() => s().edit((w) => ({ ...w, edges: [...w.edges, { from: 'n1', to: 'n6', output: { type: 'Error' } }] }), { label: 'connect' }));
    fireEvent.change(screen.getByTestId('inspector-on-error'), { target: { value: 'continue' } });
    expect(node('n1').on_error).toBe('continue');
    expect(s().doc!.edges.some((e) => e.output?.type === 'Error')).toBe(false);
    act(() => s().undo());
    expect(node('n1').on_error).toBe('branch');
    expect(s().doc!.edges.some((e) => e.output?.type === 'Error')).toBe(true);
  });

  it('offers no on_error for control nodes', () => {
    select('n3');
    render(<Inspector />);
    expect(screen.queryByTestId('inspector-on-error')).toBeNull();
  });

  it("edits the workflow's goal check and a step's, and clearing them removes them", () => {
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('workflow-done-criteria'), { target: { value: 'coverage is at least 80%' } });
    expect(s().doc!.done_when).toEqual({ criteria: 'coverage is at least 80%' });
    fireEvent.change(screen.getByTestId('workflow-done-criteria'), { target: { value: '' } });
    expect('done_when' in s().doc!).toBe(false);
    fireEvent.change(screen.getByTestId('inspector-workflow-goal'), { target: { value: 'keep coverage up' } });
    expect(s().doc!.goal).toBe('keep coverage up');
  });
});

describe('condition errors', () => {
  it('point at the column under the condition', async () => {
    const { errorAt } = await import('./ConditionInput');
    expect(errorAt('check.exit_code = 0', 'a single "=" cannot compare: write "==" ("x == 1") (column 17)')).toEqual({
      excerpt: 'check.exit_code = 0',
      caret: '                ^',
    });
    expect(errorAt('a ==\n  b +', 'the condition ends too early (line 2, column 6)')).toEqual({ excerpt: '  b +', caret: '     ^' });
    const long = 'x'.repeat(80) + ' = 1';
    const at = errorAt(long, 'oops (column 82)')!;
    expect(at.excerpt.startsWith('…')).toBe(true);
    expect(at.excerpt[at.caret.length - 1]).toBe('=');
    expect(errorAt('a b', 'no position here')).toBeNull();
  });
});
