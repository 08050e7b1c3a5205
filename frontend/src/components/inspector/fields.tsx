// Form building blocks of the inspector. Every edit commits to the document
// as it is typed (grouped into one undo step per field burst by the store);
// a value that does not parse yet (a number, JSON, a key) stays a draft in
// the input with the reason shown, and is committed once it parses.
import { useEffect, useId, useRef, useState, type ReactNode, type Ref } from 'react';
import { useStore } from '../../store';
import { hintNode } from '../Prose';
import { useReferenceAssist, type RefMode } from './references';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function Field({
  label,
  htmlFor,
  required,
  hint,
  error,
  children,
  testId,
}: {
  label: string;
  htmlFor?: string;
  required?: boolean;
  hint?: ReactNode;
  error?: string;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <div className={`field${error ? ' invalid' : ''}`} data-testid={testId}>
      <label className="field-label" htmlFor={htmlFor}>
        {label}
        {required && (
          <span className="required" title="required" aria-label="required">
            *
          </span>
        )}
      </label>
      {children}
      {error ? (
        <div className="field-error" role="alert">
          {error}
        </div>
      ) : (
        hint && <div className="field-hint">{hintNode(hint)}</div>
      )}
    </div>
  );
}

/** useEndGroup ends the store's typing burst when an input loses focus. */
export function useEndGroup() {
  return useStore((s) => s.endEditGroup);
}

interface DraftProps<T> {
  value: T;
  format: (v: T) => string;
  parse: (text: string) => Parsed<T>;
  onCommit: (v: T) => void;
  multiline?: boolean;
  rows?: number;
  placeholder?: string;
  id?: string;
  testId?: string;
  mono?: boolean;
  /** report the current draft error to the enclosing Field */
  onError?: (e: string) => void;
  ariaLabel?: string;
  inputMode?: 'numeric' | 'decimal' | 'text';
  /** the field takes references: typing {{ offers them (in a RefScope),
   * and an output dragged from the run data drops in */
  refs?: RefMode;
}

/** DraftInput edits a value through its text form. */
export function DraftInput<T>({
  value,
  format,
  parse,
  onCommit,
  multiline,
  rows = 3,
  placeholder,
  id,
  testId,
  mono,
  onError,
  ariaLabel,
  inputMode,
  refs,
}: DraftProps<T>) {
  const [text, setText] = useState(() => format(value));
  const last = useRef(value);
  const endGroup = useEndGroup();
  // An outside change (undo, another field) replaces the draft.
  useEffect(() => {
    if (Object.is(value, last.current)) return;
    last.current = value;
    const p = parse(text);
    if (!p.ok || format(p.value) !== format(value)) {
      setText(format(value));
      onError?.('');
    }
    // Runs on a new value only: the draft and the callbacks (new on every
    // render) are read then, not watched.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value]);
  const change = (t: string) => {
    setText(t);
    const p = parse(t);
    if (p.ok) {
      onError?.('');
      last.current = p.value;
      onCommit(p.value);
    } else {
      onError?.(p.error);
    }
  };
  const assist = useReferenceAssist(refs, text, change);
  const { ref, expanded, ...assistProps } = assist.inputProps as typeof assist.inputProps & { ref?: Ref<never>; expanded?: boolean };
  const common = {
    id,
    value: text,
    placeholder,
    'data-testid': testId,
    'aria-label': ariaLabel,
    className: mono ? 'mono' : undefined,
    spellCheck: false,
    onBlur: endGroup,
    ...assistProps,
  };
  const field = multiline ? (
    <textarea
      {...common}
      ref={ref}
      rows={rows}
      onChange={(e) => {
        change(e.target.value);
        assist.onInput(e.target);
      }}
    />
  ) : (
    <input
      {...common}
      ref={ref}
      type="text"
      inputMode={inputMode}
      role={refs && common['aria-autocomplete'] ? 'combobox' : undefined}
      aria-expanded={refs && common['aria-autocomplete'] ? !!expanded : undefined}
      onChange={(e) => {
        change(e.target.value);
        assist.onInput(e.target);
      }}
    />
  );
  if (!refs) return field;
  return (
    <div className="ref-field">
      {field}
      {assist.popup}
    </div>
  );
}

const ok = <T,>(value: T): Parsed<T> => ({ ok: true, value });

/** TextInput edits a string; '' means absent when emptyIsUndefined. */
export function TextInput({
  value,
  onCommit,
  multiline,
  rows,
  placeholder,
  id,
  testId,
  mono,
  ariaLabel,
  refs,
}: {
  refs?: RefMode;
  value: string | undefined;
  onCommit: (v: string) => void;
  multiline?: boolean;
  rows?: number;
  placeholder?: string;
  id?: string;
  testId?: string;
  mono?: boolean;
  ariaLabel?: string;
}) {
  return (
    <DraftInput<string>
      value={value ?? ''}
      format={(v) => v}
      parse={ok}
      onCommit={onCommit}
      multiline={multiline}
      rows={rows}
      placeholder={placeholder}
      id={id}
      testId={testId}
      mono={mono}
      ariaLabel={ariaLabel}
      refs={refs}
    />
  );
}

export function parseNumber(
  text: string,
  o: { integer?: boolean; min?: number; max?: number } = {},
): Parsed<number | undefined> {
  const t = text.trim().replace(/[_,\s](?=\d{3}\b)/g, '');
  if (t === '') return ok(undefined);
  const n = Number(t);
  if (!Number.isFinite(n)) return { ok: false, error: 'Enter a number.' };
  if (o.integer && !Number.isInteger(n)) return { ok: false, error: 'Enter a whole number.' };
  if (o.min !== undefined && n < o.min) return { ok: false, error: `At least ${o.min.toLocaleString('en')}.` };
  if (o.max !== undefined && n > o.max) return { ok: false, error: `At most ${o.max.toLocaleString('en')}.` };
  return ok(n);
}

/** parseNumberList reads a list of numbers typed as "0, 1" (spaces or
 * commas between, brackets optional); '' is absent. */
export function parseNumberList(text: string, o: { integer?: boolean } = {}): Parsed<number[] | undefined> {
  const t = text.trim().replace(/^\[|\]$/g, '').trim();
  if (t === '') return ok(undefined);
  const out: number[] = [];
  for (const part of t.split(/[\s,]+/).filter(Boolean)) {
    const n = Number(part);
    if (!Number.isFinite(n) || (o.integer && !Number.isInteger(n))) {
      return { ok: false, error: `${JSON.stringify(part)} is not ${o.integer ? 'a whole number' : 'a number'}: write ${o.integer ? 'whole ' : ''}numbers separated by commas, like 0, 1.` };
    }
    out.push(n);
  }
  return ok(out);
}

/** NumberField: '' means absent (undefined). */
export function NumberField({
  label,
  value,
  onCommit,
  integer = true,
  min,
  max,
  hint,
  placeholder,
  required,
  testId,
}: {
  label: string;
  value: number | undefined;
  onCommit: (v: number | undefined) => void;
  integer?: boolean;
  min?: number;
  max?: number;
  hint?: ReactNode;
  placeholder?: string;
  required?: boolean;
  testId?: string;
}) {
  const id = useId();
  const [error, setError] = useState('');
  return (
    <Field label={label} htmlFor={id} hint={hint} error={error} required={required}>
      <DraftInput<number | undefined>
        id={id}
        testId={testId}
        value={value}
        format={(v) => (v === undefined ? '' : String(v))}
        parse={(t) => parseNumber(t, { integer, min, max })}
        onCommit={onCommit}
        onError={setError}
        placeholder={placeholder}
        inputMode={integer ? 'numeric' : 'decimal'}
      />
    </Field>
  );
}

/** Toggle is a labelled switch. */
export function Toggle({
  checked,
  onChange,
  label,
  testId,
}: {
  checked: boolean;
  onChange: (v: boolean) => void;
  label: string;
  testId?: string;
}) {
  return (
    <label className="toggle">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      <span className="toggle-track" aria-hidden="true">
        <span className="toggle-thumb" />
      </span>
      <span>{label}</span>
    </label>
  );
}
