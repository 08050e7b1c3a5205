import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../../test/fixtures';
import type { AssistantProgress, AssistantResult } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  ASSISTANT_STOPPED: 'assistant: stopped',
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { makeAssistantActions, type AssistantApi } from '../../store/assistantActions';
import { AssistantPanel } from './AssistantPanel';

const initial = useStore.getState();
let progress: ((p: AssistantProgress) => void) | null = null;
let fake: Record<keyof AssistantApi, ReturnType<typeof vi.fn>>;

function invalidResult(): AssistantResult {
  const w = fixtureWorkflow();
  const added = { id: 'n9', key: 'gate', name: 'Gate', type: 'If' as const, params: { condition: 'true' } };
  return {
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    unused: {},
    kind: 'patch',
    message: 'Added a gate.',
    patch: { added_nodes: [added], removed_node_ids: [], updated_nodes: [], added_edges: [], removed_edges: [], warnings: [] },
    workflow: { ...w, nodes: [...w.nodes, added] },
    diff: { added_node_ids: ['n9'], removed_node_ids: [], modified_node_ids: [], added_edges: [], removed_edges: [] },
    warnings: [{ stage: 'validate', message: 'If has one branch [if_missing_branch]', node_id: 'n9' }],
    problems: [{ code: 'if_missing_branch', severity: 'error', message: 'If "Gate" has no IfFalse edge', node_ids: ['n9'], edges: null }],
    valid: false,
    validated: true,
    attempts: 3,
    llm_calls: 3,
  };
}

function setup() {
  const actions = makeAssistantActions(useStore, fake, { validate: async () => {} });
  render(<AssistantPanel actions={actions} />);
  return actions;
}

beforeEach(() => {
  useStore.setState(initial, true);
  progress = null;
  fake = {
    assistantSend: vi.fn(),
    assistantStop: vi.fn().mockResolvedValue(true),
    assistantHistory: vi.fn().mockResolvedValue({ messages: [], path: '', warnings: [] }),
    assistantClearHistory: vi.fn(),
    previewPatch: vi.fn(),
    applyPatch: vi.fn().mockImplementation(async () => ({ workflow: invalidResult().workflow, warnings: [] })),
    onAssistantProgress: vi.fn().mockImplementation((cb) => {
      progress = cb;
      return () => {};
    }),
    log: vi.fn(),
  };
});

describe('AssistantPanel', () => {
  it('shows an error with a way to Preferences', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    fake.assistantSend.mockRejectedValue('no model is configured: open Preferences and set the model name');
    setup();
    const input = screen.getByTestId('assistant-input');
    fireEvent.change(input, { target: { value: 'hi' } });
    await act(async () => fireEvent.click(screen.getByTestId('assistant-send')));
    const failed = await screen.findByRole('alert');
    expect(failed).toHaveTextContent('no model is configured');
    // Said once: on the message, not again in a banner.
    expect(screen.queryByTestId('assistant-error')).toBeNull();
    expect(screen.getAllByText(/no model is configured/)).toHaveLength(1);
    fireEvent.click(screen.getByTestId('assistant-open-preferences'));
    expect(useStore.getState().preferencesOpen).toBe(true);
  });

  it('invites a description for an empty workflow', async () => {
    useStore.getState().loadDocument(fixtureOpen({ workflow: { format: 'weft/v1', id: 'empty', name: '', nodes: [], edges: [] } }));
    setup();
    await waitFor(() => expect(fake.assistantHistory).toHaveBeenCalledWith('empty', '/tmp/fixture.json'));
    expect(screen.getByTestId('chat-empty')).toHaveTextContent('Describe the automation you want');
    expect(screen.getByTestId('assistant-input')).toHaveAttribute('placeholder', 'Describe the automation you want…');
  });

  it('shows the saved conversation', async () => {
    fake.assistantHistory.mockResolvedValue({
      messages: [
        { role: 'user', content: 'what does it do?' },
        { role: 'assistant', content: 'It lists files.', kind: 'conversation' },
      ],
      path: '',
      warnings: [],
    });
    useStore.getState().loadDocument(fixtureOpen());
    setup();
    expect(await screen.findByText('It lists files.')).toBeInTheDocument();
    expect(screen.getByTestId('chat-user')).toHaveTextContent('what does it do?');
  });

  it('shows the progress, a Stop button, then the review with Apply anyway for an invalid change', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    let answer!: (r: AssistantResult) => void;
    fake.assistantSend.mockReturnValue(new Promise((r) => (answer = r)));
    setup();
    const input = screen.getByTestId('assistant-input');
    fireEvent.change(input, { target: { value: 'gate it' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(await screen.findByTestId('assistant-progress')).toHaveTextContent('Thinking…');
    act(() => progress!({ kind: 'repairing', attempt: 2, max: 3 }));
    expect(screen.getByTestId('assistant-progress')).toHaveTextContent('Repairing (attempt 2 of 3)…');
    fireEvent.click(screen.getByTestId('assistant-stop'));
    expect(fake.assistantStop).toHaveBeenCalled();

    await act(async () => answer(invalidResult()));
    const banner = await screen.findByTestId('review-banner');
    expect(banner).toHaveAttribute('data-valid', 'false');
    expect(screen.getByTestId('review-added')).toHaveTextContent('Gate');
    expect(screen.getByTestId('review-problems')).toHaveTextContent('if_missing_branch');
    expect(screen.getByTestId('review-warnings')).toHaveTextContent('1 note');
    expect(screen.queryByTestId('assistant-stop')).toBeNull();

    fireEvent.click(screen.getByTestId('apply-change'));
    expect(screen.getByTestId('apply-anyway-confirm')).toBeInTheDocument();
    expect(fake.applyPatch).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Apply anyway' })));
    expect(fake.applyPatch).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId('review-banner')).toBeNull());
    expect(useStore.getState().doc!.nodes.map((n) => n.id)).toContain('n9');
    expect(screen.getByTestId('chat-change-state')).toHaveTextContent('applied');
    // Undoing the change says so on its message; redoing it, applied again.
    act(() => useStore.getState().undo());
    expect(useStore.getState().doc!.nodes.map((n) => n.id)).not.toContain('n9');
    expect(screen.getByTestId('chat-change-state')).toHaveTextContent('undone');
    act(() => useStore.getState().redo());
    expect(screen.getByTestId('chat-change-state')).toHaveTextContent('applied');
  });

  it('offers the model setup when no model is configured, and goes back to the conversation once set', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    let model = '';
    const setupApi = {
      getSettings: vi.fn(async () => ({ settings: { llm: { base_url: 'http://127.0.0.1:11434/v1', model, timeout_s: 60 } }, api_key_set: false, api_key_masked: '', path: '', warnings: [] })),
      saveSettings: vi.fn(async () => {
        model = 'qwen3:8b';
        return [];
      }),
      testConnection: vi.fn(async () => ({ message: 'Connected.' })),
      discoverModelServers: vi.fn(async () => [{ name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', models: ['qwen3:8b'] }]),
    };
    const actions = makeAssistantActions(useStore, fake, { validate: async () => {} });
    render(<AssistantPanel actions={actions} setupApi={setupApi as never} />);
    await screen.findByTestId('model-setup');
    expect(screen.queryByTestId('chat-empty')).toBeNull();
    fireEvent.click(screen.getByTestId('setup-discover'));
    await screen.findByTestId('setup-server');
    await act(async () => {
      fireEvent.click(screen.getByTestId('setup-use'));
    });
    expect(await screen.findByTestId('setup-done')).toHaveTextContent('Connected. Saved as the assistant');
    expect(screen.queryByTestId('model-setup')).toBeNull();
    expect(screen.getByTestId('chat-empty')).toBeInTheDocument();
  });

  it('lets the person open what the reply needed: the attempts asked again and the local fixes', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    const r = invalidResult();
    fake.assistantSend.mockResolvedValue({
      ...r,
      valid: true,
      problems: [],
      attempts: 2,
      warnings: [{ stage: 'repair', message: 'the JSON did not parse; repaired locally: trailing commas removed' }],
      tries: [{ attempt: 1, why: ['If "Gate" has no IfFalse edge [if_missing_branch]'], fixed: ['single quotes turned into double quotes'] }],
    });
    fake.previewPatch.mockResolvedValue({ workflow: r.workflow, diff: r.diff, warnings: [], valid: true, problems: [] });
    setup();
    fireEvent.change(screen.getByTestId('assistant-input'), { target: { value: 'add a gate' } });
    await act(async () => fireEvent.click(screen.getByTestId('assistant-send')));
    const details = await screen.findByTestId('chat-repair');
    expect(details).toHaveTextContent('Needed 2 attempts');
    expect(screen.getByTestId('chat-repair-try')).toHaveTextContent('Attempt 1 was asked again: If "Gate" has no IfFalse edge');
    expect(screen.getByTestId('chat-repair-try')).toHaveTextContent('single quotes turned into double quotes');
    expect(screen.getByTestId('chat-repair-final')).toHaveTextContent('Attempt 2, used: fixed locally: the JSON did not parse');
  });

  it("shows the workflow's tests the backend played against the change, not once the document changed", async () => {
    useStore.getState().loadDocument(fixtureOpen());
    const r = invalidResult();
    const tests = { line: 'tests: 3 of 3 pass', passed: 3, total: 3, cases: [] };
    fake.assistantSend.mockResolvedValue({ ...r, valid: true, problems: [], tests });
    fake.previewPatch.mockResolvedValue({ workflow: r.workflow, diff: r.diff, warnings: [], valid: true, problems: [] });
    setup();
    fireEvent.change(screen.getByTestId('assistant-input'), { target: { value: 'add a gate' } });
    await act(async () => fireEvent.click(screen.getByTestId('assistant-send')));
    expect(await screen.findByTestId('review-tests-line')).toHaveTextContent('tests: 3 of 3 pass');

    // Merged into a document edited while the model worked: the tests
    // played another workflow, so none are shown.
    act(() => useStore.getState().endProposal('discarded'));
    let answer!: (v: unknown) => void;
    fake.assistantSend.mockReturnValue(new Promise((res) => (answer = res)));
    fireEvent.change(screen.getByTestId('assistant-input'), { target: { value: 'add a gate' } });
    await act(async () => fireEvent.click(screen.getByTestId('assistant-send')));
    act(() => useStore.getState().edit((w) => ({ ...w, name: 'edited meanwhile' })));
    await act(async () => answer({ ...r, valid: true, problems: [], tests }));
    await screen.findByTestId('review-banner');
    expect(screen.queryByTestId('review-tests')).toBeNull();
  });
});
