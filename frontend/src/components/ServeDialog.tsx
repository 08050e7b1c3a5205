// Offers to keep `weft serve` running for the open workflow's folder as a
// systemd user service: the unit is shown first, exactly as it will be
// written, and installed only as shown (Go checks that, and checks the
// folder as weft serve does: every workflow with triggers reviewed, its
// secrets stored). The way schedules are installed.
import { Webhook } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import { useFocusTrap } from './focusTrap';
import './run/run.css';

type State = { loading: true } | { loading: false; entry: string; refused?: string; name: string };

export function ServeDialog({ path, onClose }: { path: string; onClose: () => void }) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  const [state, setState] = useState<State>({ loading: true });
  const [done, setDone] = useState('');
  const [failed, setFailed] = useState('');
  useEffect(() => {
    let live = true;
    api
      .serveUnit(path)
      .then((v) => live && setState({ loading: false, entry: v.entry, refused: v.refused, name: v.name }))
      .catch((e: unknown) => live && setState({ loading: false, entry: '', refused: errorMessage(e), name: '' }));
    return () => {
      live = false;
    };
  }, [path]);
  const install = async () => {
    if (state.loading || !state.entry) return;
    setFailed('');
    try {
      await api.installServeUnit(path, state.entry);
      setDone(`Installed and started ${state.name}. systemctl --user status ${state.name} shows it; disable --now stops it.`);
    } catch (e) {
      setFailed(errorMessage(e));
    }
  };
  return (
    <div className="run-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="run-modal" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="serve-dialog" ref={box}>
        <header className="run-modal-head">
          <Webhook size={16} aria-hidden="true" />
          <div className="run-modal-titles">
            <h2 id={titleId}>Serve this folder&apos;s triggers</h2>
            <p className="muted">
              A systemd user service keeps <code>weft serve</code> running for this folder: its webhooks answer on this computer only (127.0.0.1:8787),
              and its watched folders start runs, for the workflows in it you reviewed.
            </p>
          </div>
        </header>
        <div className="run-modal-body">
          {state.loading ? (
            <p className="muted">Checking the folder…</p>
          ) : state.refused ? (
            <p className="error" role="alert" data-testid="serve-refused">
              {state.refused}
            </p>
          ) : (
            <>
              <p>This is the unit file that will be written, exactly:</p>
              <pre tabIndex={0} data-testid="serve-unit">
                {state.entry}
              </pre>
            </>
          )}
          {done && (
            <p role="status" data-testid="serve-done">
              {done}
            </p>
          )}
          {failed && (
            <p className="error" role="alert" data-testid="serve-failed">
              {failed}
            </p>
          )}
        </div>
        <footer className="run-modal-foot">
          {!done && (
            <button type="button" className="btn primary" onClick={() => void install()} disabled={state.loading || !state.entry} data-testid="serve-install">
              Install and start
            </button>
          )}
          <button type="button" className="btn" onClick={onClose} data-testid="serve-close">
            {done ? 'Close' : 'Cancel'}
          </button>
        </footer>
      </div>
    </div>
  );
}
