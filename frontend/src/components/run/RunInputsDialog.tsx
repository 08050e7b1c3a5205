// The Run form of a workflow that declares inputs (its "inputs" JSON
// Schema): one field per input in the file's order, typed by the input's
// type (text, a number, true/false, a choice of its enum, JSON for objects
// and arrays, a password field for a secret one), required ones marked.
// Run starts the run with the values as typed; when Go refuses them, the
// form comes back with each problem at its field (inputsForm.ts).
import '../preferences/preferences.css';
import { CircleAlert, Play, SlidersHorizontal } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import type { RunInputsAsk } from '../../store/runSlice';
import type { InputField } from '../../types';
import { useFocusTrap } from '../focusTrap';
import { textOf } from './inputsForm';

function Control({ f, id, value, set, invalid, first }: { f: InputField; id: string; value: string; set: (v: string) => void; invalid: boolean; first: boolean }) {
  const common = {
    id,
    'data-testid': 'run-input',
    'data-name': f.name,
    'data-type': f.type,
    'aria-invalid': invalid,
    'aria-required': f.required,
    autoFocus: first,
  };
  if (f.enum?.length || f.type === 'boolean') {
    const options = f.enum?.length ? f.enum.map(textOf) : ['true', 'false'];
    return (
      <select {...common} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">{f.required ? '— choose —' : '— not given —'}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  }
  if (f.type === 'object' || f.type === 'array') {
    return (
      <textarea
        {...common}
        className="mono"
        rows={3}
        spellCheck={false}
        placeholder={f.type === 'object' ? '{"key": "value"}' : '["a", "b"]'}
        value={value}
        onChange={(e) => set(e.target.value)}
      />
    );
  }
  return (
    <input
      {...common}
      type={f.secret ? 'password' : 'text'}
      inputMode={f.type === 'integer' ? 'numeric' : f.type === 'number' ? 'decimal' : undefined}
      autoComplete="off"
      className={f.type === 'string' ? undefined : 'mono'}
      value={value}
      onChange={(e) => set(e.target.value)}
    />
  );
}

/** RunInputsDialog asks for a workflow's inputs before it runs. */
export function RunInputsDialog({ ask, onRun, onCancel }: { ask: RunInputsAsk; onRun: (values: Record<string, string>) => void; onCancel: () => void }) {
  const uid = useId();
  const box = useRef<HTMLDivElement>(null);
  const [values, setValues] = useState(ask.values);
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
            onRun(values);
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
          {ask.fields.map((f, i) => {
            const id = `${uid}-${f.name}`;
            const errs = ask.problems.filter((p) => p.input === f.name);
            return (
              <div key={f.name} className="prefs-field">
                <label htmlFor={id}>
                  {f.title || f.name}
                  {f.required && (
                    <span className="run-input-required" aria-label="required" title="required">
                      {' '}
                      *
                    </span>
                  )}
                </label>
                <div className="prefs-control">
                  <Control f={f} id={id} value={values[f.name] ?? ''} set={(v) => setValues((s) => ({ ...s, [f.name]: v }))} invalid={errs.length > 0} first={i === 0} />
                  <span className="prefs-help">
                    <code>{f.name}</code> · {f.type}
                    {f.secret ? ' · secret: hidden in logs, never remembered' : ''}
                    {f.description ? ` — ${f.description}` : ''}
                  </span>
                  {errs.map((p, k) => (
                    <span key={k} className="prefs-error" role="alert" data-testid="run-input-error" data-name={f.name}>
                      {p.message}
                    </span>
                  ))}
                </div>
              </div>
            );
          })}
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
