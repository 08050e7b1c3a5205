// The Tool node's form: the tool picker and an arguments form generated from
// the tool's JSON Schema. Arguments the schema does not list are kept and
// editable as JSON.
import { Plus, Trash2 } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import { setParam } from '../../graph/edit';
import { jsonTypeProblem, missingRequired, schemaForm, type SchemaField } from '../../graph/schemaForm';
import { useStore } from '../../store';
import type { Tool, WorkflowNode } from '../../types';
import { DraftInput, Field, parseNumber, parseNumberList, TextInput, type Parsed } from './fields';

type Commit = (f: (n: WorkflowNode) => WorkflowNode, field: string) => void;

function setArg(n: WorkflowNode, name: string, v: unknown): WorkflowNode {
  const args = { ...(n.params?.arguments ?? {}) };
  if (v === undefined) delete args[name];
  else args[name] = v;
  return setParam(n, 'arguments', args);
}

/** shown is an argument's value as a field shows it: a string as it is,
 * anything else (a number, or a value of the wrong kind) as JSON. */
function shown(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function parseJson(text: string, jsonType?: string): Parsed<unknown> {
  if (!text.trim()) return { ok: true, value: undefined };
  try {
    const v: unknown = JSON.parse(text);
    const problem = jsonTypeProblem(v, jsonType);
    return problem ? { ok: false, error: problem } : { ok: true, value: v };
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${(e as Error).message}` };
  }
}

const formatJson = (v: unknown) => (v === undefined ? '' : JSON.stringify(v, null, 2));

function ArgField({ f, value, onCommit }: { f: SchemaField; value: unknown; onCommit: (v: unknown) => void }) {
  const id = useId();
  const [error, setError] = useState('');
  const testId = `arg-${f.name}`;
  const label = f.title && f.title !== f.name ? `${f.name} — ${f.title}` : f.name;
  const missing = f.required && (value === undefined || value === '');
  const hint = f.description ?? (f.default !== undefined ? `Default: ${JSON.stringify(f.default)}` : undefined);
  let input;
  switch (f.kind) {
    case 'string':
    case 'text':
      input = (
        <TextInput
          id={id}
          testId={testId}
          value={typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value)}
          onCommit={(v) => onCommit(v === '' ? undefined : v)}
          multiline={f.kind === 'text'}
          rows={3}
          mono
          placeholder={f.format === 'uri' ? 'https://… or {{key.field}}' : 'text, or {{key.field}}'}
          refs="template"
        />
      );
      break;
    case 'integer':
    case 'number':
      input = (
        <DraftInput<unknown>
          id={id}
          testId={testId}
          value={value}
          format={(v) => (v === undefined ? '' : shown(v))}
          parse={(t) =>
            // A template ({{key.field}}) is resolved at run time.
            /^\s*\{\{[\s\S]*\}\}\s*$/.test(t)
              ? { ok: true, value: t.trim() }
              : parseNumber(t, { integer: f.kind === 'integer', min: f.minimum, max: f.maximum })
          }
          onCommit={onCommit}
          onError={setError}
          inputMode={f.kind === 'integer' ? 'numeric' : 'decimal'}
          refs="template"
          placeholder={f.default !== undefined ? shown(f.default) : 'number, or {{key.field}}'}
        />
      );
      break;
    case 'boolean': {
      const dflt = f.default === true;
      input = (
        <select
          id={id}
          data-testid={testId}
          value={value === true ? 'true' : value === false ? 'false' : ''}
          onChange={(e) => onCommit(e.target.value === '' ? undefined : e.target.value === 'true')}
        >
          <option value="">{`default (${dflt ? 'true' : 'false'})`}</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
      break;
    }
    case 'enum': {
      const values = f.enumValues ?? [];
      const known = values.some((v) => v === value);
      input = (
        <select
          id={id}
          data-testid={testId}
          value={value === undefined ? '' : JSON.stringify(value)}
          onChange={(e) => onCommit(e.target.value === '' ? undefined : JSON.parse(e.target.value))}
        >
          <option value="">(not set)</option>
          {values.map((v) => (
            <option key={JSON.stringify(v)} value={JSON.stringify(v)}>
              {String(v)}
            </option>
          ))}
          {!known && value !== undefined && <option value={JSON.stringify(value)}>{`${shown(value)} (not allowed)`}</option>}
        </select>
      );
      break;
    }
    case 'numbers':
      input = (
        <DraftInput<unknown>
          id={id}
          testId={testId}
          value={value}
          // A list of numbers shows as "0, 1"; anything else as JSON, to be retyped.
          format={(v) => (Array.isArray(v) && v.every((x) => typeof x === 'number') ? v.join(', ') : v === undefined ? '' : shown(v))}
          parse={(t) => parseNumberList(t, { integer: f.integerItems })}
          onCommit={onCommit}
          onError={setError}
          mono
          placeholder={f.default !== undefined && Array.isArray(f.default) ? `e.g. ${f.default.join(', ')}` : 'e.g. 0, 1'}
        />
      );
      break;
    default:
      input = (
        <DraftInput<unknown>
          id={id}
          testId={testId}
          value={value}
          format={formatJson}
          parse={(t) => parseJson(t, f.jsonType)}
          onCommit={onCommit}
          onError={setError}
          multiline
          rows={3}
          mono
          placeholder={f.jsonType === 'array' ? '[ … ]' : f.jsonType === 'object' ? '{ "name": "value" }' : 'JSON'}
        />
      );
  }
  return (
    <Field
      label={label}
      htmlFor={id}
      required={f.required}
      hint={missing ? <span className="field-missing">Required.</span> : hint}
      error={error}
      testId={`argfield-${f.name}`}
    >
      {input}
    </Field>
  );
}

function ExtraArg({ name, value, onCommit, onRemove }: { name: string; value: unknown; onCommit: (v: unknown) => void; onRemove: () => void }) {
  const id = useId();
  const [error, setError] = useState('');
  return (
    <Field label={name} htmlFor={id} error={error} hint="Not in the tool's schema; edited as JSON." testId={`argfield-${name}`}>
      <div className="row">
        <DraftInput<unknown>
          id={id}
          testId={`arg-${name}`}
          value={value}
          format={formatJson}
          parse={(t) => parseJson(t)}
          onCommit={onCommit}
          onError={setError}
          mono
        />
        <button type="button" className="icon" title={`Remove ${name}`} aria-label={`Remove ${name}`} onClick={onRemove}>
          <Trash2 size={14} />
        </button>
      </div>
    </Field>
  );
}

function AddArgument({ onAdd, taken }: { onAdd: (name: string) => void; taken: Set<string> }) {
  const [name, setName] = useState('');
  const bad = name !== '' && (taken.has(name) || !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name));
  return (
    <div className="row add-arg">
      <input
        type="text"
        value={name}
        placeholder="argument name"
        aria-label="New argument name"
        onChange={(e) => setName(e.target.value.trim())}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && name && !bad) {
            onAdd(name);
            setName('');
          }
        }}
      />
      <button
        type="button"
        className="btn small"
        disabled={!name || bad}
        onClick={() => {
          onAdd(name);
          setName('');
        }}
      >
        <Plus size={13} /> Add
      </button>
    </div>
  );
}

export function ToolPicker({ value, tools, onChange }: { value: string; tools: Tool[]; onChange: (v: string) => void }) {
  const groups = useMemo(() => {
    const m = new Map<string, Tool[]>();
    for (const t of tools) {
      const g = t.server ? `MCP: ${t.server}` : 'Built-in';
      (m.get(g) ?? m.set(g, []).get(g)!).push(t);
    }
    return [...m.entries()];
  }, [tools]);
  const known = tools.some((t) => t.name === value);
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} data-testid="inspector-tool" aria-label="Tool">
      <option value="">(choose a tool)</option>
      {!known && value && <option value={value}>{`${value} (not in the catalog)`}</option>}
      {groups.map(([g, ts]) => (
        <optgroup key={g} label={g}>
          {ts.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

export function ToolForm({ node, commit }: { node: WorkflowNode; commit: Commit }) {
  const tools = useStore((s) => s.tools);
  const toolName = node.params?.tool ?? '';
  const tool = tools.find((t) => t.name === toolName);
  const form = useMemo(() => schemaForm(tool?.input_schema), [tool]);
  const args = node.params?.arguments ?? {};
  const listed = new Set(form.fields.map((f) => f.name));
  const extras = Object.keys(args).filter((k) => !listed.has(k));
  const missing = tool ? missingRequired(form, args) : [];
  const pickerId = useId();

  return (
    <>
      <Field
        label="Tool"
        htmlFor={pickerId}
        required
        hint={tool?.description ?? (toolName ? 'This tool is not in the catalog; its arguments are edited as JSON.' : undefined)}
      >
        <ToolPicker value={toolName} tools={tools} onChange={(v) => commit((n) => setParam(n, 'tool', v), 'tool')} />
      </Field>
      {tool && (
        <div className="tool-outputs" data-testid="tool-outputs">
          <span className="field-label">Outputs</span>
          <div className="chips">
            {[...(tool.outputs ?? []).map((o) => o.name), 'success', 'error'].map((o) => (
              <code key={o} className="chip" title={tool.outputs?.find((x) => x.name === o)?.description}>
                {node.key}.{o}
              </code>
            ))}
          </div>
        </div>
      )}
      <div className="section-title">
        Arguments
        {missing.length > 0 && (
          <span className="section-flag" data-testid="missing-args">
            {missing.length} required missing
          </span>
        )}
      </div>
      {form.fields.map((f) => (
        <ArgField key={f.name} f={f} value={args[f.name]} onCommit={(v) => commit((n) => setArg(n, f.name, v), `arg:${f.name}`)} />
      ))}
      {extras.map((k) => (
        <ExtraArg
          key={k}
          name={k}
          value={args[k]}
          onCommit={(v) => commit((n) => setArg(n, k, v), `arg:${k}`)}
          onRemove={() => commit((n) => setArg(n, k, undefined), `arg-remove:${k}`)}
        />
      ))}
      {tool && form.fields.length === 0 && extras.length === 0 && <div className="muted">This tool takes no arguments.</div>}
      {(form.open || !tool) && <AddArgument taken={new Set(Object.keys(args))} onAdd={(k) => commit((n) => setArg(n, k, ''), `arg-add:${k}`)} />}
    </>
  );
}
