import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { WorkflowNode } from '../../types';
import { EscalationDialog, parseArguments } from './EscalationDialog';
import { escalation } from './runFixtures';

const toolNode: WorkflowNode = {
  id: 'n1',
  key: 'list',
  name: 'List files',
  type: 'Tool',
  params: { tool: 'run_command', arguments: { command: "sh -c 'exit 3'" } },
};

function setup(over: Parameters<typeof escalation>[0] = {}, node: WorkflowNode | null = toolNode) {
  const onRespond = vi.fn();
  const esc = escalation(over);
  const r = render(
    <EscalationDialog esc={esc} node={node} sending={false} error={null} replanUnavailable="Replanning needs a model." onRespond={onRespond} />,
  );
  return { onRespond, esc, ...r };
}

describe('EscalationDialog', () => {
  it('shows the step, the classification, every attempt and the last error', () => {
    setup();
    const d = screen.getByTestId('escalation-dialog');
    expect(within(d).getByTestId('esc-node')).toHaveTextContent('List files');
    expect(d).toHaveTextContent('Tool · run_command · 2 attempts of 2 failed');
    expect(screen.getByTestId('esc-failure-type')).toHaveTextContent('execution_error');
    expect(screen.getByTestId('esc-severity')).toHaveTextContent('HIGH');
    expect(screen.getByTestId('esc-category')).toHaveTextContent('permission');
    expect(screen.getByTestId('esc-retryable')).toHaveTextContent('no');
    expect(d).toHaveTextContent('Check the permissions.');

    const rows = screen.getAllByTestId('attempt-row');
    expect(rows).toHaveLength(2);
    const cells = within(rows[0]).getAllByRole('cell').map((c) => c.textContent);
    expect(cells[0]).toBe('1');
    expect(cells[1]).toMatch(/^\d\d:\d\d:\d\d$/);
    // Go's `…` around the expression is drawn as code, not shown.
    expect(cells.slice(2)).toEqual(['verification_failed', 'verify list.exit_code == 0 is false', 'exit_code: 3']);
    expect(within(rows[0]).getAllByRole('cell')[3].querySelector('code')?.textContent).toBe('list.exit_code == 0');
    expect(within(rows[1]).getAllByRole('cell')[4]).toHaveTextContent('—');
    expect(screen.getByTestId('esc-last-error')).toHaveTextContent('permission denied');
  });

  it('sends retry, skip and abort', () => {
    const { onRespond } = setup();
    fireEvent.click(screen.getByTestId('esc-retry'));
    fireEvent.click(screen.getByTestId('esc-skip'));
    fireEvent.click(screen.getByTestId('esc-abort'));
    expect(onRespond.mock.calls.map((c) => c[0])).toEqual([{ action: 'retry' }, { action: 'skip' }, { action: 'abort' }]);
  });

  it('offers replan only when the run can replan, and says why not', () => {
    const { onRespond, unmount } = setup();
    expect(screen.getByTestId('esc-replan')).toBeDisabled();
    expect(screen.getByTestId('esc-replan-note')).toHaveTextContent('Replanning needs a model.');
    unmount();
    const second = setup({ can_replan: true, choices: ['retry', 'skip', 'abort', 'fix', 'replan'] });
    expect(screen.queryByTestId('esc-replan-note')).toBeNull();
    fireEvent.click(screen.getByTestId('esc-replan'));
    expect(second.onRespond).toHaveBeenCalledWith({ action: 'replan' });
    expect(onRespond).not.toHaveBeenCalled();
  });

  it('fixes a Tool step with JSON arguments, starting from its own', () => {
    const { onRespond } = setup();
    fireEvent.click(screen.getByTestId('esc-fix'));
    const text = screen.getByTestId<HTMLTextAreaElement>('esc-fix-text');
    expect(JSON.parse(text.value)).toEqual({ command: "sh -c 'exit 3'" });

    fireEvent.change(text, { target: { value: '{"command": ' } });
    expect(screen.getByTestId('esc-fix-error')).toHaveTextContent('Not valid JSON');
    expect(screen.getByTestId('esc-fix-send')).toBeDisabled();
    fireEvent.change(text, { target: { value: '["x"]' } });
    expect(screen.getByTestId('esc-fix-error')).toHaveTextContent('must be a JSON object');

    fireEvent.change(text, { target: { value: '{"command": "true", "cwd": null}' } });
    expect(screen.queryByTestId('esc-fix-error')).toBeNull();
    fireEvent.click(screen.getByTestId('esc-fix-send'));
    expect(onRespond).toHaveBeenCalledWith({ action: 'fix', arguments: { command: 'true', cwd: null } });
  });

  it('fixes an AI step with an instruction', () => {
    const { onRespond } = setup({ node_type: 'AiStep', tool: undefined }, { id: 'n4', key: 'sum', name: 'Summarise', type: 'AiStep', params: { prompt: 'x' } });
    fireEvent.click(screen.getByTestId('esc-fix'));
    const text = screen.getByTestId('esc-fix-text');
    expect(text).toHaveValue('');
    expect(screen.getByTestId('esc-fix-send')).toBeDisabled();
    fireEvent.change(text, { target: { value: '  Answer in JSON with the key "summary".  ' } });
    fireEvent.click(screen.getByTestId('esc-fix-send'));
    expect(onRespond).toHaveBeenCalledWith({ action: 'fix', instruction: 'Answer in JSON with the key "summary".' });
  });

  it('shows why an answer was refused before', () => {
    setup({ notice: 'a fix for the Tool node is a JSON object' });
    expect(screen.getByTestId('esc-notice')).toHaveTextContent('a fix for the Tool node is a JSON object');
  });

  it('parses arguments', () => {
    expect(parseArguments('{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(parseArguments('{}').error).toMatch(/empty/);
    expect(parseArguments('nope').error).toMatch(/Not valid JSON/);
  });
});
