import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import type { SecretEntry } from '../../api';
import { nameError, parseList, SecretsSection, type SecretsApi } from './SecretsSection';

const VALUE = 'ghp_secretsSectionTest0123456789';

// fakeStore behaves like backend/credentials: it keeps values apart and
// lists names, bindings and where each is stored, never a value.
function fakeStore() {
  const entries = new Map<string, SecretEntry>();
  const values = new Map<string, string>();
  const impl = {
    listSecrets: vi.fn(async () => ({ secrets: [...entries.values()].map((e) => ({ ...e })) })),
    setSecret: vi.fn(async (name: string, value: string, hosts: string[], tools: string[]) => {
      if (hosts.some((h) => h.includes('://'))) throw new Error(`secret ${name}: host "${hosts[0]}": a host has no scheme`);
      values.set(name, value);
      entries.set(name, { name, hosts, tools, stored: 'keyring' });
    }),
    setSecretBindings: vi.fn(async (name: string, hosts: string[], tools: string[]) => {
      entries.set(name, { ...entries.get(name)!, hosts, tools });
    }),
    removeSecret: vi.fn(async (name: string) => {
      entries.delete(name);
      values.delete(name);
    }),
  };
  return { impl, entries, values };
}

let store: ReturnType<typeof fakeStore>;

function renderSection() {
  return render(<SecretsSection apiImpl={store.impl as unknown as SecretsApi} />);
}

beforeEach(() => {
  store = fakeStore();
});

describe('Secrets in Preferences', () => {
  it('parses lists and checks names as the store does', () => {
    expect(parseList(' api.x.com,*.y.com  z.com:8443 ,')).toEqual(['api.x.com', '*.y.com', 'z.com:8443']);
    for (const bad of ['1A', 'A-B', 'a b', 'A'.repeat(65)]) expect(nameError(bad, false)).toBeTruthy();
    expect(nameError('A'.repeat(64), false)).toBeUndefined();
    expect(nameError('_ok_1', false)).toBeUndefined();
    expect(nameError('GH', true)).toMatch(/has this name/);
  });

  it('adds a secret with its value in a password field, and never shows the value', async () => {
    const { container } = renderSection();
    await screen.findByTestId('secrets-empty');
    const value = screen.getByTestId<HTMLInputElement>('secret-value');
    expect(value.type).toBe('password');
    expect(screen.getByTestId('secret-add')).toBeDisabled();
    fireEvent.change(screen.getByTestId('secret-name'), { target: { value: 'GH_TOKEN' } });
    fireEvent.change(value, { target: { value: VALUE } });
    fireEvent.change(screen.getByTestId('secret-hosts'), { target: { value: 'api.github.com, *.github.com' } });
    fireEvent.change(screen.getByTestId('secret-tools'), { target: { value: 'run_command' } });
    fireEvent.click(screen.getByTestId('secret-add'));
    const row = await screen.findByTestId('secret-row');
    expect(store.impl.setSecret).toHaveBeenCalledWith('GH_TOKEN', VALUE, ['api.github.com', '*.github.com'], ['run_command']);
    expect(row.textContent).toContain('GH_TOKEN');
    expect(row.textContent).toContain('api.github.com, *.github.com');
    expect(within(row).getByTestId('secret-stored').textContent).toBe('OS keyring');
    // The form is cleared: the value is nowhere on the page any more.
    expect(value.value).toBe('');
    expect(container.innerHTML).not.toContain(VALUE);
    // A taken name is refused before the backend is asked.
    fireEvent.change(screen.getByTestId('secret-name'), { target: { value: 'GH_TOKEN' } });
    fireEvent.change(value, { target: { value: 'x' } });
    expect(screen.getByTestId('secret-add')).toBeDisabled();
  });

  it('Enter in a field adds here, its default (submitting the preferences form) prevented', async () => {
    renderSection();
    await screen.findByTestId('secrets-empty');
    fireEvent.change(screen.getByTestId('secret-name'), { target: { value: 'K' } });
    fireEvent.change(screen.getByTestId('secret-value'), { target: { value: 'v' } });
    // fireEvent returns false when a handler called preventDefault.
    expect(fireEvent.keyDown(screen.getByTestId('secret-value'), { key: 'Enter' })).toBe(false);
    await screen.findByTestId('secret-row');
    expect(store.impl.setSecret).toHaveBeenCalledWith('K', 'v', [], []);
  });

  it('shows the store refusing a host', async () => {
    renderSection();
    await screen.findByTestId('secrets-empty');
    fireEvent.change(screen.getByTestId('secret-name'), { target: { value: 'K' } });
    fireEvent.change(screen.getByTestId('secret-value'), { target: { value: 'v' } });
    fireEvent.change(screen.getByTestId('secret-hosts'), { target: { value: 'https://api.x.com' } });
    fireEvent.click(screen.getByTestId('secret-add'));
    expect((await screen.findByTestId('secrets-error')).textContent).toMatch(/no scheme/);
    expect(screen.queryByTestId('secret-row')).toBeNull();
    // What was typed stays, so it can be corrected.
    expect(screen.getByTestId<HTMLInputElement>('secret-value').value).toBe('v');
  });

  it('edits bindings without the value, and removes only after a confirmation', async () => {
    await store.impl.setSecret('API', VALUE, ['api.x.com'], []);
    renderSection();
    await screen.findByTestId('secret-row');
    fireEvent.click(screen.getByRole('button', { name: 'Edit where API may go' }));
    const hosts = screen.getByLabelText<HTMLInputElement>('Hosts', { selector: '.secret-edit input' });
    expect(hosts.value).toBe('api.x.com');
    fireEvent.change(hosts, { target: { value: 'api.x.com api.y.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save bindings' }));
    await waitFor(() => expect(screen.getByTestId('secret-row').textContent).toContain('api.x.com, api.y.com'));
    expect(store.impl.setSecretBindings).toHaveBeenCalledWith('API', ['api.x.com', 'api.y.com'], []);
    expect(store.values.get('API')).toBe(VALUE);

    fireEvent.click(screen.getByRole('button', { name: 'Remove secret API' }));
    expect(store.impl.removeSecret).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
    expect(store.entries.has('API')).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Remove secret API' }));
    fireEvent.click(screen.getByTestId('secret-remove-confirm'));
    await screen.findByTestId('secrets-empty');
    expect(store.impl.removeSecret).toHaveBeenCalledWith('API');
  });

  it('says where each value is stored and what an unreadable index became', async () => {
    store.impl.listSecrets.mockResolvedValueOnce({
      secrets: [{ name: 'F', stored: 'file' }],
      warning: 'secrets index … could not be read; moved it to …corrupt-1',
    } as never);
    renderSection();
    const row = await screen.findByTestId('secret-row');
    expect(within(row).getByTestId('secret-stored').textContent).toMatch(/file/);
    expect(row.textContent).toMatch(/no step can use it/);
    expect(screen.getByText(/moved it to/)).toBeTruthy();
  });
});
