import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)) }));

import { useStore } from '../store';
import type { Problem, Workflow } from '../types';
import { MoveToSecretsDialog } from './MoveToSecretsDialog';
import { ProblemsPanel } from './ProblemsPanel';

const initial = useStore.getState();
const TOKEN = 'Zq8Xw3Vb7Nm2Lk5Jh9Gf4Ds1Pa6Ou0IyTr';

function withFetch(): Workflow {
  const w = fixtureWorkflow();
  w.nodes[0] = {
    ...w.nodes[0],
    params: { tool: 'http_request', arguments: { method: 'GET', url: 'https://api.example.com:8443/v1', headers: { Authorization: `Bearer ${TOKEN}` } } },
  };
  return w;
}

const problem: Problem = {
  code: 'literal_secret',
  severity: 'warning',
  message: "'List files' has what looks like a secret … (35 characters)",
  node_ids: ['n1'],
  edges: null,
  path: '/headers/Authorization',
  key: 'Authorization',
  secret: 'API_TOKEN',
};

function authOf(w: Workflow | null): string {
  const args = w?.nodes[0].params as { arguments: { headers: { Authorization: string } } };
  return args.arguments.headers.Authorization;
}

beforeEach(() => {
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen({ workflow: withFetch() }));
});

describe('Move to secrets', () => {
  it('is offered on a literal_secret warning only', () => {
    useStore.getState().setValidation({
      valid: true,
      problems: [problem, { code: 'unknown_tool', severity: 'warning', message: 'x', node_ids: ['n1'], edges: null }],
    });
    render(<ProblemsPanel />);
    expect(screen.getAllByTestId('move-to-secrets-button')).toHaveLength(1);
    fireEvent.click(screen.getByTestId('move-to-secrets-button'));
    expect(screen.getByTestId('move-to-secrets')).toBeInTheDocument();
  });

  it('prefills the name and host, commits the rewritten workflow as one undo step and never shows the value', async () => {
    const moveLiteralToSecrets = vi.fn(async (w: Workflow) => {
      const out = structuredClone(w);
      (out.nodes[0].params as { arguments: { headers: Record<string, string> } }).arguments.headers.Authorization = 'Bearer {{secrets.MY_TOKEN}}';
      return out;
    });
    const onClose = vi.fn();
    render(<MoveToSecretsDialog problem={problem} onClose={onClose} apiImpl={{ moveLiteralToSecrets }} />);
    expect(screen.getByTestId('move-secret-name')).toHaveValue('API_TOKEN');
    expect(screen.getByTestId('move-secret-hosts')).toHaveValue('api.example.com:8443');
    expect(screen.getByTestId('move-secret-tools')).toHaveValue('');
    expect(document.body.innerHTML).not.toContain(TOKEN);
    const pastBefore = useStore.getState().past.length;

    fireEvent.change(screen.getByTestId('move-secret-name'), { target: { value: 'MY_TOKEN' } });
    fireEvent.click(screen.getByTestId('move-secret-save'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(moveLiteralToSecrets).toHaveBeenCalledWith(expect.anything(), 'n1', '/headers/Authorization', 'Authorization', 'MY_TOKEN', ['api.example.com:8443'], []);
    expect(authOf(useStore.getState().doc)).toBe('Bearer {{secrets.MY_TOKEN}}');
    expect(useStore.getState().past.length).toBe(pastBefore + 1);
    useStore.getState().undo();
    expect(authOf(useStore.getState().doc)).toBe(`Bearer ${TOKEN}`);
  });

  it('shows what Go refused and changes nothing', async () => {
    const moveLiteralToSecrets = vi.fn(async () => {
      throw new Error('a secret named API_TOKEN already holds another value');
    });
    const before = useStore.getState().doc;
    render(<MoveToSecretsDialog problem={problem} onClose={() => {}} apiImpl={{ moveLiteralToSecrets }} />);
    fireEvent.click(screen.getByTestId('move-secret-save'));
    expect(await screen.findByTestId('move-secret-error')).toHaveTextContent('another value');
    expect(useStore.getState().doc).toBe(before);
  });

  it('refuses a bad name before asking Go', () => {
    const moveLiteralToSecrets = vi.fn();
    render(<MoveToSecretsDialog problem={problem} onClose={() => {}} apiImpl={{ moveLiteralToSecrets }} />);
    fireEvent.change(screen.getByTestId('move-secret-name'), { target: { value: '1 bad' } });
    expect(screen.getByTestId('move-secret-save')).toBeDisabled();
  });
});
