// The Run form's values: text per declared input, as the person types it.
// Go parses each per its type and checks it (backend/inputs, the rule the
// CLI's --input NAME=VALUE follows), so nothing here decides what fits.
// The values last used for a file are kept in localStorage (a per-machine
// convenience, like the sidebar's width), never a secret input's.
import type { InputField } from '../../types';

const KEY = 'weft.runInputs:';

/** textOf is a JSON value as a field shows it: a string as it is, anything else as JSON. */
export function textOf(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function load(file: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(KEY + file) ?? '{}');
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** initialValues are what the form shows first: the values last used for the file, else the schema's defaults. */
export function initialValues(file: string, fields: InputField[]): Record<string, string> {
  const last = load(file);
  const out: Record<string, string> = {};
  for (const f of fields) {
    if (!f.secret && typeof last[f.name] === 'string') out[f.name] = last[f.name];
    else if (f.default !== undefined) out[f.name] = textOf(f.default);
    else out[f.name] = '';
  }
  return out;
}

/** remember keeps the values used for the file, except secret inputs'. */
export function remember(file: string, fields: InputField[], values: Record<string, string>): void {
  const keep: Record<string, string> = {};
  for (const f of fields) if (!f.secret && values[f.name] !== undefined) keep[f.name] = values[f.name];
  try {
    localStorage.setItem(KEY + file, JSON.stringify(keep));
  } catch {
    // storage unavailable: the values last this session only
  }
}

/** given are the values the run is started with: an empty field is an input not given (its default applies, or Go says it is required). */
export function given(fields: InputField[], values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.name] ?? '';
    if (v !== '') out[f.name] = v;
  }
  return out;
}
