// Records a case from the last run of the saved workflow: asks for its
// name, then says where it went and which steps the person must fill in
// (data the run cut or hid: Go names them, backend/testcase/record.go).
// Focus stays in the dialog and goes back to its opener when it closes.
import '../preferences/preferences.css';
import { CircleAlert, LoaderCircle } from 'lucide-react';
import { useId, useState } from 'react';
import { errorMessage } from '../../api';
import type { RecordedCase } from '../../types';
import { Modal } from '../Overlays';

export function RecordCaseDialog({ dirty, record, onClose }: { dirty: boolean; record: (name: string) => Promise<RecordedCase>; onClose: () => void }) {
  const uid = useId();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState<RecordedCase | null>(null);

  const submit = async () => {
    setBusy(true);
    setError('');
    try {
      setDone(await record(name));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const close = () => {
    if (!busy) onClose(); // a recording under way ends first
  };

  return (
    <Modal title={done ? 'Case recorded' : 'Record a case from the last run'} onClose={close} testId="record-case">
      {done ? (
        <div className="prefs-body">
          <p data-testid="record-done">
            Added “{done.name}” (from run <code>{done.run_id}</code>) to <code>{done.file}</code>.
          </p>
          {done.fill_in.length > 0 ? (
            <div className="prefs-banner warning" data-testid="record-fill-in">
              <div>
                Fill these in before the case tells the truth (their data was cut or hidden in the run):
                <ul>
                  {done.fill_in.map((f, i) => (
                    <li key={i}>{f}</li>
                  ))}
                </ul>
              </div>
            </div>
          ) : (
            <p className="prefs-help">Nothing to fill in. Choose the outputs it should check in the case file (expect.outputs).</p>
          )}
          <div className="prefs-buttons">
            <button type="button" className="btn primary" autoFocus onClick={onClose} data-testid="record-close">
              Close
            </button>
          </div>
        </div>
      ) : (
        <form
          className="prefs-body"
          onSubmit={(e) => {
            e.preventDefault();
            if (!busy) void submit();
          }}
        >
          <p className="prefs-help">
            The case holds the last finished run’s inputs, a mock for every call that acted with the answer it got, and what the run did.
            {dirty ? ' It is the run of the saved file: your unsaved changes are not in it.' : ''}
          </p>
          <div className="prefs-field">
            <label htmlFor={`${uid}-n`}>Case name</label>
            <div className="prefs-control">
              <input
                id={`${uid}-n`}
                data-autofocus
                autoComplete="off"
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={!!error}
                aria-describedby={error ? `${uid}-e` : `${uid}-h`}
                data-testid="record-name"
              />
              <span id={`${uid}-h`} className="prefs-help">
                Empty: named after the run.
              </span>
              {error && (
                <span id={`${uid}-e`} className="prefs-error" role="alert" data-testid="record-error">
                  <CircleAlert size={12} /> {error}
                </span>
              )}
            </div>
          </div>
          <div className="prefs-buttons">
            <button type="button" className="btn" onClick={onClose} disabled={busy} data-testid="record-cancel">
              Cancel
            </button>
            <button type="submit" className="btn primary" disabled={busy} data-testid="record-submit">
              {busy ? <LoaderCircle size={13} className="spin" /> : null} Record
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
