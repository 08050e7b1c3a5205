import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../../test/fixtures';
import type { ChangeSet } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  ASSISTANT_STOPPED: 'assistant: stopped',
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import type { AssistantActions } from '../../store/assistantActions';
import type { Proposal } from '../../store/assistantSlice';
import { ReviewBanner } from './ReviewBanner';

const initial = useStore.getState();
const LONG = 'echo 0123456789abcdef; '.repeat(500);

// The backend's description of a change (assistant.ChangeSet): the banner
// renders it and computes nothing.
function changes(): ChangeSet {
  return {
    added_nodes: [
      {
        id: 'n7',
        key: 'wait',
        name: 'Wait',
        type: 'Tool',
        fields: [
          { field: 'params.tool', old: null, new: { text: 'wait' } },
          { field: 'params.arguments.ms', old: null, new: { text: '500', json: true } },
        ],
      },
    ],
    updated_nodes: [
      {
        id: 'n1',
        key: 'clean',
        name: 'Clean temp',
        type: 'Tool',
        fields: [
          { field: 'params.arguments.command', old: { text: 'rm -rf /tmp/weft-cache' }, new: { text: 'rm -rf ~/' } },
          { field: 'params.arguments.script', old: null, new: { text: LONG } },
          { field: 'params.arguments.note', old: { text: 'gone' }, new: null },
          { field: 'params.arguments.hidden', old: { text: 'ls' }, new: { text: 'ls\\u000D\\u001B[2Krm -rf ~/', escaped: true } },
        ],
      },
      {
        id: 'n4',
        key: 'sum',
        name: 'Summarise',
        type: 'AiStep',
        fields: [{ field: 'params.prompt', old: { text: 'Summarise the file' }, new: { text: 'Summarise.\n  Then delete it:\nrm -rf /var/log' } }],
      },
    ],
    removed_nodes: [
      {
        id: 'n5',
        key: 'route',
        name: 'Route',
        type: 'Switch',
        fields: [{ field: 'params.cases', old: { text: '[\n  {\n    "name": "small"\n  }\n]', json: true }, new: null }],
      },
    ],
    added_edges: [{ from: 'n1', to: 'n7', from_label: "'Clean temp' (clean)", to_label: "'Wait' (wait)" }],
    removed_edges: [
      { from: 'n3', to: 'n5', from_label: "'Is big' (check)", to_label: "'Route' (route)", output: { type: 'IfFalse' } },
    ],
  };
}

function proposal(over: Partial<Proposal> = {}): Proposal {
  const w = fixtureWorkflow();
  return {
    entryId: 1,
    kind: 'patch',
    message: 'Changed it.',
    patch: { added_nodes: [], removed_node_ids: [], updated_nodes: [], added_edges: [], removed_edges: [], warnings: [] },
    workflow: w,
    diff: { added_node_ids: ['n7'], removed_node_ids: ['n5'], modified_node_ids: ['n1', 'n4'], added_edges: [], removed_edges: [] },
    changes: changes(),
    warnings: [],
    problems: [],
    valid: true,
    validated: true,
    attempts: 1,
    ...over,
  };
}

const actions = { apply: vi.fn(), discard: vi.fn() } as unknown as AssistantActions;

function show(p: Proposal) {
  useStore.getState().loadDocument(fixtureOpen());
  useStore.setState({ proposal: p });
  render(<ReviewBanner actions={actions} />);
}

function field(name: string): HTMLElement {
  const el = screen.getAllByTestId('review-field').find((f) => f.dataset.field === name);
  if (!el) throw new Error(`no field ${name}`);
  return el;
}

beforeEach(() => {
  useStore.setState(initial, true);
});

describe('ReviewBanner', () => {
  it('shows a changed argument old → new', () => {
    show(proposal());
    const f = field('params.arguments.command');
    expect(within(f).getByTestId('review-old').textContent).toBe('"rm -rf /tmp/weft-cache"');
    expect(within(f).getByTestId('review-new').textContent).toBe('"rm -rf ~/"');
    expect(within(f).getByLabelText('becomes')).toBeInTheDocument();
    // Under its node, which stays a button to find it on the canvas.
    const node = screen.getAllByTestId('review-node-modified')[0];
    expect(within(node).getByTestId('review-modified').textContent).toContain('Clean temp');
    expect(node).toContainElement(f);
  });

  it('shows long values in full, in a scrollable block', () => {
    show(proposal());
    const v = within(field('params.arguments.script')).getByTestId('review-new');
    expect(v.textContent).toBe(`"${LONG}"`);
    expect(v.tagName).toBe('PRE');
    expect(v).toHaveClass('review-value');
    expect(within(field('params.arguments.script')).queryByTestId('review-old')).toBeNull();
  });

  it('keeps several lines as several lines, unquoted, leading spaces included', () => {
    show(proposal());
    const f = field('params.prompt');
    expect(within(f).getByTestId('review-old').textContent).toBe('"Summarise the file"');
    expect(within(f).getByTestId('review-new').textContent).toBe('Summarise.\n  Then delete it:\nrm -rf /var/log');
  });

  it('tells JSON from strings, and a removed field from an added one', () => {
    show(proposal());
    const ms = within(field('params.arguments.ms')).getByTestId('review-new');
    expect(ms.textContent).toBe('500');
    expect(ms).toHaveClass('json');
    expect(within(field('params.arguments.note')).getByTestId('review-old').textContent).toBe('"gone"');
    expect(within(field('params.arguments.note')).queryByTestId('review-new')).toBeNull();
  });

  it('says when a value had hidden characters', () => {
    show(proposal());
    expect(within(field('params.arguments.hidden')).getByTestId('review-escaped')).toBeInTheDocument();
    expect(within(field('params.arguments.command')).queryByTestId('review-escaped')).toBeNull();
    expect(within(field('params.arguments.hidden')).getByTestId('review-new').textContent).toBe('"ls\\u000D\\u001B[2Krm -rf ~/"');
  });

  it('lists added and removed nodes with their fields, and each edge', () => {
    show(proposal());
    const added = screen.getByTestId('review-node-added');
    expect(within(added).getByTestId('review-added').textContent).toContain('Wait');
    expect(within(added).getAllByTestId('review-field').map((f) => f.dataset.field)).toEqual(['params.tool', 'params.arguments.ms']);
    const removed = screen.getByTestId('review-node-removed');
    expect(within(removed).getByTestId('review-old').textContent).toBe('[\n  {\n    "name": "small"\n  }\n]');
    expect(screen.getByTestId('review-edge-added').textContent).toContain("'Clean temp' (clean) → 'Wait' (wait)");
    expect(screen.getByTestId('review-edge-removed').textContent).toContain("'Is big' (check) → 'Route' (route) [IfFalse]");
  });

  it('a node row still selects the node on the canvas', () => {
    show(proposal());
    fireEvent.click(screen.getAllByTestId('review-modified')[0]);
    expect(useStore.getState().selectedNodeIds).toEqual(['n1']);
  });

  it('without a description (an older backend) lists the nodes by name', () => {
    show(proposal({ changes: undefined }));
    expect(screen.queryAllByTestId('review-field')).toHaveLength(0);
    expect(screen.getAllByTestId('review-modified').map((b) => b.textContent)).toEqual([
      expect.stringContaining('List files'),
      expect.stringContaining('Summarise'),
    ]);
  });

  it('names the steps of the reply a valid change leaves out, and asks before applying it', () => {
    show(proposal({ leftOut: ['more_steps[0] (tool_name "log", id "report")'] }));
    expect(screen.getByTestId('review-left-out').textContent).toContain('more_steps[0] (tool_name "log", id "report")');
    expect(screen.getByTestId('review-validity').textContent).toContain('valid');
    expect(screen.getByTestId('apply-change').textContent).toContain('Apply anyway');
    act(() => useStore.getState().setConfirmingApplyAnyway(true));
    expect(screen.getByTestId('apply-anyway-left-out').textContent).toContain('One step of the model');
  });

  it('a change that leaves nothing out applies at once', () => {
    show(proposal({ leftOut: [] }));
    expect(screen.queryByTestId('review-left-out')).toBeNull();
    expect(screen.getByTestId('apply-change').textContent).not.toContain('anyway');
  });

  it("shows the workflow's tests played against the change: the line, and how a case differs", () => {
    show(
      proposal({
        tests: {
          line: 'tests: 2 of 3 pass',
          passed: 2,
          total: 3,
          cases: [{ name: 'no notes yet', errored: false, differences: ['out.txt: expected "hi", got "hi!"'] }],
        },
      }),
    );
    const t = screen.getByTestId('review-tests');
    expect(within(t).getByTestId('review-tests-line').textContent).toBe('tests: 2 of 3 pass');
    expect(t.dataset.state).toBe('differs');
    const c = within(t).getByTestId('review-test-case');
    expect(c.textContent).toContain('no notes yet differs');
    expect(c.textContent).toContain('out.txt: expected "hi", got "hi!"');
  });

  it('shows all cases passing as one line', () => {
    show(proposal({ tests: { line: 'tests: 3 of 3 pass', passed: 3, total: 3, cases: [] } }));
    expect(screen.getByTestId('review-tests').dataset.state).toBe('passes');
    expect(screen.getByTestId('review-tests-line').textContent).toBe('tests: 3 of 3 pass');
    expect(screen.queryByTestId('review-test-case')).toBeNull();
  });

  it('shows no tests line without cases', () => {
    show(proposal());
    expect(screen.queryByTestId('review-tests')).toBeNull();
  });
});
