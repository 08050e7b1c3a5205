import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Settings, SettingsView } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { formFromSettings, joinArgs, keyArg, keyStatus, MAX_REPAIR_HELP, settingsFromForm, splitArgs, validateForm } from './form';
import { PreferencesDialog, type PrefsApi } from './PreferencesDialog';

function settings(): Settings {
  return {
    max_repair_attempts: 3,
    llm: { base_url: 'http://localhost:11434/v1', model: 'qwen3', timeout_s: 120, total_timeout_s: 0, structured_output: '' },
    features: { allow_ai_transforms: true, allow_agent_steps: false },
    mcp_servers: {
      fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/my files'], env: { DEBUG: '1' } },
    },
    run: { default_retries: 2, retention_runs: 50, auto_replan: { enabled: true, max_per_run: 2, min_severity: 'HIGH' } },
    engine: { kind: 'local', temporal: { address: '', namespace: 'default', task_queue: 'weft', tls: false } },
  };
}

function view(over: Partial<SettingsView> = {}): SettingsView {
  return {
    settings: settings(),
    api_key_set: true,
    api_key_masked: 'sk-…cdef',
    path: '/home/u/.config/weft/settings.json',
    warnings: [],
    ...over,
  };
}

let fake: { [K in keyof PrefsApi]: ReturnType<typeof vi.fn> };
let onClose: ReturnType<typeof vi.fn>;

async function open(v = view()) {
  fake.getSettings.mockResolvedValue(v);
  render(<PreferencesDialog onClose={onClose as unknown as () => void} apiImpl={fake as unknown as PrefsApi} />);
  await screen.findByTestId('pref-max-repair');
}

beforeEach(() => {
  fake = {
    getSettings: vi.fn(),
    saveSettings: vi.fn().mockResolvedValue([]),
    testConnection: vi.fn(),
    // The endpoint in the form is the saved one, unless a test says not.
    storedKeyUse: vi.fn().mockResolvedValue({ stored: true, saved: true, host: 'localhost:11434', endpoint: 'http://localhost:11434/v1' }),
  };
  onClose = vi.fn();
});

describe('preferences form', () => {
  it('round-trips settings, keeping fields it does not edit', () => {
    const s = settings();
    const f = formFromSettings(s);
    expect(f.mcp[0]).toMatchObject({ name: 'fs', command: 'npx', args: '-y @modelcontextprotocol/server-filesystem "/my files"' });
    expect(settingsFromForm(f, s)).toEqual({ ...s, llm: { ...s.llm, api_key: undefined } });
  });

  it('splits and joins arguments with quotes', () => {
    expect(splitArgs(` -y  "a b" 'c "d"' e\\ f ""`)).toEqual(['-y', 'a b', 'c "d"', 'e f', '']);
    for (const args of [['x'], ['a b', 'c"d', ''], ['back\\slash']]) expect(splitArgs(joinArgs(args))).toEqual(args);
  });

  it('checks every field as the backend does', () => {
    const f = formFromSettings(settings());
    expect(validateForm(f)).toEqual({});
    const bad = {
      ...f,
      baseUrl: 'localhost:11434',
      maxRepair: '11',
      timeoutS: '0',
      defaultRetries: '1.5',
      retentionRuns: 'x',
      mcp: [
        { ...f.mcp[0], name: 'my.fs', env: [{ id: 1, key: 'A=B', value: '' }] },
        { id: 99, name: 'two', command: ' ', args: '', env: [] },
        { id: 100, name: 'two', command: 'x', args: '', env: [] },
      ],
    };
    const e = validateForm(bad);
    expect(Object.keys(e).sort()).toEqual(
      [
        'baseUrl',
        'defaultRetries',
        'maxRepair',
        'retentionRuns',
        'timeoutS',
        `mcp.${f.mcp[0].id}.name`,
        `mcp.${f.mcp[0].id}.env.1`,
        'mcp.99.command',
        'mcp.100.name',
      ].sort(),
    );
    expect(e.maxRepair).toBe('Must be from 0 to 10');
    expect(validateForm({ ...f, maxRepair: '0' })).toEqual({});
    expect(validateForm({ ...f, maxRepair: '10' })).toEqual({});
  });

  it('checks the Temporal engine fields only when it is picked', () => {
    const f = { ...formFromSettings(settings()), engine: 'temporal' as const, temporalAddress: 'temporal.example' };
    expect(validateForm(f).temporalAddress).toMatch(/host:port/);
    expect(validateForm({ ...f, temporalAddress: 'temporal.example:7233' })).toEqual({});
    expect(validateForm({ ...f, engine: 'local' })).toEqual({});
    expect(settingsFromForm({ ...f, temporalAddress: ' t:7233 ' }, settings()).engine).toEqual({
      kind: 'temporal',
      temporal: { address: 't:7233', namespace: 'default', task_queue: 'weft', tls: false },
    });
  });

  it('says what happens to the API key', () => {
    const v = { api_key_set: true, api_key_masked: 'sk-…cdef' };
    expect(keyStatus(v, { mode: 'keep' })).toBe('set (sk-…cdef)');
    expect(keyStatus({ api_key_set: false, api_key_masked: '' }, { mode: 'keep' })).toBe('not set');
    expect(keyStatus(v, { mode: 'replace', value: 'sk-new' })).toBe('will be replaced on save');
    expect(keyStatus(v, { mode: 'clear' })).toBe('will be cleared on save');
    expect(keyArg({ mode: 'keep' })).toBeNull();
    expect(keyArg({ mode: 'clear' })).toBe('');
    expect(keyArg({ mode: 'replace', value: ' sk-new ' })).toBe('sk-new');
  });
});

describe('PreferencesDialog', () => {
  it('has a Secrets section when the api reaches the credentials store', async () => {
    await open();
    expect(screen.queryByTestId('prefs-secrets')).toBeNull();
    cleanup();
    Object.assign(fake, {
      listSecrets: vi.fn().mockResolvedValue({ secrets: [{ name: 'GH_TOKEN', hosts: ['api.github.com'], stored: 'file' }] }),
      setSecret: vi.fn(),
      setSecretBindings: vi.fn(),
      removeSecret: vi.fn(),
    });
    await open();
    const section = screen.getByTestId('prefs-secrets');
    expect(await within(section).findByText('GH_TOKEN')).toBeTruthy();
  });

  it('shows the settings, the file path, load warnings and the repair help text', async () => {
    await open(view({ warnings: ['max_repair_attempts 42 is out of range 0–10; using 10'] }));
    expect(screen.getByTestId('pref-max-repair')).toHaveValue(3);
    expect(screen.getByTestId('pref-base-url')).toHaveValue('http://localhost:11434/v1');
    expect(screen.getByText(MAX_REPAIR_HELP)).toBeInTheDocument();
    expect(MAX_REPAIR_HELP).toBe('0 = skip validation, 1 = validate only, N = validate and retry (up to N model calls)');
    expect(screen.getByTestId('settings-path')).toHaveTextContent('/home/u/.config/weft/settings.json');
    expect(screen.getByTestId('settings-warnings')).toHaveTextContent('out of range');
    expect(screen.getByTestId('pref-api-key-status')).toHaveTextContent('set (sk-…cdef)');
    expect(screen.getByTestId('pref-api-key')).toHaveAttribute('type', 'password');
    expect(screen.getAllByTestId('mcp-server')).toHaveLength(1);
  });

  it('disables Save while a field is invalid and shows the error inline', async () => {
    await open();
    const save = screen.getByTestId('prefs-save');
    expect(save).toBeDisabled(); // nothing changed yet
    fireEvent.change(screen.getByTestId('pref-max-repair'), { target: { value: '12' } });
    expect(await screen.findByText('Must be from 0 to 10')).toBeInTheDocument();
    expect(save).toBeDisabled();
    fireEvent.change(screen.getByTestId('pref-max-repair'), { target: { value: '5' } });
    expect(screen.queryByText('Must be from 0 to 10')).toBeNull();
    expect(save).toBeEnabled();
  });

  it('saves through the backend with the key untouched, and closes', async () => {
    await open();
    fireEvent.change(screen.getByTestId('pref-max-repair'), { target: { value: '5' } });
    fireEvent.click(screen.getByTestId('pref-agent-steps'));
    await act(async () => fireEvent.click(screen.getByTestId('prefs-save')));
    expect(fake.saveSettings).toHaveBeenCalledTimes(1);
    const [s, key] = fake.saveSettings.mock.calls[0];
    expect(s.max_repair_attempts).toBe(5);
    expect(s.features.allow_agent_steps).toBe(true);
    expect(s.run.retention_runs).toBe(50);
    expect(s.run.auto_replan).toEqual({ enabled: true, max_per_run: 2, min_severity: 'HIGH' });
    expect(key).toBeNull();
    expect(onClose).toHaveBeenCalled();
    expect(useStore.getState().status?.text).toBe('Preferences saved.');
  });

  it('picks the Temporal engine and saves its address', async () => {
    await open();
    fireEvent.change(screen.getByTestId('pref-engine'), { target: { value: 'temporal' } });
    const addr = screen.getByTestId('pref-temporal-address');
    fireEvent.change(addr, { target: { value: 'nope' } });
    expect(screen.getByTestId('prefs-save')).toBeDisabled();
    fireEvent.change(addr, { target: { value: 'localhost:7233' } });
    fireEvent.click(screen.getByTestId('prefs-save'));
    await waitFor(() => expect(fake.saveSettings).toHaveBeenCalled());
    expect(fake.saveSettings.mock.calls[0][0].engine).toEqual({ kind: 'temporal', temporal: { address: 'localhost:7233', namespace: 'default', task_queue: 'weft', tls: false } });
  });

  it('stores Temporal credentials in the keyring through the backend, never in the settings', async () => {
    fake.getTemporalCredentials = vi.fn().mockResolvedValue({ api_key_set: true, payload_key_set: false, api_key_env: false, payload_key_env: false });
    fake.setTemporalCredentials = vi.fn().mockResolvedValue({ api_key_set: true, payload_key_set: true, api_key_env: false, payload_key_env: false });
    await open();
    fireEvent.change(screen.getByTestId('pref-engine'), { target: { value: 'temporal' } });
    fireEvent.change(screen.getByTestId('pref-temporal-address'), { target: { value: 'localhost:7233' } });
    await waitFor(() => expect(screen.getByText(/Stored in the OS keyring \(Temporal Cloud\)/)).toBeInTheDocument());
    fireEvent.change(screen.getByTestId('pref-temporal-payload-key'), { target: { value: 'a2V5a2V5' } });
    fireEvent.click(screen.getByTestId('prefs-save'));
    await waitFor(() => expect(fake.setTemporalCredentials).toHaveBeenCalledWith(undefined, 'a2V5a2V5'));
    expect(JSON.stringify(fake.saveSettings.mock.calls[0][0])).not.toContain('a2V5a2V5');
  });

  it('shows the backend error and stays open', async () => {
    fake.saveSettings.mockRejectedValue('save settings: permission denied');
    await open();
    fireEvent.change(screen.getByTestId('pref-model'), { target: { value: 'llama3' } });
    await act(async () => fireEvent.click(screen.getByTestId('prefs-save')));
    expect(screen.getByTestId('save-error')).toHaveTextContent('permission denied');
    expect(onClose).not.toHaveBeenCalled();
  });

  it('replaces or clears the API key', async () => {
    await open();
    fireEvent.change(screen.getByTestId('pref-api-key'), { target: { value: 'sk-new-key' } });
    expect(screen.getByTestId('pref-api-key-status')).toHaveTextContent('will be replaced on save');
    fireEvent.click(screen.getByTestId('pref-api-key-clear'));
    expect(screen.getByTestId('pref-api-key-status')).toHaveTextContent('will be cleared on save');
    await act(async () => fireEvent.click(screen.getByTestId('prefs-save')));
    expect(fake.saveSettings.mock.calls[0][1]).toBe('');
  });

  it('adds and removes MCP servers with environment variables', async () => {
    await open();
    fireEvent.click(screen.getByTestId('mcp-add'));
    const rows = screen.getAllByTestId('mcp-server');
    expect(rows).toHaveLength(2);
    expect(screen.getByText('Enter a name')).toBeInTheDocument();
    expect(screen.getByTestId('prefs-save')).toBeDisabled();
    const names = screen.getAllByLabelText('Server name');
    fireEvent.change(names[1], { target: { value: 'web' } });
    fireEvent.change(screen.getAllByLabelText('Command')[1], { target: { value: 'web-mcp' } });
    fireEvent.change(screen.getAllByLabelText('Arguments')[1], { target: { value: '--port 9 "x y"' } });
    fireEvent.click(screen.getAllByRole('button', { name: /environment variable/ })[1]);
    fireEvent.change(screen.getAllByLabelText('Variable')[1], { target: { value: 'TOKEN' } });
    fireEvent.change(screen.getAllByLabelText('Value')[1], { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove server fs' }));
    await act(async () => fireEvent.click(screen.getByTestId('prefs-save')));
    expect(fake.saveSettings.mock.calls[0][0].mcp_servers).toEqual({
      web: { command: 'web-mcp', args: ['--port', '9', 'x y'], env: { TOKEN: 'abc' } },
    });
  });

  it('edits automatic replanning and saves it', async () => {
    await open();
    expect(screen.getByTestId<HTMLInputElement>('pref-auto-replan').checked).toBe(true);
    fireEvent.change(screen.getByTestId('pref-auto-replan-max'), { target: { value: '9' } });
    expect(await screen.findByText('Must be from 1 to 5')).toBeTruthy();
    fireEvent.change(screen.getByTestId('pref-auto-replan-max'), { target: { value: '4' } });
    fireEvent.change(screen.getByTestId('pref-auto-replan-severity'), { target: { value: 'CRITICAL' } });
    await act(async () => fireEvent.click(screen.getByTestId('prefs-save')));
    expect(fake.saveSettings).toHaveBeenCalledTimes(1);
    expect(fake.saveSettings.mock.calls[0][0].run.auto_replan).toEqual({ enabled: true, max_per_run: 4, min_severity: 'CRITICAL' });
  });

  it('tests the connection with the values in the form', async () => {
    fake.testConnection.mockResolvedValue({
      endpoint: 'http://127.0.0.1:9/v1',
      model: 'm',
      model_listed: true,
      chat_checked: false,
      latency_ns: 12e6,
      message: 'Connected to http://127.0.0.1:9/v1; model "m" is available (1 models).',
    });
    await open();
    fireEvent.change(screen.getByTestId('pref-base-url'), { target: { value: 'http://127.0.0.1:9/v1' } });
    fireEvent.change(screen.getByTestId('pref-model'), { target: { value: 'm' } });
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(fake.testConnection).toHaveBeenCalledWith({ base_url: 'http://127.0.0.1:9/v1', model: 'm', timeout_s: 120 }, null, false);
    await waitFor(() => expect(screen.getByTestId('test-connection-result')).toHaveTextContent('is available'));
    expect(screen.getByTestId('test-connection-result')).toHaveTextContent('(12 ms)');

    fake.testConnection.mockRejectedValue('endpoint unreachable');
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(screen.getByTestId('test-connection-result')).toHaveTextContent('endpoint unreachable');
  });

  it('asks before the stored API key goes to an endpoint that is not saved, naming its host', async () => {
    fake.storedKeyUse.mockResolvedValue({ stored: true, saved: false, host: 'models.example.net:8443', endpoint: 'https://models.example.net:8443/v1' });
    fake.testConnection.mockResolvedValue({ endpoint: '', model: 'm', model_listed: true, chat_checked: false, latency_ns: 0, message: 'Connected.' });
    await open();
    const llm = { base_url: 'https://models.example.net:8443/v1', model: 'qwen3', timeout_s: 120 };
    fireEvent.change(screen.getByTestId('pref-base-url'), { target: { value: llm.base_url } });
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(fake.storedKeyUse).toHaveBeenLastCalledWith(llm.base_url);
    // Nothing is sent before the person answers.
    expect(fake.testConnection).not.toHaveBeenCalled();
    expect(screen.getByTestId('test-connection-ask')).toHaveTextContent('Send it to models.example.net:8443 to test this one?');

    // Without the key: Go is told to withhold it, and the result says so.
    await act(async () => fireEvent.click(screen.getByTestId('test-without-key')));
    expect(fake.testConnection).toHaveBeenLastCalledWith(llm, null, false);
    expect(screen.getByTestId('test-connection-withheld')).toHaveTextContent('not sent to models.example.net:8443');

    // Confirmed: the key is sent there.
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(fake.testConnection).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.click(screen.getByTestId('test-send-key')));
    expect(fake.testConnection).toHaveBeenLastCalledWith(llm, null, true);
    expect(screen.queryByTestId('test-connection-withheld')).toBeNull();

    // A key typed into the form is the person's choice: no question.
    fake.storedKeyUse.mockClear();
    fireEvent.change(screen.getByTestId('pref-api-key'), { target: { value: 'sk-typed' } });
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(fake.storedKeyUse).not.toHaveBeenCalled();
    expect(fake.testConnection).toHaveBeenLastCalledWith(llm, 'sk-typed', false);
  });

  it('does not ask when no key is stored or the endpoint is the saved one', async () => {
    fake.testConnection.mockResolvedValue({ endpoint: '', model: 'm', model_listed: true, chat_checked: false, latency_ns: 0, message: 'Connected.' });
    await open();
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(fake.testConnection).toHaveBeenLastCalledWith({ base_url: 'http://localhost:11434/v1', model: 'qwen3', timeout_s: 120 }, null, false);
    fake.storedKeyUse.mockResolvedValue({ stored: false, saved: false, host: 'elsewhere:1', endpoint: 'http://elsewhere:1/v1' });
    await act(async () => fireEvent.click(screen.getByTestId('test-connection')));
    expect(fake.testConnection).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('test-connection-ask')).toBeNull();
  });

  it('closes on Escape and shows a load error', async () => {
    fake.getSettings.mockRejectedValue('settings: no home');
    render(<PreferencesDialog onClose={onClose as unknown as () => void} apiImpl={fake as unknown as PrefsApi} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('no home');
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });
});
