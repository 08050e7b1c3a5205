// First-run model setup: with no model configured, the Assistant offers to
// look for a model server on this computer (Ollama, LM Studio, llama.cpp,
// vLLM at their usual ports), lists what answers with its models, and
// saves the choice after testing the connection.
import { LoaderCircle, Search } from 'lucide-react';
import { useState } from 'react';
import { api, errorMessage, type Api } from '../../api';
import type { LocalServer } from '../../types';

export type SetupApi = Pick<Api, 'getSettings' | 'saveSettings' | 'testConnection' | 'discoverModelServers'>;

/** modelMissing says whether settings name no model to talk to. */
export function modelMissing(llm: { model?: string; base_url?: string }): boolean {
  return !llm.model?.trim() || !llm.base_url?.trim();
}

type Phase = 'idle' | 'looking' | 'found' | 'saving' | 'done';

export function ModelSetup({ onDone, onPreferences, deps = api }: { onDone: (message: string) => void; onPreferences: () => void; deps?: SetupApi }) {
  const [phase, setPhase] = useState<Phase>('idle');
  const [servers, setServers] = useState<LocalServer[]>([]);
  const [choice, setChoice] = useState<Record<string, string>>({});
  const [error, setError] = useState('');

  const look = async () => {
    setPhase('looking');
    setError('');
    try {
      const found = await deps.discoverModelServers();
      setServers(found);
      setChoice(Object.fromEntries(found.map((s) => [s.base_url, s.models[0] ?? ''])));
    } catch (e) {
      setError(errorMessage(e));
    }
    setPhase('found');
  };

  const use = async (server: LocalServer) => {
    const model = choice[server.base_url];
    if (!model) return;
    setPhase('saving');
    setError('');
    try {
      const llm = { ...(await deps.getSettings()).settings.llm, base_url: server.base_url, model };
      // Test first: a model that does not answer is not saved.
      const info = await deps.testConnection(llm, '');
      const view = await deps.getSettings();
      // A stored API key belongs to another endpoint: it must not be sent
      // to this one (a local server needs none), so it is removed.
      await deps.saveSettings({ ...view.settings, llm: { ...view.settings.llm, base_url: server.base_url, model } }, view.api_key_set ? '' : null);
      setPhase('done');
      onDone(`${info.message} Saved as the assistant's model.${view.api_key_set ? ' The stored API key was removed: it was for another endpoint.' : ''}`);
    } catch (e) {
      setError(`${server.name} (${model}): ${errorMessage(e)}`);
      setPhase('found');
    }
  };

  return (
    <div className="model-setup" data-testid="model-setup">
      <h3>Set up a model</h3>
      <p>
        The assistant needs a model. Weft can look for one running on this computer: Ollama (port 11434), LM Studio (1234), a llama.cpp server
        (8080) or vLLM (8000).
      </p>
      {phase === 'idle' && (
        <button type="button" className="btn primary" onClick={() => void look()} data-testid="setup-discover">
          <Search size={13} /> Find local model servers
        </button>
      )}
      {phase === 'looking' && (
        <p role="status">
          <LoaderCircle size={13} className="spin" /> Looking…
        </p>
      )}
      {(phase === 'found' || phase === 'saving') && servers.length === 0 && !error && (
        <p data-testid="setup-none">
          No model server answered on those ports. Start one (for example <code>ollama serve</code>), then{' '}
          <button type="button" className="link" onClick={() => void look()}>
            look again
          </button>
          , or enter any OpenAI-compatible endpoint in{' '}
          <button type="button" className="link" onClick={onPreferences}>
            Preferences
          </button>
          .
        </p>
      )}
      {servers.length > 0 && phase !== 'done' && (
        <ul className="setup-servers" data-testid="setup-servers">
          {servers.map((s) => (
            <li key={s.base_url} data-testid="setup-server">
              <div>
                <strong>{s.name}</strong> <code>{s.base_url}</code>
              </div>
              {s.models.length ? (
                <div className="setup-choice">
                  <select
                    aria-label={`Model on ${s.name}`}
                    value={choice[s.base_url] ?? ''}
                    onChange={(e) => setChoice({ ...choice, [s.base_url]: e.target.value })}
                    data-testid="setup-model"
                  >
                    {s.models.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                  <button type="button" className="btn" disabled={phase === 'saving'} onClick={() => void use(s)} data-testid="setup-use">
                    {phase === 'saving' ? 'Testing…' : 'Use this model'}
                  </button>
                </div>
              ) : (
                <p className="muted">It lists no models: load or pull one first.</p>
              )}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="setup-error" role="alert" data-testid="setup-error">
          {error}
        </p>
      )}
    </div>
  );
}
