import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { SettingsView } from '../../types';

vi.mock('../../api', () => ({ api: {}, errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)) }));

import { ModelSetup, type SetupApi } from './ModelSetup';

function view(): SettingsView {
  return {
    settings: { max_repair_attempts: 3, llm: { base_url: '', model: '', timeout_s: 60 }, features: { allow_ai_transforms: false, allow_agent_steps: false } } as never,
    api_key_set: false,
    api_key_masked: '',
    path: '/tmp/settings.json',
    warnings: [],
  };
}

function deps(over: Partial<Record<keyof SetupApi, unknown>> = {}) {
  return {
    getSettings: vi.fn(async () => view()),
    saveSettings: vi.fn(async () => []),
    testConnection: vi.fn(async () => ({ message: 'Connected to http://127.0.0.1:11434/v1; model "qwen3:8b" is available (2 models).' })),
    discoverModelServers: vi.fn(async () => [
      { name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', models: ['llama3.2', 'qwen3:8b'] },
      { name: 'vLLM', base_url: 'http://127.0.0.1:8000/v1', models: [] },
    ]),
    ...over,
  } as unknown as SetupApi & Record<keyof SetupApi, ReturnType<typeof vi.fn>>;
}

describe('ModelSetup', () => {
  it('finds local servers, tests the chosen model and saves it', async () => {
    const d = deps();
    const onDone = vi.fn();
    render(<ModelSetup deps={d} onDone={onDone} onPreferences={() => {}} />);
    fireEvent.click(screen.getByTestId('setup-discover'));
    const servers = await screen.findAllByTestId('setup-server');
    expect(servers).toHaveLength(2);
    expect(servers[1]).toHaveTextContent('It lists no models');
    fireEvent.change(screen.getByTestId('setup-model'), { target: { value: 'qwen3:8b' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('setup-use'));
    });
    expect(d.testConnection).toHaveBeenCalledWith(expect.objectContaining({ base_url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' }), '');
    expect(d.saveSettings).toHaveBeenCalledWith(
      expect.objectContaining({ max_repair_attempts: 3, llm: expect.objectContaining({ base_url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' }) }),
      null,
    );
    expect(onDone).toHaveBeenCalledWith(expect.stringContaining('Saved as the assistant'));
  });

  it('does not send a key stored for another endpoint to the local server: it is removed', async () => {
    const withKey = { ...view(), api_key_set: true };
    const d = deps({ getSettings: vi.fn(async () => withKey) });
    const onDone = vi.fn();
    render(<ModelSetup deps={d} onDone={onDone} onPreferences={() => {}} />);
    fireEvent.click(screen.getByTestId('setup-discover'));
    await screen.findAllByTestId('setup-server');
    await act(async () => {
      fireEvent.click(screen.getByTestId('setup-use'));
    });
    expect(d.testConnection).toHaveBeenCalledWith(expect.anything(), '');
    expect(d.saveSettings).toHaveBeenCalledWith(expect.anything(), '');
    expect(onDone).toHaveBeenCalledWith(expect.stringContaining('stored API key was removed'));
  });

  it('says so when nothing answers, and offers Preferences', async () => {
    const onPreferences = vi.fn();
    render(<ModelSetup deps={deps({ discoverModelServers: vi.fn(async () => []) })} onDone={() => {}} onPreferences={onPreferences} />);
    fireEvent.click(screen.getByTestId('setup-discover'));
    const none = await screen.findByTestId('setup-none');
    expect(none).toHaveTextContent('No model server answered');
    fireEvent.click(screen.getByRole('button', { name: 'Preferences' }));
    expect(onPreferences).toHaveBeenCalled();
  });

  it('does not save a model that does not answer', async () => {
    const d = deps({ testConnection: vi.fn(async () => Promise.reject(new Error('HTTP 404: model "llama3.2" not found'))) });
    render(<ModelSetup deps={d} onDone={() => {}} onPreferences={() => {}} />);
    fireEvent.click(screen.getByTestId('setup-discover'));
    await screen.findAllByTestId('setup-server');
    fireEvent.click(screen.getByTestId('setup-use'));
    await waitFor(() => expect(screen.getByTestId('setup-error')).toHaveTextContent('Ollama (llama3.2): HTTP 404'));
    expect(d.saveSettings).not.toHaveBeenCalled();
  });
});
