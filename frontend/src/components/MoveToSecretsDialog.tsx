// "Move to secrets" for a literal_secret warning: the secret's name (the
// suggested one prefilled) and where it may go (the URL's host or the
// step's tool); Move stores the value and puts {{secrets.NAME}} in the
// argument as one undo step. The value itself is never shown.
import './assistant/buttons.css';
import './preferences/preferences.css';
import { CircleAlert, KeyRound, LoaderCircle } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import { useStore } from '../store';
import { defaultBinding, moveLiteral, type MoveLiteralApi } from '../store/literalActions';
import type { Problem } from '../types';
import { useFocusTrap } from './focusTrap';
import { nameError, parseList } from './preferences/SecretsSection';

export function MoveToSecretsDialog({ problem, onClose, apiImpl = api }: { problem: Problem; onClose: () => void; apiImpl?: MoveLiteralApi }) {
  const node = problem.node_ids?.[0] ?? '';
  const uid = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  const toast = useStore((s) => s.toast);
  const [bind] = useState(() => defaultBinding(useStore, node));
  const [name, setName] = useState(problem.secret ?? '');
  const [hosts, setHosts] = useState(bind.hosts.join(', '));
  const [tools, setTools] = useState(bind.tools.join(', '));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const bad = nameError(name, false);

  async function move() {
    if (!name || bad || busy) return;
    setBusy(true);
    setError('');
    try {
      await moveLiteral(useStore, apiImpl, { node, path: problem.path ?? '', key: problem.key ?? '', name, hosts: parseList(hosts), tools: parseList(tools) });
      toast(`Stored the secret ${name}; the step now refers to {{secrets.${name}}}.`, 'info');
      onClose();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="prefs-overlay">
      <div
        className="prefs"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${uid}-t`}
        ref={box}
        data-testid="move-to-secrets"
        onKeyDown={(e) => {
          if (e.key === 'Escape') onClose();
        }}
      >
        <header className="prefs-head">
          <KeyRound size={16} />
          <h2 id={`${uid}-t`}>Move to secrets</h2>
        </header>
        <div className="prefs-body">
          <p className="prefs-help">
            The value at <code>{problem.path}</code> is stored in the OS keyring (or a file only you can read) and the step refers to it by
            name. It may be sent only to the hosts and tools below.
          </p>
          <form
            className="secret-edit"
            onSubmit={(e) => {
              e.preventDefault();
              void move();
            }}
          >
            <label htmlFor={`${uid}-n`}>Name</label>
            <input id={`${uid}-n`} className="mono" data-testid="move-secret-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
            {bad && <div className="prefs-help">{bad}</div>}
            <label htmlFor={`${uid}-h`}>Hosts</label>
            <input id={`${uid}-h`} className="mono" data-testid="move-secret-hosts" placeholder="api.example.com" value={hosts} onChange={(e) => setHosts(e.target.value)} />
            <label htmlFor={`${uid}-o`}>Tools</label>
            <input id={`${uid}-o`} className="mono" data-testid="move-secret-tools" placeholder="run_command" value={tools} onChange={(e) => setTools(e.target.value)} />
            {error && (
              <div className="prefs-banner error secret-buttons" role="alert" data-testid="move-secret-error">
                <CircleAlert size={14} /> {error}
              </div>
            )}
            <div className="secret-buttons">
              <button type="button" className="btn" onClick={onClose} data-testid="move-secret-cancel">
                Cancel
              </button>
              <button type="submit" className="btn primary" disabled={!name || !!bad || busy} data-testid="move-secret-save">
                {busy && <LoaderCircle size={14} className="spin" />} Move
              </button>
            </div>
          </form>
        </div>
      </div>
    </div>
  );
}
