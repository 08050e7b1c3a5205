// A workflow written on another computer refers to secrets this one lacks
// (store/secretsSlice.ts). When it opens, and when a run was refused for
// want of them, this dialog lists each with the steps that use it: a
// password field for the value and the hosts and tools its uses suggest
// (editable). "Save secret" stores it (OS keyring or the 0600 file, as
// Preferences › Secrets does); "Later" closes, and the Run panel keeps
// saying what is missing. No value is ever read back.
import './assistant/buttons.css';
import './preferences/preferences.css';
import { CircleAlert, KeyRound, LoaderCircle } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { api, errorMessage, type Api } from '../api';
import { useStore } from '../store';
import { missingSecretsOf, refreshMissingSecrets } from '../store/secretsSlice';
import type { NeededSecret } from '../types';
import { useFocusTrap } from './focusTrap';
import { parseList } from './preferences/SecretsSection';

export type SecretsNeededApi = Pick<Api, 'setSecret' | 'workflowSecrets'>;

/** One labelled field of a row (the grid's two cells). */
function Field(p: { id: string; label: string; testid: string; value: string; set: (v: string) => void; placeholder?: string; password?: boolean; autoFocus?: boolean }) {
  return (
    <>
      <label htmlFor={p.id}>{p.label}</label>
      <input
        id={p.id}
        type={p.password ? 'password' : 'text'}
        autoComplete="off"
        className="mono"
        data-testid={p.testid}
        placeholder={p.placeholder}
        autoFocus={p.autoFocus}
        value={p.value}
        onChange={(e) => p.set(e.target.value)}
      />
    </>
  );
}

function NeededRow({ s, used, first, apiImpl, onSaved }: { s: NeededSecret; used: string; first: boolean; apiImpl: SecretsNeededApi; onSaved: () => Promise<void> }) {
  const uid = useId();
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState((s.hosts ?? []).join(', '));
  const [tools, setTools] = useState((s.tools ?? []).join(', '));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function save() {
    if (!value || busy) return;
    setBusy(true);
    setError('');
    try {
      await apiImpl.setSecret(s.name, value, parseList(hosts), parseList(tools));
      setValue('');
      await onSaved();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="secret-row" data-testid="needed-secret" data-name={s.name}>
      <div className="secret-line">
        <KeyRound size={13} aria-hidden="true" />
        <code className="secret-name">{s.name}</code>
        <span className="secret-where">used by {used}</span>
      </div>
      <form
        className="secret-edit"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Field id={`${uid}-v`} label="Value" testid="needed-secret-value" value={value} set={setValue} password autoFocus={first} />
        <Field id={`${uid}-h`} label="Hosts" testid="needed-secret-hosts" value={hosts} set={setHosts} placeholder="api.example.com" />
        <Field id={`${uid}-t`} label="Tools" testid="needed-secret-tools" value={tools} set={setTools} placeholder="run_command" />
        {error && (
          <div className="prefs-banner error secret-buttons" role="alert" data-testid="needed-secret-error">
            <CircleAlert size={14} /> {error}
          </div>
        )}
        <div className="secret-buttons">
          <button type="submit" className="btn primary" disabled={!value || busy} data-testid="needed-secret-save">
            {busy && <LoaderCircle size={14} className="spin" />} Save secret
          </button>
        </div>
      </form>
    </li>
  );
}

/** SecretsNeededDialog asks for the secrets the open workflow lacks; onSaved runs after each is stored (validate again). */
export function SecretsNeededDialog({ apiImpl = api, onSaved }: { apiImpl?: SecretsNeededApi; onSaved?: () => void }) {
  const open = useStore((s) => s.secretsAskOpen);
  const missing = useStore(missingSecretsOf);
  const doc = useStore((s) => s.doc);
  const setOpen = useStore((s) => s.setSecretsAskOpen);
  const toast = useStore((s) => s.toast);
  const uid = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box, open && missing.length > 0);
  if (!open || !missing.length) return null;

  const nameOf = (id: string) => {
    const n = doc?.nodes.find((x) => x.id === id);
    return n?.name || n?.key || id;
  };
  const saved = (name: string) => async () => {
    toast(`Stored the secret ${name}.`, 'info');
    await refreshMissingSecrets(useStore, apiImpl.workflowSecrets).catch((e) => toast(`Secrets: ${errorMessage(e)}`));
    onSaved?.();
  };

  return (
    <div className="prefs-overlay">
      <div
        className="prefs"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${uid}-t`}
        aria-describedby={`${uid}-d`}
        ref={box}
        data-testid="secrets-needed"
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        <header className="prefs-head">
          <KeyRound size={16} />
          <h2 id={`${uid}-t`}>This workflow needs secrets this computer lacks</h2>
        </header>
        <div className="prefs-body">
          <p id={`${uid}-d`} className="prefs-help">
            Its steps refer to {missing.length === 1 ? 'a secret' : 'secrets'} by name; the values stayed where the workflow was written. Store each
            here (in the OS keyring, or a file only you can read) with the hosts and tools it may be sent to. Until then the workflow does not run.
          </p>
          <ul className="secret-list">
            {missing.map((s, i) => (
              <NeededRow key={s.name} s={s} used={(s.nodes ?? []).map(nameOf).join(', ')} first={i === 0} apiImpl={apiImpl} onSaved={saved(s.name)} />
            ))}
          </ul>
          <div className="prefs-buttons">
            <button type="button" className="btn" onClick={() => setOpen(false)} data-testid="secrets-needed-later">
              Later
            </button>
          </div>
        </div>
      </div>
    </div>
  );
}
