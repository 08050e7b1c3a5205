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

/** Stored is how a form gives secret inputs stored secrets by name instead of values. */
export interface Stored {
  /** the stored secrets' names */
  names: string[];
  /** the secret picked for each input ('' or absent: a value is typed) */
  refs: Record<string, string>;
  set: (input: string, secret: string) => void;
  /** only a stored secret may be given (a schedule keeps no secret's value) */
  only?: boolean;
}

/** InputFields are the form's fields of a workflow's declared inputs, with their problems. */
export function InputFields({
  uid,
  fields,
  values,
  problems,
  set,
  stored,
  autoFocus = true,
}: {
  uid: string;
  fields: InputField[];
  values: Record<string, string>;
  problems: InputProblem[];
  set: (name: string, value: string) => void;
  stored?: Stored;
  autoFocus?: boolean;
}) {
  return (
    <>
      {fields.map((f, i) => {
        const id = `${uid}-${f.name}`;
        const errs = problems.filter((p) => p.input === f.name);
        // A secret input may be given a stored secret by name: the run never holds its value.
        const pick = f.secret && f.type === 'string' && stored && (stored.only || stored.names.length > 0);
        const ref = pick ? (stored.refs[f.name] ?? '') : '';
        const typed = !pick || (!ref && !stored.only);
        return (
          <div key={f.name} className="prefs-field">
            <label htmlFor={typed ? id : `${id}-stored`}>
              {f.title || f.name}
              {f.required && (
                <span className="run-input-required" aria-label="required" title="required">
                  {' '}
                  *
                </span>
              )}
            </label>
            <div className="prefs-control">
              {pick && (
                <select
                  id={`${id}-stored`}
                  data-testid="run-input-stored"
                  data-name={f.name}
                  aria-invalid={errs.length > 0}
                  value={ref}
                  autoFocus={autoFocus && i === 0 && !typed}
                  onChange={(e) => stored.set(f.name, e.target.value)}
                >
                  <option value="">{stored.only ? '— choose a stored secret —' : 'Type a value below'}</option>
                  {stored.names.map((n) => (
                    <option key={n} value={n}>
                      Stored secret {n}
                    </option>
                  ))}
                </select>
              )}
              {typed && <Control f={f} id={id} value={values[f.name] ?? ''} set={(v) => set(f.name, v)} invalid={errs.length > 0} first={autoFocus && i === 0} />}
              <span className="prefs-help">
                <code>{f.name}</code> · {f.type}
                {f.secret ? ' · secret: hidden in logs, never remembered' : ''}
                {pick && ref ? ` · the step gets ${ref}'s value only where that secret may go` : ''}
                {pick && stored.only && !stored.names.length ? ' · no stored secret yet: add one in Preferences → Secrets' : ''}
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
