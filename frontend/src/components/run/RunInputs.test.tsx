import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../../test/fixtures';
import type { InputField, RunStart } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { makeRunActions, type RunApi } from './runActions';
import { RunPanel } from './RunPanel';
import { approvalStep } from './runFixtures';
import { given, initialValues, remember } from './inputsForm';

const initial = useStore.getState();
let fake: Record<keyof RunApi, ReturnType<typeof vi.fn>>;

const fields: InputField[] = [
  { name: 'name', type: 'string', required: true, description: 'who to greet', secret: false },
  { name: 'count', type: 'integer', required: false, default: 2, secret: false },
  { name: 'loud', type: 'boolean', required: false, secret: false },
  { name: 'mode', type: 'string', required: false, enum: ['fast', 'slow'], default: 'fast', secret: false },
  { name: 'cfg', type: 'object', required: false, secret: false },
  { name: 'token', type: 'string', required: false, secret: true },
];

const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

function started(over: Partial<RunStart> = {}): RunStart {
  return { started: true, problems: [], approval: [], warnings: [], ...over };
}

beforeEach(() => {
  localStorage.clear();
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen({ workflow: { ...fixtureWorkflow(), inputs: schema } }));
  fake = {
    startRun: vi.fn().mockResolvedValue(started()),
    lastOutputs: vi.fn(),
    approveSteps: vi.fn().mockResolvedValue([]),
    stopRun: vi.fn().mockResolvedValue(true),
    respondEscalation: vi.fn(),
    keepFix: vi.fn(),
    runStatus: vi.fn().mockResolvedValue({ running: false, run_id: '', workflow_id: '', escalation: null, can_replan: false }),
    canReplan: vi.fn().mockResolvedValue(false),
    runHistory: vi.fn().mockResolvedValue({ dir: '/tmp/.weft/runs', runs: [], warnings: [] }),
    runEvents: vi.fn().mockResolvedValue({ events: [], total: 0, truncated: false, warnings: [] }),
    onRun: vi.fn().mockReturnValue(() => {}),
    log: vi.fn(),
    temporalRunsGoing: vi.fn().mockResolvedValue([]),
    followTemporalRun: vi.fn(),
    pendingApprovals: vi.fn().mockResolvedValue([]),
    workflowFileTrust: vi.fn().mockResolvedValue({ path: '/tmp/fixture.json', trusted: true, why: 'saved in Weft', changed: false }),
    workflowInputs: vi.fn().mockResolvedValue({ fields, problems: [] }),
  };
});

function field(name: string): HTMLElement {
  return screen.getAllByTestId('run-input').find((e) => e.dataset.name === name)!;
}

describe('inputsForm', () => {
  it('prefills defaults, then the values last used, never a secret one', () => {
    expect(initialValues('/f.json', fields)).toEqual({ name: '', count: '2', loud: '', mode: 'fast', cfg: '', token: '' });
    remember('/f.json', fields, { name: 'Ada', count: '5', cfg: '{"a":1}', token: 'hunter2' });
    expect(localStorage.getItem('weft.runInputs:/f.json')).not.toContain('hunter2');
    expect(initialValues('/f.json', fields)).toEqual({ name: 'Ada', count: '5', loud: '', mode: 'fast', cfg: '{"a":1}', token: '' });
    expect(initialValues('/other.json', fields).name).toBe('');
    expect(given(fields, { name: 'Ada', count: '', loud: 'true' })).toEqual({ name: 'Ada', loud: 'true' });
  });
});

describe('Run with inputs', () => {
  it('asks for the inputs in a typed form, then starts the run with them', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    render(<RunPanel actions={actions} />);
    fireEvent.click(screen.getByTestId('run-button'));
    const dialog = await screen.findByTestId('run-inputs');
    expect(fake.startRun).not.toHaveBeenCalled();
    expect(fake.workflowInputs).toHaveBeenCalledWith(useStore.getState().doc);
    // Typed per schema type, required marked, defaults filled in.
    expect(field('name').tagName).toBe('INPUT');
    expect(field('name').getAttribute('aria-required')).toBe('true');
    expect(field('name').closest('.prefs-field')?.querySelector('[aria-label="required"]')).not.toBeNull();
    expect(field('count').closest('.prefs-field')?.querySelector('[aria-label="required"]')).toBeNull();
    expect((field('count') as HTMLInputElement).value).toBe('2');
    expect(field('loud').tagName).toBe('SELECT');
    expect(field('mode').tagName).toBe('SELECT');
    expect((field('mode') as HTMLSelectElement).value).toBe('fast');
    expect(field('cfg').tagName).toBe('TEXTAREA');
    expect((field('token') as HTMLInputElement).type).toBe('password');
    fireEvent.change(field('name'), { target: { value: 'Ada; rm -rf / $(x)' } });
    fireEvent.change(field('loud'), { target: { value: 'true' } });
    fireEvent.change(field('token'), { target: { value: 'hunter2' } });
    fireEvent.click(within(dialog).getByTestId('run-inputs-run'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', undefined, undefined, {
      name: 'Ada; rm -rf / $(x)',
      count: '2',
      loud: 'true',
      mode: 'fast',
      token: 'hunter2',
    }, {});
    expect(screen.queryByTestId('run-inputs')).toBeNull();
    expect(useStore.getState().runPhase).toBe('running');
    // The next Run shows the values used, except the secret one.
    await actions.start();
    expect(useStore.getState().runInputs?.values).toMatchObject({ name: 'Ada; rm -rf / $(x)', loud: 'true', token: '' });
  });

  it('shows what Go refused at each field, and the approval that follows keeps the inputs', async () => {
    fake.startRun
      .mockResolvedValueOnce(
        started({
          started: false,
          error: 'inputs: …',
          input_problems: [
            { input: 'count', message: 'input count wants an integer, written as JSON; "many" is not' },
            { message: 'something about them all' },
          ],
        }),
      )
      .mockResolvedValueOnce(started({ started: false, approval: [approvalStep({ fingerprint: 'fp1' })], error: 'approve' }));
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    render(<RunPanel actions={actions} />);
    await actions.start();
    await screen.findByTestId('run-inputs');
    fireEvent.change(field('name'), { target: { value: 'Ada' } });
    fireEvent.change(field('count'), { target: { value: 'many' } });
    fireEvent.click(screen.getByTestId('run-inputs-run'));
    const err = await screen.findByTestId('run-input-error');
    expect(err.dataset.name).toBe('count');
    expect(err.textContent).toContain('"many" is not');
    expect(field('count').getAttribute('aria-invalid')).toBe('true');
    expect((field('count') as HTMLInputElement).value).toBe('many');
    expect((field('name') as HTMLInputElement).value).toBe('Ada');
    expect(screen.getByTestId('run-inputs-error').textContent).toContain('something about them all');
    expect(useStore.getState().runPhase).toBe('idle');
    fireEvent.change(field('count'), { target: { value: '3' } });
    fireEvent.click(screen.getByTestId('run-inputs-run'));
    await waitFor(() => expect(useStore.getState().runApproval).not.toBeNull());
    await actions.approve();
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', ['fp1'], undefined, { name: 'Ada', count: '3', mode: 'fast' }, {});
  });

  it('gives a secret input a stored secret by name instead of a value, kept through the approval', async () => {
    fake.workflowInputs.mockResolvedValue({ fields, problems: [], secrets: ['DB_PASSWORD', 'API_TOKEN'] });
    fake.startRun.mockResolvedValueOnce(started({ started: false, approval: [approvalStep({ fingerprint: 'fp1' })], error: 'approve' }));
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    render(<RunPanel actions={actions} />);
    await actions.start();
    const dialog = await screen.findByTestId('run-inputs');
    const stored = within(dialog).getAllByTestId<HTMLSelectElement>('run-input-stored');
    expect(stored.map((s) => s.dataset.name)).toEqual(['token']); // only the secret input
    expect([...stored[0].options].map((o) => o.textContent)).toEqual(['Type a value below', 'Stored secret DB_PASSWORD', 'Stored secret API_TOKEN']);
    expect(field('token')).toBeDefined(); // a value may still be typed
    fireEvent.change(stored[0], { target: { value: 'API_TOKEN' } });
    expect(screen.getAllByTestId('run-input').some((e) => e.dataset.name === 'token')).toBe(false);
    expect(dialog.textContent).toContain("the step gets API_TOKEN's value only where that secret may go");
    fireEvent.change(field('name'), { target: { value: 'Ada' } });
    fireEvent.click(within(dialog).getByTestId('run-inputs-run'));
    await waitFor(() => expect(useStore.getState().runApproval).not.toBeNull());
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', undefined, undefined, { name: 'Ada', count: '2', mode: 'fast' }, { token: 'API_TOKEN' });
    await actions.approve();
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', ['fp1'], undefined, { name: 'Ada', count: '2', mode: 'fast' }, { token: 'API_TOKEN' });
  });

  it('Cancel starts nothing; a workflow without inputs runs at once', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    render(<RunPanel actions={actions} />);
    await actions.start();
    fireEvent.click(await screen.findByTestId('run-inputs-cancel'));
    expect(screen.queryByTestId('run-inputs')).toBeNull();
    expect(fake.startRun).not.toHaveBeenCalled();
    // Go says which workflows declare inputs: none, and Run starts at once.
    fake.workflowInputs.mockResolvedValueOnce({ fields: [], problems: [] });
    useStore.getState().loadDocument(fixtureOpen());
    await actions.start();
    expect(fake.workflowInputs).toHaveBeenLastCalledWith(useStore.getState().doc);
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', undefined, undefined);
  });
});

describe('a condition reading an input', () => {
  it('shows the unknown_input problem Go reports about it at the field', async () => {
    const { conditionProblems } = await import('../inspector/ConditionInput');
    const p = {
      code: 'unknown_input',
      severity: 'error' as const,
      message: "If 'gate' reads inputs.who, but the workflow declares no input 'who' (its inputs: name)",
      node_ids: ['n3'],
      edges: [],
    };
    expect(conditionProblems("inputs.who == 'x'", 'n3', [p])).toEqual([p]);
    expect(conditionProblems("inputs.name == 'x'", 'n3', [p])).toEqual([]);
  });
});
