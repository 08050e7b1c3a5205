// The Run form of a workflow that declares inputs (its "inputs" JSON
// Schema; the fields are InputFields). Run starts the run with the values as typed; when Go refuses them, the
// form comes back with each problem at its field (inputsForm.ts).
import '../preferences/preferences.css';
import { CircleAlert, Play, SlidersHorizontal } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import type { RunInputsAsk } from '../../store/runSlice';
import { useFocusTrap } from '../focusTrap';
import { InputFields } from './InputFields';

/** RunInputsDialog asks for a workflow's inputs before it runs. */
export function RunInputsDialog({
  ask,
  onRun,
  onCancel,
}: {
  ask: RunInputsAsk;
  onRun: (values: Record<string, string>, refs: Record<string, string>) => void;
  onCancel: () => void;
}) {
  const uid = useId();
  const box = useRef<HTMLDivElement>(null);
  const [values, setValues] = useState(ask.values);
  const [refs, setRefs] = useState(ask.refs ?? {});
  useFocusTrap(box, true);
  const whole = ask.problems.filter((p) => !p.input || !ask.fields.some((f) => f.name === p.input));

  return (
    <div className="prefs-overlay">
      <div
        className="prefs run-inputs"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${uid}-t`}
        ref={box}
        data-testid="run-inputs"
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
        }}
      >
        <header className="prefs-head">
          <SlidersHorizontal size={16} />
          <h2 id={`${uid}-t`}>Run with inputs</h2>
        </header>
        <form
          className="prefs-body"
          onSubmit={(e) => {
            e.preventDefault();
            onRun(values, refs);
          }}
        >
          <p className="prefs-help">
            Steps read these as <code>{'{{inputs.NAME}}'}</code>, inserted as data. Fields marked * are required; an empty field is not given (its
            default applies).
          </p>
          {whole.map((p, i) => (
            <div key={i} className="prefs-banner error" role="alert" data-testid="run-inputs-error">
              <CircleAlert size={14} /> {p.message}
            </div>
          ))}
          <InputFields
            uid={uid}
            fields={ask.fields}
            values={values}
            problems={ask.problems}
            set={(name, v) => setValues((s) => ({ ...s, [name]: v }))}
            stored={{ names: ask.secrets ?? [], refs, set: (name, secret) => setRefs((s) => ({ ...s, [name]: secret })) }}
          />
          <div className="prefs-buttons">
            <button type="button" className="btn" onClick={onCancel} data-testid="run-inputs-cancel">
              Cancel
            </button>
            <button type="submit" className="btn primary" data-testid="run-inputs-run">
              <Play size={13} /> Run
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
