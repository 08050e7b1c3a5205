// Preferences: the model endpoint and key (with a live connection test),
// the assistant's repair budget, feature flags, MCP servers and run
// defaults. Everything is checked as it is typed and saved through the
// backend to the settings file ($XDG_CONFIG_HOME/weft/settings.json).
import '../assistant/buttons.css';
import './preferences.css';
import { CircleAlert, CircleCheck, LoaderCircle, Plug, Plus, Settings2, Trash2, TriangleAlert, X } from 'lucide-react';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { api, errorMessage, type TemporalCredentials, type Api } from '../../api';
import { useStore } from '../../store';
import type { ConnectionInfo, KeyUse, SettingsView } from '../../types';
import {
  formFromSettings,
  keyArg,
  keyStatus,
  LIMITS,
  MAX_REPAIR_HELP,
  newId,
  settingsFromForm,
  validateForm,
  type KeyEdit,
  type McpRow,
  type PrefsForm,
} from './form';
import { useFocusTrap } from '../focusTrap';
import { SecretsSection, type SecretsApi } from './SecretsSection';

export type PrefsApi = Pick<Api, 'getSettings' | 'saveSettings' | 'testConnection' | 'storedKeyUse'> &
  Partial<Pick<Api, 'getTemporalCredentials' | 'setTemporalCredentials'>> &
  Partial<SecretsApi>;

/** The Secrets section shows when the api can reach the credentials store. */
function secretsApi(a: PrefsApi): SecretsApi | null {
  const { listSecrets, setSecret, setSecretBindings, removeSecret } = a;
  return listSecrets && setSecret && setSecretBindings && removeSecret ? { listSecrets, setSecret, setSecretBindings, removeSecret } : null;
}

function Field({
  label,
  error,
  help,
  children,
  htmlFor,
}: {
  label: string;
  error?: string;
  help?: ReactNode;
  children: ReactNode;
  htmlFor: string;
}) {
  return (
    <div className={`prefs-field${error ? ' has-error' : ''}`}>
      <label htmlFor={htmlFor}>{label}</label>
      <div className="prefs-control">
        {children}
        {help && <div className="prefs-help">{help}</div>}
        {error && (
          <div className="prefs-error" role="alert" data-testid={`error-${htmlFor}`}>
            {error}
          </div>
        )}
      </div>
    </div>
  );
}

type TestState =
  | { kind: 'idle' }
  | { kind: 'running' }
  /** the stored key is for the saved endpoint: send it to this other one? */
  | { kind: 'ask'; use: KeyUse }
  | { kind: 'ok'; info: ConnectionInfo; withheld?: string }
  | { kind: 'fail'; error: string; withheld?: string };

/** How a test uses the stored key at an endpoint it is not saved with: the person chose. */
type StoredKeyChoice = 'send' | 'withhold';

function McpServerRow({
  row,
  errors,
  onChange,
  onRemove,
}: {
  row: McpRow;
  errors: Record<string, string>;
  onChange: (r: McpRow) => void;
  onRemove: () => void;
}) {
  const id = `mcp-${row.id}`;
  return (
    <div className="mcp-row" data-testid="mcp-server">
      <div className="mcp-grid">
        <div className="mcp-cell">
          <span className="mcp-caption">Name</span>
          <input
            id={`${id}-name`}
            aria-label="Server name"
            placeholder="name"
            value={row.name}
            onChange={(e) => onChange({ ...row, name: e.target.value })}
            aria-invalid={!!errors[`mcp.${row.id}.name`]}
          />
          {errors[`mcp.${row.id}.name`] && <div className="prefs-error">{errors[`mcp.${row.id}.name`]}</div>}
        </div>
        <div className="mcp-cell">
          <span className="mcp-caption">Command</span>
          <input
            id={`${id}-command`}
            aria-label="Command"
            placeholder="command, e.g. npx"
            className="mono"
            value={row.command}
            onChange={(e) => onChange({ ...row, command: e.target.value })}
            aria-invalid={!!errors[`mcp.${row.id}.command`]}
          />
          {errors[`mcp.${row.id}.command`] && <div className="prefs-error">{errors[`mcp.${row.id}.command`]}</div>}
        </div>
        <button type="button" className="icon mcp-remove" aria-label={`Remove server ${row.name}`} title="Remove server" onClick={onRemove}>
          <Trash2 size={14} />
        </button>
      </div>
      <span className="mcp-caption">Arguments</span>
      <input
        aria-label="Arguments"
        placeholder='arguments, e.g. -y @modelcontextprotocol/server-filesystem "/my files"'
        className="mono mcp-args"
        value={row.args}
        onChange={(e) => onChange({ ...row, args: e.target.value })}
      />
      <div className="mcp-env">
        {row.env.length > 0 && <span className="mcp-caption">Environment</span>}
        {row.env.map((v) => {
          const err = errors[`mcp.${row.id}.env.${v.id}`];
          return (
            <div key={v.id} className="mcp-env-row">
              <input
                aria-label="Variable"
                placeholder="VARIABLE"
                className="mono"
                value={v.key}
                aria-invalid={!!err}
                onChange={(e) => onChange({ ...row, env: row.env.map((x) => (x.id === v.id ? { ...x, key: e.target.value } : x)) })}
              />
              <span className="mcp-eq">=</span>
              <input
                aria-label="Value"
                placeholder="value"
                className="mono"
                value={v.value}
                onChange={(e) => onChange({ ...row, env: row.env.map((x) => (x.id === v.id ? { ...x, value: e.target.value } : x)) })}
              />
              <button
                type="button"
                className="icon"
                aria-label="Remove variable"
                onClick={() => onChange({ ...row, env: row.env.filter((x) => x.id !== v.id) })}
              >
                <X size={13} />
              </button>
              {err && <div className="prefs-error mcp-env-error">{err}</div>}
            </div>
          );
        })}
        <button
          type="button"
          className="link"
          onClick={() => onChange({ ...row, env: [...row.env, { id: newId(), key: '', value: '' }] })}
        >
          <Plus size={12} /> environment variable
        </button>
      </div>
    </div>
  );
}

export function PreferencesDialog({ onClose, apiImpl = api }: { onClose: () => void; apiImpl?: PrefsApi }) {
  const uid = useId();
  const setStatus = useStore((s) => s.setStatus);
  const [view, setView] = useState<SettingsView | null>(null);
  const [form, setForm] = useState<PrefsForm | null>(null);
  const [initial, setInitial] = useState<string>('');
  const [key, setKey] = useState<KeyEdit>({ mode: 'keep' });
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [test, setTest] = useState<TestState>({ kind: 'idle' });
  // The Temporal credentials: whether set (never their values), and what
  // was typed to replace them (kept in the OS keyring on save).
  const [creds, setCreds] = useState<TemporalCredentials | null>(null);
  const [newApiKey, setNewApiKey] = useState('');
  const [newPayloadKey, setNewPayloadKey] = useState('');
  const dialogRef = useRef<HTMLDivElement>(null);
  useFocusTrap(dialogRef);
  const secrets = useMemo(() => secretsApi(apiImpl), [apiImpl]);

  useEffect(() => {
    let live = true;
    apiImpl
      .getSettings()
      .then((v) => {
        if (!live) return;
        const f = formFromSettings(v.settings);
        setView(v);
        setForm(f);
        setInitial(JSON.stringify(settingsFromForm(f, v.settings)));
      })
      .catch((e) => live && setLoadError(errorMessage(e)));
    apiImpl
      .getTemporalCredentials?.()
      .then((c) => live && setCreds(c))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [apiImpl]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);

  useEffect(() => {
    if (form) dialogRef.current?.querySelector<HTMLInputElement>('input')?.focus();
    // Focus the first field once, when the form appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [form === null]);

  const errors = useMemo(() => (form ? validateForm(form) : {}), [form]);
  const invalid = Object.keys(errors).length > 0;
  const changed = useMemo(() => {
    if (!form || !view) return false;
    if (key.mode === 'clear' || (key.mode === 'replace' && key.value.trim())) return true;
    if (newApiKey.trim() || newPayloadKey.trim()) return true;
    if (invalid) return true;
    return JSON.stringify(settingsFromForm(form, view.settings)) !== initial;
  }, [form, view, key, invalid, initial, newApiKey, newPayloadKey]);

  const update = useCallback(<K extends keyof PrefsForm>(k: K, v: PrefsForm[K]) => {
    setForm((f) => (f ? { ...f, [k]: v } : f));
    setSaveError(null);
  }, []);

  // The stored key goes only to the endpoint it is saved with (Go decides:
  // llm.StoredKey); for another one typed here, the person is asked first.
  const testConnection = async (choice?: StoredKeyChoice) => {
    if (!form || errors.baseUrl || errors.timeoutS) return;
    const llm = { base_url: form.baseUrl.trim(), model: form.model.trim(), timeout_s: parseInt(form.timeoutS, 10) };
    const apiKey = keyArg(key);
    setTest({ kind: 'running' });
    let withheld: string | undefined;
    try {
      if (apiKey === null && choice !== 'send') {
        const use = await apiImpl.storedKeyUse(llm.base_url);
        if (use.stored && !use.saved) {
          if (!choice) {
            setTest({ kind: 'ask', use });
            return;
          }
          withheld = use.host;
        }
      }
      const info = await apiImpl.testConnection(llm, apiKey, choice === 'send');
      setTest({ kind: 'ok', info, withheld });
    } catch (e) {
      setTest({ kind: 'fail', error: errorMessage(e), withheld });
    }
  };

  const save = async () => {
    if (!form || !view || invalid) return;
    setSaving(true);
    setSaveError(null);
    try {
      const warnings = await apiImpl.saveSettings(settingsFromForm(form, view.settings), keyArg(key));
      if ((newApiKey.trim() || newPayloadKey.trim()) && apiImpl.setTemporalCredentials) {
        setCreds(await apiImpl.setTemporalCredentials(newApiKey.trim() || undefined, newPayloadKey.trim() || undefined));
      }
      setStatus({
        kind: 'info',
        text: warnings.length ? `Preferences saved. ${warnings.join('; ')}` : 'Preferences saved.',
      });
      onClose();
    } catch (e) {
      setSaveError(errorMessage(e));
    } finally {
      setSaving(false);
    }
  };

  const f = form;
  const fid = (name: string) => `${uid}-${name}`;

  return (
    <div
      className="prefs-overlay"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div
        className="prefs"
        role="dialog"
        aria-modal="true"
        aria-labelledby={fid('title')}
        data-testid="preferences-dialog"
        ref={dialogRef}
      >
        <header className="prefs-head">
          <Settings2 size={16} />
          <h2 id={fid('title')}>Preferences</h2>
          <button type="button" className="icon" aria-label="Close" onClick={onClose}>
            <X size={16} />
          </button>
        </header>

        {!f || !view ? (
          <div className="prefs-body prefs-loading">
            {loadError ? (
              <div className="prefs-banner error" role="alert">
                <CircleAlert size={14} /> Could not load the settings: {loadError}
              </div>
            ) : (
              <>
                <LoaderCircle size={16} className="spin" /> Loading…
              </>
            )}
          </div>
        ) : (
          <form
            className="prefs-body"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            {view.warnings.length > 0 && (
              <div className="prefs-banner warning" data-testid="settings-warnings">
                <TriangleAlert size={14} />
                <div>
                  <strong>When the settings were loaded:</strong>
                  <ul>
                    {view.warnings.map((w, i) => (
                      <li key={i}>{w}</li>
                    ))}
                  </ul>
                </div>
              </div>
            )}

            <fieldset>
              <legend>Model</legend>
              <Field label="Endpoint" htmlFor={fid('base-url')} error={errors.baseUrl} help="An OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama">
                <input
                  id={fid('base-url')}
                  data-testid="pref-base-url"
                  className="mono"
                  value={f.baseUrl}
                  onChange={(e) => update('baseUrl', e.target.value)}
                  aria-invalid={!!errors.baseUrl}
                  spellCheck={false}
                />
              </Field>
              <Field label="Model" htmlFor={fid('model')} help={f.model.trim() ? undefined : 'The assistant needs a model name, e.g. qwen3:8b'}>
                <input
                  id={fid('model')}
                  data-testid="pref-model"
                  className="mono"
                  value={f.model}
                  onChange={(e) => update('model', e.target.value)}
                  spellCheck={false}
                />
              </Field>
              <Field label="API key" htmlFor={fid('api-key')}>
                <div className="prefs-key">
                  <input
                    id={fid('api-key')}
                    data-testid="pref-api-key"
                    type="password"
                    autoComplete="off"
                    placeholder={view.api_key_set && key.mode !== 'clear' ? 'type to replace the stored key' : 'paste a key (optional)'}
                    value={key.mode === 'replace' ? key.value : ''}
                    onChange={(e) => setKey(e.target.value ? { mode: 'replace', value: e.target.value } : { mode: 'keep' })}
                  />
                  <button
                    type="button"
                    className="btn"
                    disabled={!view.api_key_set && key.mode !== 'replace'}
                    onClick={() => setKey(view.api_key_set ? { mode: 'clear' } : { mode: 'keep' })}
                    data-testid="pref-api-key-clear"
                  >
                    Clear
                  </button>
                </div>
                <div className={`prefs-key-status ${key.mode}`} data-testid="pref-api-key-status">
                  {keyStatus(view, key)}
                  {key.mode === 'clear' && (
                    <button type="button" className="link" onClick={() => setKey({ mode: 'keep' })}>
                      undo
                    </button>
                  )}
                </div>
              </Field>
              <Field label="Timeout" htmlFor={fid('timeout')} error={errors.timeoutS} help="Seconds for one request to the model">
                <input
                  id={fid('timeout')}
                  className="num"
                  inputMode="numeric"
                  value={f.timeoutS}
                  onChange={(e) => update('timeoutS', e.target.value)}
                  aria-invalid={!!errors.timeoutS}
                />
              </Field>
              <div className="prefs-test">
                <button
                  type="button"
                  className="btn"
                  onClick={() => void testConnection()}
                  disabled={test.kind === 'running' || !!errors.baseUrl || !!errors.timeoutS || !f.model.trim()}
                  data-testid="test-connection"
                >
                  {test.kind === 'running' ? <LoaderCircle size={14} className="spin" /> : <Plug size={14} />} Test connection
                </button>
                <div className="prefs-test-result" role="status" data-testid="test-connection-result">
                  {test.kind === 'ask' && (
                    <div className="prefs-test-ask" data-testid="test-connection-ask">
                      <p>
                        <TriangleAlert size={14} /> The stored API key is for the saved endpoint. Send it to{' '}
                        <strong data-testid="test-connection-host">{test.use.host}</strong> to test this one?
                      </p>
                      <div className="prefs-test-ask-actions">
                        <button type="button" className="btn" onClick={() => void testConnection('send')} data-testid="test-send-key">
                          Send the key to {test.use.host}
                        </button>
                        <button type="button" className="btn" onClick={() => void testConnection('withhold')} data-testid="test-without-key">
                          Test without the key
                        </button>
                        <button type="button" className="link" onClick={() => setTest({ kind: 'idle' })}>
                          Cancel
                        </button>
                      </div>
                    </div>
                  )}
                  {test.kind === 'ok' && (
                    <span className="ok">
                      <CircleCheck size={14} /> {test.info.message}
                      {test.info.latency_ns > 0 && ` (${Math.round(test.info.latency_ns / 1e6)} ms)`}
                    </span>
                  )}
                  {test.kind === 'fail' && (
                    <span className="fail">
                      <CircleAlert size={14} /> {test.error}
                    </span>
                  )}
                  {(test.kind === 'ok' || test.kind === 'fail') && test.withheld && (
                    <span className="muted" data-testid="test-connection-withheld">
                      {' '}
                      Tested without the stored API key, which was not sent to {test.withheld}.
                    </span>
                  )}
                </div>
              </div>
            </fieldset>

            <fieldset>
              <legend>Assistant</legend>
              <Field label="Max repair attempts" htmlFor={fid('max-repair')} error={errors.maxRepair} help={MAX_REPAIR_HELP}>
                <input
                  id={fid('max-repair')}
                  data-testid="pref-max-repair"
                  className="num"
                  type="number"
                  min={LIMITS.maxRepair[0]}
                  max={LIMITS.maxRepair[1]}
                  step={1}
                  value={f.maxRepair}
                  onChange={(e) => update('maxRepair', e.target.value)}
                  aria-invalid={!!errors.maxRepair}
                />
              </Field>
              <div className="prefs-checks">
                <label className="prefs-check">
                  <input
                    type="checkbox"
                    data-testid="pref-ai-transforms"
                    checked={f.allowAiTransforms}
                    onChange={(e) => update('allowAiTransforms', e.target.checked)}
                  />
                  <span>
                    AI transforms
                    <small>Plans may use AI transform steps (classify, extract, summarise…).</small>
                  </span>
                </label>
                <label className="prefs-check">
                  <input
                    type="checkbox"
                    data-testid="pref-agent-steps"
                    checked={f.allowAgentSteps}
                    onChange={(e) => update('allowAgentSteps', e.target.checked)}
                  />
                  <span>
                    Agent steps
                    <small>Plans may use AI steps that call tools on their own.</small>
                  </span>
                </label>
              </div>
            </fieldset>

            <fieldset>
              <legend>MCP servers</legend>
              {f.mcp.length === 0 && <p className="prefs-muted">No MCP servers. Their tools become available to Tool steps as server.tool.</p>}
              {f.mcp.map((r) => (
                <McpServerRow
                  key={r.id}
                  row={r}
                  errors={errors}
                  onChange={(nr) => update('mcp', f.mcp.map((x) => (x.id === r.id ? nr : x)))}
                  onRemove={() => update('mcp', f.mcp.filter((x) => x.id !== r.id))}
                />
              ))}
              <button
                type="button"
                className="btn"
                data-testid="mcp-add"
                onClick={() => update('mcp', [...f.mcp, { id: newId(), name: '', command: '', args: '', env: [] }])}
              >
                <Plus size={14} /> Add server
              </button>
            </fieldset>

            <fieldset>
              <legend>Engine</legend>
              <Field
                label="Runs go to"
                htmlFor={fid('engine')}
                help="This computer, or a Temporal service whose workers run the steps (weft worker); see docs/scale-out.md"
              >
                <select id={fid('engine')} data-testid="pref-engine" value={f.engine} onChange={(e) => update('engine', e.target.value === 'temporal' ? 'temporal' : 'local')}>
                  <option value="local">This computer (local)</option>
                  <option value="temporal">A Temporal service</option>
                </select>
              </Field>
              {f.engine === 'temporal' && (
                <>
                  <Field label="Address" htmlFor={fid('t-addr')} error={errors.temporalAddress} help="The Temporal frontend, host:port">
                    <input
                      id={fid('t-addr')}
                      data-testid="pref-temporal-address"
                      value={f.temporalAddress}
                      placeholder="localhost:7233"
                      onChange={(e) => update('temporalAddress', e.target.value)}
                      aria-invalid={!!errors.temporalAddress}
                    />
                  </Field>
                  <Field label="Namespace" htmlFor={fid('t-ns')} error={errors.temporalNamespace}>
                    <input id={fid('t-ns')} value={f.temporalNamespace} onChange={(e) => update('temporalNamespace', e.target.value)} aria-invalid={!!errors.temporalNamespace} />
                  </Field>
                  <Field label="Task queue" htmlFor={fid('t-q')} error={errors.temporalQueue} help="The queue the workers poll">
                    <input id={fid('t-q')} value={f.temporalQueue} onChange={(e) => update('temporalQueue', e.target.value)} aria-invalid={!!errors.temporalQueue} />
                  </Field>
                  <label className="prefs-check">
                    <input type="checkbox" checked={f.temporalTls} onChange={(e) => update('temporalTls', e.target.checked)} />
                    <span>Connect with TLS</span>
                  </label>
                  <Field
                    label="API key"
                    htmlFor={fid('t-api')}
                    help={`${creds?.api_key_env ? 'Set by WEFT_TEMPORAL_API_KEY' : creds?.api_key_set ? 'Stored in the OS keyring' : 'Not set'} (Temporal Cloud). Type one to store it in the OS keyring, never in the settings file.`}
                  >
                    <input
                      id={fid('t-api')}
                      data-testid="pref-temporal-api-key"
                      type="password"
                      autoComplete="off"
                      value={newApiKey}
                      placeholder={creds?.api_key_set ? '•••••••• (kept)' : ''}
                      onChange={(e) => setNewApiKey(e.target.value)}
                    />
                  </Field>
                  <Field
                    label="Payload key"
                    htmlFor={fid('t-payload')}
                    help={`${creds?.payload_key_env ? 'Set by WEFT_TEMPORAL_KEY' : creds?.payload_key_set ? 'Stored in the OS keyring' : 'Not set: step outputs go through the Temporal history as they are'}. 32 random bytes in base64, the same on every worker (head -c 32 /dev/urandom | base64).`}
                  >
                    <input
                      id={fid('t-payload')}
                      data-testid="pref-temporal-payload-key"
                      type="password"
                      autoComplete="off"
                      value={newPayloadKey}
                      placeholder={creds?.payload_key_set ? '•••••••• (kept)' : ''}
                      onChange={(e) => setNewPayloadKey(e.target.value)}
                    />
                  </Field>
                </>
              )}
            </fieldset>

            <fieldset>
              <legend>Runs</legend>
              <Field
                label="Default retries"
                htmlFor={fid('retries')}
                error={errors.defaultRetries}
                help="Retries of a failing step that sets none itself (0–10)"
              >
                <input
                  id={fid('retries')}
                  data-testid="pref-default-retries"
                  className="num"
                  type="number"
                  min={LIMITS.defaultRetries[0]}
                  max={LIMITS.defaultRetries[1]}
                  value={f.defaultRetries}
                  onChange={(e) => update('defaultRetries', e.target.value)}
                  aria-invalid={!!errors.defaultRetries}
                />
              </Field>
              <Field label="Keep run logs" htmlFor={fid('retention')} error={errors.retentionRuns} help="How many finished runs to keep (1–10000)">
                <input
                  id={fid('retention')}
                  className="num"
                  type="number"
                  min={LIMITS.retentionRuns[0]}
                  max={LIMITS.retentionRuns[1]}
                  value={f.retentionRuns}
                  onChange={(e) => update('retentionRuns', e.target.value)}
                  aria-invalid={!!errors.retentionRuns}
                />
              </Field>
              <label className="prefs-check">
                <input
                  type="checkbox"
                  data-testid="pref-auto-replan"
                  checked={f.autoReplan}
                  onChange={(e) => update('autoReplan', e.target.checked)}
                />
                <span>
                  Replan automatically
                  <small>After a severe failure the model proposes a new version instead of asking you first. You still review it, and approve its side-effect steps.</small>
                </span>
              </label>
              {f.autoReplan && (
                <>
                  <Field
                    label="Replans per run"
                    htmlFor={fid('replans')}
                    error={errors.autoReplanMax}
                    help="At most this many automatic replans in one run (1–5)"
                  >
                    <input
                      id={fid('replans')}
                      data-testid="pref-auto-replan-max"
                      className="num"
                      type="number"
                      min={LIMITS.autoReplanMax[0]}
                      max={LIMITS.autoReplanMax[1]}
                      value={f.autoReplanMax}
                      onChange={(e) => update('autoReplanMax', e.target.value)}
                      aria-invalid={!!errors.autoReplanMax}
                    />
                  </Field>
                  <Field label="Replan from" htmlFor={fid('severity')} help="The least severe failure that replans">
                    <select
                      id={fid('severity')}
                      data-testid="pref-auto-replan-severity"
                      value={f.autoReplanSeverity}
                      onChange={(e) => update('autoReplanSeverity', e.target.value === 'CRITICAL' ? 'CRITICAL' : 'HIGH')}
                    >
                      <option value="HIGH">High and critical failures</option>
                      <option value="CRITICAL">Critical failures only</option>
                    </select>
                  </Field>
                </>
              )}
            </fieldset>

            {secrets && <SecretsSection apiImpl={secrets} />}

            <footer className="prefs-foot">
              <div className="prefs-path" title={view.path} data-testid="settings-path">
                Saved to <code>{view.path}</code>
              </div>
              {saveError && (
                <div className="prefs-banner error" role="alert" data-testid="save-error">
                  <CircleAlert size={14} /> {saveError}
                </div>
              )}
              <div className="prefs-buttons">
                {invalid && <span className="prefs-invalid">Fix the fields marked in red to save.</span>}
                <button type="button" className="btn" onClick={onClose}>
                  Cancel
                </button>
                <button type="submit" className="btn primary" disabled={invalid || saving || !changed} data-testid="prefs-save">
                  {saving && <LoaderCircle size={14} className="spin" />} Save
                </button>
              </div>
            </footer>
          </form>
        )}
      </div>
    </div>
  );
}

export default PreferencesDialog;
