// Preferences › Secrets: the named secrets workflows refer to as
// {{secrets.NAME}}. Lists names, the hosts and tools each may go to and
// where its value is stored; adds one (the value in a password field),
// changes its bindings, removes it after a confirmation. No value is ever
// shown or read back: the backend (backend/credentials) never returns one.
// Changes apply at once (not with the dialog's Save): the value goes
// straight to the OS keyring or the 0600 secrets file.
import { KeyRound, LoaderCircle, Pencil, Plus, Trash2 } from 'lucide-react';
import { useCallback, useEffect, useId, useState, type KeyboardEvent } from 'react';
import { errorMessage, type Api, type SecretEntry } from '../../api';

export type SecretsApi = Pick<Api, 'listSecrets' | 'setSecret' | 'setSecretBindings' | 'removeSecret'>;

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Hosts or tools typed as a list: separated by commas or spaces. */
export function parseList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

export function nameError(name: string, taken: boolean): string | undefined {
  if (!name) return undefined;
  if (!NAME_RE.test(name)) return 'Letters, digits and _, not starting with a digit, 64 at most';
  if (taken) return 'A secret has this name: remove it first, or edit its bindings';
  return undefined;
}

function storedLabel(stored?: string): string {
  return stored === 'keyring' ? 'OS keyring' : 'secrets file (0600)';
}

function bindingText(s: SecretEntry): string {
  const parts: string[] = [];
  if (s.hosts?.length) parts.push(`hosts ${s.hosts.join(', ')}`);
  if (s.tools?.length) parts.push(`tools ${s.tools.join(', ')}`);
  return parts.length ? parts.join('; ') : 'bound to no host or tool: no step can use it';
}

/** Enter in a field of this section acts here, never submits the preferences form. */
function onEnter(act: () => void) {
  return (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      act();
    }
  };
}

function SecretRow({ s, apiImpl, onChanged }: { s: SecretEntry; apiImpl: SecretsApi; onChanged: (err?: string) => void }) {
  const uid = useId();
  const [mode, setMode] = useState<'view' | 'edit' | 'confirm'>('view');
  const [hosts, setHosts] = useState('');
  const [tools, setTools] = useState('');
  const [busy, setBusy] = useState(false);

  const act = async (f: () => Promise<void>) => {
    setBusy(true);
    try {
      await f();
      setMode('view');
      onChanged();
    } catch (e) {
      onChanged(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const saveBindings = () => void act(() => apiImpl.setSecretBindings(s.name, parseList(hosts), parseList(tools)));

  return (
    <li className="secret-row" data-testid="secret-row">
      <div className="secret-line">
        <KeyRound size={13} aria-hidden="true" />
        <code className="secret-name">{s.name}</code>
        <span className="secret-where" data-testid="secret-stored">
          {storedLabel(s.stored)}
        </span>
        {mode === 'view' && (
          <>
            <button
              type="button"
              className="icon"
              aria-label={`Edit where ${s.name} may go`}
              title="Edit hosts and tools"
              onClick={() => {
                setHosts((s.hosts ?? []).join(', '));
                setTools((s.tools ?? []).join(', '));
                setMode('edit');
              }}
            >
              <Pencil size={13} />
            </button>
            <button type="button" className="icon" aria-label={`Remove secret ${s.name}`} title="Remove" onClick={() => setMode('confirm')}>
              <Trash2 size={13} />
            </button>
          </>
        )}
      </div>
      {mode !== 'edit' && <div className="prefs-help secret-bindings">{bindingText(s)}</div>}
      {mode === 'edit' && (
        <div className="secret-edit">
          <label htmlFor={`${uid}-h`}>Hosts</label>
          <input id={`${uid}-h`} className="mono" value={hosts} onChange={(e) => setHosts(e.target.value)} onKeyDown={onEnter(saveBindings)} />
          <label htmlFor={`${uid}-t`}>Tools</label>
          <input id={`${uid}-t`} className="mono" value={tools} onChange={(e) => setTools(e.target.value)} onKeyDown={onEnter(saveBindings)} />
          <div className="secret-buttons">
            <button type="button" className="btn" onClick={() => setMode('view')}>
              Cancel
            </button>
            <button type="button" className="btn primary" disabled={busy} onClick={saveBindings}>
              Save bindings
            </button>
          </div>
        </div>
      )}
      {mode === 'confirm' && (
        <div className="secret-confirm" role="group" aria-label={`Remove ${s.name}?`}>
          <span>Remove {s.name}? Its value is deleted; workflows that use it will fail until it is stored again.</span>
          <button type="button" className="btn" onClick={() => setMode('view')}>
            Keep
          </button>
          <button type="button" className="btn danger" disabled={busy} data-testid="secret-remove-confirm" onClick={() => void act(() => apiImpl.removeSecret(s.name))}>
            Remove
          </button>
        </div>
      )}
    </li>
  );
}

/** One field of the add form: a caption over an input; Enter adds. */
function AddField(p: {
  label: string;
  id: string;
  testid: string;
  value: string;
  set: (v: string) => void;
  onEnter: () => Promise<void>;
  placeholder?: string;
  error?: string;
  password?: boolean;
}) {
  return (
    <div className="mcp-cell">
      <label className="mcp-caption" htmlFor={p.id}>
        {p.label}
      </label>
      <input
        id={p.id}
        data-testid={p.testid}
        className={p.password ? undefined : 'mono'}
        type={p.password ? 'password' : 'text'}
        autoComplete="off"
        placeholder={p.placeholder}
        value={p.value}
        aria-invalid={!!p.error}
        onChange={(e) => p.set(e.target.value)}
        onKeyDown={onEnter(() => void p.onEnter())}
      />
      {p.error && <div className="prefs-error">{p.error}</div>}
    </div>
  );
}

export function SecretsSection({ apiImpl }: { apiImpl: SecretsApi }) {
  const uid = useId();
  const [list, setList] = useState<SecretEntry[] | null>(null);
  const [warning, setWarning] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState('');
  const [tools, setTools] = useState('');
  const [busy, setBusy] = useState(false);

  const reload = useCallback(async () => {
    try {
      const v = await apiImpl.listSecrets();
      setList(v.secrets);
      setWarning(v.warning);
    } catch (e) {
      setError(errorMessage(e));
      setList([]);
    }
  }, [apiImpl]);
  useEffect(() => {
    void reload();
  }, [reload]);

  const taken = !!list?.some((s) => s.name === name);
  const nameErr = nameError(name, taken);
  const canAdd = !!name && !nameErr && !!value && !busy;
  const add = async () => {
    if (!canAdd) return;
    setBusy(true);
    setError(null);
    try {
      await apiImpl.setSecret(name, value, parseList(hosts), parseList(tools));
      setName('');
      setValue('');
      setHosts('');
      setTools('');
      await reload();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <fieldset data-testid="prefs-secrets">
      <legend>Secrets</legend>
      <div className="prefs-help">
        Workflows refer to a secret as <code>{'{{secrets.NAME}}'}</code>. Its value is kept in the OS keyring (or, when none answers, in a
        file only you can read) and is never shown again; a step may send it only to the hosts and tools listed. Changes here apply at once.
      </div>
      {warning && <div className="prefs-banner warning">{warning}</div>}
      {list === null ? (
        <div className="prefs-help">
          <LoaderCircle size={13} className="spin" /> Loading…
        </div>
      ) : list.length === 0 ? (
        <div className="prefs-help" data-testid="secrets-empty">
          No secrets stored.
        </div>
      ) : (
        <ul className="secret-list" aria-label="Stored secrets">
          {list.map((s) => (
            <SecretRow
              key={s.name}
              s={s}
              apiImpl={apiImpl}
              onChanged={(err) => {
                setError(err ?? null);
                void reload();
              }}
            />
          ))}
        </ul>
      )}
      <div className="secret-add">
        <AddField label="Name" id={`${uid}-name`} testid="secret-name" value={name} set={setName} onEnter={add} placeholder="GITHUB_TOKEN" error={nameErr} />
        <AddField label="Value" id={`${uid}-value`} testid="secret-value" value={value} set={setValue} onEnter={add} password />
        <AddField label="Hosts" id={`${uid}-hosts`} testid="secret-hosts" value={hosts} set={setHosts} onEnter={add} placeholder="api.example.com, *.example.com" />
        <AddField label="Tools" id={`${uid}-tools`} testid="secret-tools" value={tools} set={setTools} onEnter={add} placeholder="run_command" />
        <button type="button" className="btn" disabled={!canAdd} data-testid="secret-add" onClick={() => void add()}>
          {busy ? <LoaderCircle size={13} className="spin" /> : <Plus size={13} />} Add secret
        </button>
      </div>
      {error && (
        <div className="prefs-banner error" role="alert" data-testid="secrets-error">
          {error}
        </div>
      )}
    </fieldset>
  );
}
