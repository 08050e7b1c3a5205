import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { fixtureOpen } from '../../test/fixtures';
import type { CaseFile, TestCaseResult, TestRun } from '../../types';
import { makeTestsActions } from './testsActions';
import { TestsPanel } from './TestsPanel';

const initial = useStore.getState();

const MOCKS = '{\n  "commands": [\n    {\n      "command": "ls",\n      "answer": {\n        "exit_code": 0\n      }\n    }\n  ]\n}';

const passes = (name: string): TestCaseResult => ({ name, passed: true, path: ['n1'], failures: [], duration_ms: 2 });
const fails = (name: string): TestCaseResult => ({
  name,
  passed: false,
  outcome: 'failed',
  error: 'step List files failed',
  path: ['n1'],
  failures: [
    { step: 'n1', what: 'output', expected: 'hello\n', actual: 'hello', message: 'list.stdout is not what the case expects' },
    { what: 'outcome', expected: 'succeeded', actual: 'failed', message: 'the run failed, the case expects it to succeed' },
  ],
  duration_ms: 3,
});

function reportOf(cases: TestCaseResult[]): TestRun {
  const passed = cases.filter((c) => c.passed).length;
  return { error: '', problems: [], report: { workflow: '/tmp/fixture.json', file: '/tmp/fixture.tests.json', passed, failed: cases.length - passed, cases, unapproved: [] } };
}

// fakeGo answers as app_tests.go does: mocks are saved only when valid,
// over the file as it was read.
function fakeGo() {
  let file: CaseFile = {
    file: '/tmp/fixture.tests.json',
    exists: true,
    sha256: 'v1',
    cases: [
      { name: 'happy', mocks: MOCKS },
      { name: 'empty dir', mocks: '{}' },
    ],
  };
  const impl = {
    readTestCases: vi.fn(async () => file),
    runTests: vi.fn(async (_w, _p, only: string) => (only ? reportOf([passes(only)]) : reportOf([passes('happy'), fails('empty dir')]))),
    recordTestCase: vi.fn(async (_p: string, name: string) => {
      if (name === 'happy') throw new Error('/tmp/fixture.tests.json already has a case named "happy": give another name');
      file = { ...file, sha256: 'v2', cases: [...file.cases, { name, mocks: '{}' }] };
      return { file: file.file, run_id: 'r7', name, fill_in: ['step n1 (attempt 1): a value held a secret'] };
    }),
    saveTestCaseMocks: vi.fn(async (_p: string, name: string, mocks: string, base: string) => {
      if (base !== file.sha256) throw new Error('changed since it was read');
      try {
        JSON.parse(mocks);
      } catch {
        throw new Error('mocks: line 1, column 2: not JSON: invalid character');
      }
      if (mocks.includes('"command": "x"}')) throw new Error('mocks.commands[0]: has no answer');
      file = { ...file, sha256: 'v3', cases: file.cases.map((c) => (c.name === name ? { ...c, mocks } : c)) };
      return file;
    }),
  };
  return impl;
}

let go: ReturnType<typeof fakeGo>;

function show(path = '/tmp/fixture.json') {
  go = fakeGo();
  act(() => useStore.getState().loadDocument(fixtureOpen({ path })));
  const actions = makeTestsActions(useStore, go);
  render(<TestsPanel actions={actions} />);
}

const row = (name: string) => screen.getAllByTestId('test-case').find((r) => r.dataset.name === name)!;

beforeEach(() => {
  useStore.setState(initial, true);
});

describe('the Tests panel', () => {
  it('asks to save an unsaved workflow first, and reads nothing', () => {
    show('');
    expect(screen.getByTestId('tests-unsaved').textContent).toContain('Save the workflow first');
    expect(go.readTestCases).not.toHaveBeenCalled();
  });

  it('lists the cases, plays them all and shows how a failing one differs', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    expect(row('happy').dataset.state).toBe('none');
    fireEvent.click(screen.getByTestId('tests-run-all'));
    await waitFor(() => expect(screen.getByTestId('tests-summary').textContent).toBe('1 of 2 pass'));
    expect(go.runTests).toHaveBeenCalledWith(useStore.getState().doc, '/tmp/fixture.json', '');
    expect(row('happy').dataset.state).toBe('pass');
    expect(row('empty dir').dataset.state).toBe('fail');
    expect(within(row('happy')).queryAllByTestId('test-failure')).toHaveLength(0);
    const [out, outcome] = within(row('empty dir')).getAllByTestId('test-failure');
    // The step by its name; text quoted, so the newline that differs shows.
    expect(out.textContent).toContain('List files');
    expect(within(out).getByTestId('test-expected').textContent).toBe('"hello\\n"');
    expect(within(out).getByTestId('test-actual').textContent).toBe('"hello"');
    expect(outcome.dataset.what).toBe('outcome');
    expect(row('empty dir').textContent).toContain('The run stopped: step List files failed');
  });

  it('plays one case again and keeps the others’ results; an edit since marks them', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    fireEvent.click(screen.getByTestId('tests-run-all'));
    await waitFor(() => expect(row('empty dir').dataset.state).toBe('fail'));
    fireEvent.click(screen.getByRole('button', { name: 'Run case empty dir' }));
    await waitFor(() => expect(row('empty dir').dataset.state).toBe('pass'));
    expect(go.runTests).toHaveBeenLastCalledWith(expect.anything(), '/tmp/fixture.json', 'empty dir');
    expect(row('happy').dataset.state).toBe('pass');
    expect(screen.getByTestId('tests-summary').textContent).toBe('2 of 2 pass');
    act(() => useStore.getState().edit((w) => ({ ...w, name: 'Changed' })));
    expect(screen.getByTestId('tests-summary').textContent).toBe('2 of 2 pass (played before your last change)');
    expect(row('happy').textContent).toContain('passes (before your last change)');
  });

  it('says why the cases cannot be played', async () => {
    show();
    go.runTests.mockResolvedValueOnce({ report: null, error: 'no test cases: record one from the last run', problems: [] });
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    fireEvent.click(screen.getByTestId('tests-run-all'));
    await waitFor(() => expect(screen.getByTestId('tests-run-error').textContent).toContain('no test cases'));
    expect(screen.getByTestId('tests-run-error').getAttribute('role')).toBe('alert');
  });

  it('edits a case’s mocks: Go’s error shows at the field and nothing is saved until they are valid', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    const edit = within(row('happy')).getByTestId('test-case-edit');
    fireEvent.click(edit);
    const text = screen.getByTestId<HTMLTextAreaElement>('mocks-text');
    expect(text).toHaveFocus();
    expect(text.value).toBe(MOCKS);
    expect(screen.getByLabelText('Mocks of “happy” (JSON)')).toBe(text);
    expect(edit.getAttribute('aria-expanded')).toBe('true');

    fireEvent.change(text, { target: { value: '{"commands": [' } });
    fireEvent.click(screen.getByTestId('mocks-save'));
    const err = await screen.findByTestId('mocks-error');
    expect(err.textContent).toBe('mocks: line 1, column 2: not JSON: invalid character');
    expect(err.getAttribute('role')).toBe('alert');
    expect(text.getAttribute('aria-invalid')).toBe('true');
    expect(text.getAttribute('aria-describedby')).toBe(err.id);
    expect(text.value).toBe('{"commands": ['); // what the person typed stays
    expect(go.saveTestCaseMocks).toHaveBeenCalledWith('/tmp/fixture.json', 'happy', '{"commands": [', 'v1');

    // Ctrl+Enter saves too.
    fireEvent.change(text, { target: { value: '{"commands": [{"command": "x"}]}' } });
    expect(screen.queryByTestId('mocks-error')).toBeNull();
    fireEvent.keyDown(text, { key: 'Enter', ctrlKey: true });
    expect((await screen.findByTestId('mocks-error')).textContent).toBe('mocks.commands[0]: has no answer');

    const good = '{"commands": [{"command": "ls", "answer": {"exit_code": 1}}]}';
    fireEvent.change(text, { target: { value: good } });
    fireEvent.click(screen.getByTestId('mocks-save'));
    await waitFor(() => expect(screen.queryByTestId('mocks-editor')).toBeNull());
    expect(edit).toHaveFocus(); // back to what opened it
    expect(useStore.getState().caseFile?.cases[0].mocks).toBe(good);
    expect(useStore.getState().caseFile?.sha256).toBe('v3');
  });

  it('keeps the text being edited when the file is read again, and saves over the new reading', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    fireEvent.click(within(row('happy')).getByTestId('test-case-edit'));
    const text = screen.getByTestId<HTMLTextAreaElement>('mocks-text');
    const mine = '{"commands": [{"command": "ls", "answer": {"exit_code": 2}}]}';
    fireEvent.change(text, { target: { value: mine } });
    // Someone records a case meanwhile: Go refuses a save over the old reading.
    await act(() => go.recordTestCase('/tmp/fixture.json', 'elsewhere'));
    fireEvent.click(screen.getByTestId('mocks-save'));
    expect((await screen.findByTestId('mocks-error')).textContent).toContain('changed since it was read');
    fireEvent.click(screen.getByRole('button', { name: 'Reload the cases' }));
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(3));
    expect(screen.getByTestId<HTMLTextAreaElement>('mocks-text').value).toBe(mine);
    fireEvent.click(screen.getByTestId('mocks-save'));
    await waitFor(() => expect(screen.queryByTestId('mocks-editor')).toBeNull());
    expect(go.saveTestCaseMocks).toHaveBeenLastCalledWith('/tmp/fixture.json', 'happy', mine, 'v2');
  });

  it('cancels an edit with focus back on its button', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    const edit = within(row('empty dir')).getByTestId('test-case-edit');
    fireEvent.click(edit);
    fireEvent.change(screen.getByTestId('mocks-text'), { target: { value: '{"ai": {}}' } });
    fireEvent.click(screen.getByTestId('mocks-cancel'));
    expect(screen.queryByTestId('mocks-editor')).toBeNull();
    expect(edit).toHaveFocus();
    expect(go.saveTestCaseMocks).not.toHaveBeenCalled();
  });

  it('records a case from the last run: asks for a name, shows Go’s refusal, then the steps to fill in', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    const opener = screen.getByTestId('tests-record');
    opener.focus();
    fireEvent.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Record a case from the last run' });
    const name = within(dialog).getByLabelText('Case name');
    expect(name).toHaveFocus();

    fireEvent.change(name, { target: { value: 'happy' } });
    fireEvent.click(within(dialog).getByTestId('record-submit'));
    const err = await within(dialog).findByTestId('record-error');
    expect(err.textContent).toContain('already has a case named "happy"');
    expect(name.getAttribute('aria-invalid')).toBe('true');

    fireEvent.change(name, { target: { value: '  big folder ' } });
    fireEvent.submit(name);
    await within(dialog).findByTestId('record-done');
    expect(go.recordTestCase).toHaveBeenLastCalledWith('/tmp/fixture.json', 'big folder');
    expect(within(dialog).getByTestId('record-fill-in').textContent).toContain('step n1 (attempt 1): a value held a secret');
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(3));
    expect(within(dialog).getByTestId('record-close')).toHaveFocus();
    fireEvent.click(within(dialog).getByTestId('record-close'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();
  });

  it('closes the record dialog with Escape, focus back on its opener', async () => {
    show();
    await waitFor(() => expect(screen.getAllByTestId('test-case')).toHaveLength(2));
    const opener = screen.getByTestId('tests-record');
    opener.focus();
    fireEvent.click(opener);
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();
    expect(go.recordTestCase).not.toHaveBeenCalled();
  });
});
