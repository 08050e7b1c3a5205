// The fields of a workflow's declared inputs (its "inputs" JSON Schema):
// one per input in the file's order, typed by the input's type (text, a
// number, true/false, a choice of its enum, JSON for objects and arrays, a
// password field for a secret one), required ones marked, each with the
// problems Go found in its value. The Run form and the schedule form
// show the same fields; Go parses and checks what is typed.
import type { InputField, InputProblem } from '../../types';
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

/** InputFields are the form's fields of a workflow's declared inputs, with their problems. */
export function InputFields({
  uid,
  fields,
  values,
  problems,
  set,
  autoFocus = true,
}: {
  uid: string;
  fields: InputField[];
  values: Record<string, string>;
  problems: InputProblem[];
  set: (name: string, value: string) => void;
  autoFocus?: boolean;
}) {
  return (
    <>
      {fields.map((f, i) => {
        const id = `${uid}-${f.name}`;
        const errs = problems.filter((p) => p.input === f.name);
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
              <Control f={f} id={id} value={values[f.name] ?? ''} set={(v) => set(f.name, v)} invalid={errs.length > 0} first={autoFocus && i === 0} />
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
    </>
  );
}
