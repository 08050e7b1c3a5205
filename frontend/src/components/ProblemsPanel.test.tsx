import { fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { Canvas } from './Canvas';
import { ProblemsPanel } from './ProblemsPanel';

const initial = useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen());
});

describe('ProblemsPanel', () => {
  it('says so when the workflow is valid', () => {
    useStore.getState().setValidation({ valid: true, problems: [] });
    render(<ProblemsPanel />);
    expect(screen.getByTestId('problems-panel')).toHaveTextContent('No problems');
  });

  it('shows an empty workflow as a place to start, not as a no_nodes error', () => {
    useStore.getState().loadDocument(fixtureOpen({ workflow: { ...fixtureWorkflow(), nodes: [], edges: [] } }));
    useStore.getState().setValidation({
      valid: false,
      problems: [{ code: 'no_nodes', severity: 'error', message: 'The workflow has no nodes', node_ids: [], edges: null }],
    });
    render(<ProblemsPanel />);
    expect(screen.queryByTestId('problem-row')).toBeNull();
    expect(screen.getByTestId('error-count')).toHaveTextContent('0');
    expect(screen.getByTestId('problems-empty')).toHaveTextContent('the workflow has no steps');
  });

  it('lists problems with code, severity and message, and counts them', () => {
    useStore.getState().setValidation({
      valid: false,
      problems: [
        { code: 'unknown_tool', severity: 'warning', message: 'tool "x" is not in the catalog', node_ids: ['n1'], edges: null },
        { code: 'if_missing_branch', severity: 'error', message: 'If "Is big" has no IfFalse edge', node_ids: ['n3'], edges: null },
      ],
    });
    render(<ProblemsPanel />);
    const rows = screen.getAllByTestId('problem-row');
    expect(rows.map((r) => r.getAttribute('data-code'))).toEqual(['if_missing_branch', 'unknown_tool']);
    expect(rows[0]).toHaveClass('error');
    expect(rows[0]).toHaveTextContent('If "Is big" has no IfFalse edge');
    expect(rows[0]).toHaveTextContent('Is big');
    expect(screen.getByTestId('error-count')).toHaveTextContent('1');
    expect(screen.getByTestId('warning-count')).toHaveTextContent('1');
  });

  it('lists info-level problems after warnings, counted apart, as notes', () => {
    useStore.getState().setValidation({
      valid: true,
      problems: [
        { code: 'exit_code_fails', severity: 'info', message: "The condition of If 'Is big' reads list.exit_code, but …", node_ids: ['n3', 'n1'], edges: null },
        { code: 'unknown_tool', severity: 'warning', message: 'tool "x" is not in the catalog', node_ids: ['n1'], edges: null },
      ],
    });
    render(<ProblemsPanel />);
    const rows = screen.getAllByTestId('problem-row');
    expect(rows.map((r) => r.getAttribute('data-code'))).toEqual(['unknown_tool', 'exit_code_fails']);
    expect(rows[1]).toHaveClass('info');
    expect(within(rows[1]).getByLabelText('note')).toBeInTheDocument();
    expect(screen.getByTestId('error-count')).toHaveTextContent('0');
    expect(screen.getByTestId('warning-count')).toHaveTextContent('1');
    expect(screen.getByTestId('info-count')).toHaveTextContent('1');
  });

  it('selects and focuses the problem nodes on click', async () => {
    useStore.getState().setValidation({
      valid: false,
      problems: [
        { code: 'duplicate_key', severity: 'error', message: 'dup', node_ids: ['n3', 'n5'], edges: null },
        { code: 'no_nodes', severity: 'error', message: 'none', node_ids: [], edges: null },
      ],
    });
    render(
      <>
        <Canvas />
        <ProblemsPanel />
      </>,
    );
    await screen.findByTestId('node-n3');
    const [row, nodeless] = screen.getAllByTestId('problem-row');
    expect(nodeless).toBeDisabled();
    fireEvent.click(row);
    const s = useStore.getState();
    expect(s.selectedNodeIds).toEqual(['n3', 'n5']);
    expect(s.focusRequest?.nodeIds).toEqual(['n3', 'n5']);
    expect(await screen.findByTestId('node-n3')).toHaveClass('selected');
    expect(screen.getByTestId('node-n5')).toHaveClass('selected');
    expect(screen.getByTestId('node-n1')).not.toHaveClass('selected');
    expect(row).toHaveClass('active');
  });
});
