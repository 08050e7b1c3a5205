import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../store';
import { fixtureOpen } from '../test/fixtures';
import type { NeededSecret } from '../types';
import { SecretsNeededDialog, type SecretsNeededApi } from './SecretsNeededDialog';

const VALUE = 'ghp_neededDialogTest0123456789';

// fakeStore answers as Go does: a secret is missing until it is stored.
function fakeStore(needed: NeededSecret[]) {
  const values = new Map<string, string>();
  const impl = {
    setSecret: vi.fn(async (name: string, value: string, hosts: string[]) => {
      if (hosts.some((h) => h.includes('://'))) throw new Error(`secret ${name}: host "${hosts[0]}": a host has no scheme`);
      values.set(name, value);
    }),
    workflowSecrets: vi.fn(async () => needed.map((n) => ({ ...n, missing: !values.has(n.name) }))),
  };
  return { impl, values };
}

const TOKEN: NeededSecret = { name: 'API_TOKEN', hosts: ['api.example.com', '127.0.0.1:8443'], tools: [], nodes: ['n1'], missing: true };
const CMD: NeededSecret = { name: 'DEPLOY_KEY', hosts: [], tools: ['run_command'], nodes: ['n1', 'n3'], missing: true };

function show(needed: NeededSecret[]) {
  const f = fakeStore(needed);
  const onSaved = vi.fn();
  act(() => {
    useStore.getState().loadDocument(fixtureOpen());
    useStore.getState().setMissingSecrets(useStore.getState().doc, needed);
    useStore.getState().setSecretsAskOpen(true);
  });
  render(<SecretsNeededDialog apiImpl={f.impl as unknown as SecretsNeededApi} onSaved={onSaved} />);
  return { ...f, onSaved };
}

const row = (name: string) => screen.getAllByTestId('needed-secret').find((r) => r.dataset.name === name)!;

beforeEach(() => {
  act(() => {
    useStore.getState().setSecretsAskOpen(false);
    useStore.getState().setMissingSecrets(null, []);
  });
});

describe('the secrets a workflow lacks', () => {
  it('lists each with the steps that use it and the hosts and tools suggested', () => {
    show([TOKEN, CMD]);
    expect(screen.getAllByTestId('needed-secret').map((r) => r.dataset.name)).toEqual(['API_TOKEN', 'DEPLOY_KEY']);
    expect(within(row('API_TOKEN')).getByTestId('needed-secret-hosts')).toHaveProperty('value', 'api.example.com, 127.0.0.1:8443');
    expect(within(row('DEPLOY_KEY')).getByTestId('needed-secret-tools')).toHaveProperty('value', 'run_command');
    expect(row('DEPLOY_KEY').textContent).toContain('used by List files, Is big');
    expect(within(row('API_TOKEN')).getByTestId('needed-secret-value')).toHaveProperty('type', 'password');
    expect(within(row('API_TOKEN')).getByTestId('needed-secret-save')).toHaveProperty('disabled', true);
  });

  it('stores a value with the bindings as edited, then lists only what is still missing', async () => {
    const f = show([TOKEN, CMD]);
    const r = row('API_TOKEN');
    fireEvent.change(within(r).getByTestId('needed-secret-value'), { target: { value: VALUE } });
    fireEvent.change(within(r).getByTestId('needed-secret-hosts'), { target: { value: 'api.example.com  *.example.org' } });
    fireEvent.click(within(r).getByTestId('needed-secret-save'));
    await waitFor(() => expect(screen.getAllByTestId('needed-secret')).toHaveLength(1));
    expect(f.impl.setSecret).toHaveBeenCalledWith('API_TOKEN', VALUE, ['api.example.com', '*.example.org'], []);
    expect(f.onSaved).toHaveBeenCalledTimes(1);
    expect(document.body.textContent).not.toContain(VALUE);
    // The last one stored: the dialog closes.
    const last = row('DEPLOY_KEY');
    fireEvent.change(within(last).getByTestId('needed-secret-value'), { target: { value: 'k' } });
    fireEvent.submit(within(last).getByTestId('needed-secret-value'));
    await waitFor(() => expect(screen.queryByTestId('secrets-needed')).toBeNull());
    expect(useStore.getState().secretsAskOpen).toBe(false);
    expect(useStore.getState().missingSecrets).toEqual([]);
  });

  it('says why a secret was not stored and keeps asking for it', async () => {
    const f = show([TOKEN]);
    const r = row('API_TOKEN');
    fireEvent.change(within(r).getByTestId('needed-secret-value'), { target: { value: VALUE } });
    fireEvent.change(within(r).getByTestId('needed-secret-hosts'), { target: { value: 'https://api.example.com' } });
    fireEvent.click(within(r).getByTestId('needed-secret-save'));
    expect((await screen.findByTestId('needed-secret-error')).textContent).toContain('a host has no scheme');
    expect(f.values.size).toBe(0);
    expect(row('API_TOKEN')).toBeTruthy();
  });

  it('Later (or Escape) closes it and keeps the secrets listed as missing', () => {
    show([TOKEN, CMD]);
    // The first value has the focus, so typing starts there and Escape reaches the dialog.
    expect(document.activeElement).toBe(within(row('API_TOKEN')).getByTestId('needed-secret-value'));
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(screen.queryByTestId('secrets-needed')).toBeNull();
    act(() => useStore.getState().setSecretsAskOpen(true));
    fireEvent.click(screen.getByTestId('secrets-needed-later'));
    expect(screen.queryByTestId('secrets-needed')).toBeNull();
    expect(useStore.getState().missingSecrets).toEqual([TOKEN, CMD]);
  });
});
