// The per-type forms of the inspector (Tool's is in ToolForm.tsx).
import { ArrowDown, ArrowUp, Plus, Trash2 } from 'lucide-react';
import { useId, useState } from 'react';
import { addCase, moveCase, removeCase, renameCase, setEndLoopTarget, setParam } from '../../graph/edit';
import { useStore } from '../../store';
import type { SwitchCase, Workflow, WorkflowNode } from '../../types';
import { ConditionInput } from './ConditionInput';
import { DraftInput, Field, NumberField, TextInput, type Parsed } from './fields';
import { parseJson } from './ToolForm';

export type Commit = (f: (n: WorkflowNode) => WorkflowNode, field: string) => void;
export type CommitDoc = (f: (w: Workflow) => Workflow, field: string) => void;

export function AiStepForm({ node, commit }: { node: WorkflowNode; commit: Commit }) {
  const tools = useStore((s) => s.tools);
  const id = useId();
  const allowed = node.params?.allowed_tools ?? [];
  const names = [...tools.map((t) => t.name), ...allowed.filter((a) => !tools.some((t) => t.name === a))];
  const toggle = (name: string, on: boolean) => {
    const next = on ? [...allowed, name] : allowed.filter((a) => a !== name);
    commit((n) => setParam(n, 'allowed_tools', next.length ? next : undefined), 'allowed_tools');
  };
  return (
    <>
      <Field label="Prompt" htmlFor={id} required hint="What the model should do; {{key.field}} inserts an earlier node's output.">
        <TextInput
          id={id}
          testId="inspector-prompt"
          refs="template"
          value={node.params?.prompt}
          onCommit={(v) => commit((n) => setParam(n, 'prompt', v), 'prompt')}
          multiline
          rows={5}
        />
      </Field>
      <Field label="Allowed tools" hint="Tools the model may call while it works.">
        <div className="check-list" data-testid="inspector-allowed-tools">
          {names.length === 0 && <span className="muted">No tools in the catalog.</span>}
          {names.map((name) => (
            <label key={name} className={`check${tools.some((t) => t.name === name) ? '' : ' unknown'}`}>
              <input type="checkbox" checked={allowed.includes(name)} onChange={(e) => toggle(name, e.target.checked)} />
              <code>{name}</code>
            </label>
          ))}
        </div>
      </Field>
      <NumberField
        label="Max tool calls"
        value={node.params?.max_tool_calls}
        min={0}
        max={1000}
        placeholder="default"
        onCommit={(v) => commit((n) => setParam(n, 'max_tool_calls', v), 'max_tool_calls')}
        testId="inspector-max-tool-calls"
      />
    </>
  );
}

const KINDS = [
  { id: 'summarize', label: 'Summarize', hint: 'outputs text' },
  { id: 'extract', label: 'Extract', hint: 'outputs data (an object)' },
  { id: 'classify', label: 'Classify', hint: 'outputs one of the labels' },
];

export function AiTransformForm({ node, commit }: { node: WorkflowNode; commit: Commit }) {
  const kind = node.params?.kind ?? '';
  const inputId = useId();
  const labelsId = useId();
  const kindId = useId();
  const known = KINDS.some((k) => k.id === kind);
  return (
    <>
      <Field label="Kind" htmlFor={kindId} required hint={KINDS.find((k) => k.id === kind)?.hint}>
        <select
          id={kindId}
          data-testid="inspector-kind"
          value={kind}
          onChange={(e) => commit((n) => setParam(n, 'kind', e.target.value || undefined), 'kind')}
        >
          {!known && <option value={kind}>{kind ? `${kind} (unknown)` : '(choose)'}</option>}
          {KINDS.map((k) => (
            <option key={k.id} value={k.id}>
              {k.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Input" htmlFor={inputId} required hint="The text to transform, usually {{key.field}}.">
        <TextInput
          id={inputId}
          testId="inspector-input"
          refs="template"
          value={node.params?.input}
          onCommit={(v) => commit((n) => setParam(n, 'input', v), 'input')}
          multiline
          rows={3}
          mono
        />
      </Field>
      {(kind === 'classify' || (node.params?.labels?.length ?? 0) > 0) && (
        <Field label="Labels" htmlFor={labelsId} required={kind === 'classify'} hint="Comma-separated, e.g. urgent, normal, spam">
          <DraftInput<string[]>
            id={labelsId}
            testId="inspector-labels"
            value={node.params?.labels ?? []}
            format={(v) => v.join(', ')}
            parse={(t) => ({
              ok: true,
              value: t
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean),
            })}
            onCommit={(v) => commit((n) => setParam(n, 'labels', v.length ? v : undefined), 'labels')}
          />
        </Field>
      )}
    </>
  );
}

/** WorkflowForm is a sub-workflow's: the file it runs (a literal path,
 * relative to this workflow's folder; Go's validation says whether it
 * exists and takes the inputs) and its inputs as a JSON object, whose
 * {{key.field}} templates reach the file as data. */
export function WorkflowForm({ node, commit }: { node: WorkflowNode; commit: Commit }) {
  const pathId = useId();
  const inputsId = useId();
  const [error, setError] = useState('');
  return (
    <>
      <Field label="Workflow file" htmlFor={pathId} required hint="A file beside this one, such as backup-notes.weft.json; never a template.">
        <TextInput
          id={pathId}
          testId="inspector-workflow-path"
          value={node.params?.path}
          onCommit={(v) => commit((n) => setParam(n, 'path', v), 'path')}
          mono
        />
      </Field>
      <Field label="Inputs" htmlFor={inputsId} hint={error || 'A JSON object of the file’s declared inputs; values may read {{key.field}}.'}>
        <DraftInput<Record<string, unknown> | undefined>
          id={inputsId}
          testId="inspector-workflow-inputs"
          refs="template"
          value={node.params?.inputs}
          format={(v) => (v && Object.keys(v).length ? JSON.stringify(v, null, 2) : '')}
          parse={(t) => parseJson(t, 'object') as Parsed<Record<string, unknown> | undefined>}
          onError={setError}
          onCommit={(v) => commit((n) => setParam(n, 'inputs', v), 'inputs')}
          multiline
          rows={4}
          mono
        />
      </Field>
    </>
  );
}

export function IfForm({ node, commit }: { node: WorkflowNode; commit: Commit }) {
  return (
    <ConditionInput
      label="Condition"
      required
      testId="inspector-condition"
      nodeId={node.id}
      value={node.params?.condition}
      onCommit={(v) => commit((n) => setParam(n, 'condition', v), 'condition')}
      hint="true takes the true branch, false the false branch"
    />
  );
}

function CaseRow({
  node,
  i,
  c,
  cases,
  commitDoc,
  commit,
}: {
  node: WorkflowNode;
  i: number;
  c: SwitchCase;
  cases: SwitchCase[];
  commitDoc: CommitDoc;
  commit: Commit;
}) {
  const [error, setError] = useState('');
  return (
    <li className="case" data-testid={`case-${i}`}>
      <div className="case-head">
        <span className="case-index">{i + 1}</span>
        <DraftInput<string>
          testId={`case-name-${i}`}
          ariaLabel={`Name of case ${i + 1}`}
          value={c.name}
          format={(v) => v}
          parse={(t) => {
            const name = t.trim();
            if (!name) return { ok: false, error: 'A case needs a name.' };
            if (cases.some((x, j) => j !== i && x.name === name)) return { ok: false, error: `Another case is called “${name}”.` };
            return { ok: true, value: name };
          }}
          onError={setError}
          onCommit={(v) => commitDoc((w) => renameCase(w, node.id, i, v), `case-name:${i}`)}
          mono
        />
        <button type="button" className="icon" title="Move up" aria-label="Move case up" disabled={i === 0} onClick={() => commitDoc((w) => moveCase(w, node.id, i, -1), 'case-move')}>
          <ArrowUp size={13} />
        </button>
        <button
          type="button"
          className="icon"
          title="Move down"
          aria-label="Move case down"
          disabled={i === cases.length - 1}
          onClick={() => commitDoc((w) => moveCase(w, node.id, i, 1), 'case-move')}
        >
          <ArrowDown size={13} />
        </button>
        <button type="button" className="icon danger" title="Remove case and its edge" aria-label={`Remove case ${c.name}`} onClick={() => commitDoc((w) => removeCase(w, node.id, i), 'case-remove')}>
          <Trash2 size={13} />
        </button>
      </div>
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
      <ConditionInput
        label="Condition"
        required
        testId={`case-condition-${i}`}
        nodeId={node.id}
        value={c.condition}
        onCommit={(v) =>
          commit(
            (n) =>
              setParam(
                n,
                'cases',
                (n.params?.cases ?? []).map((x, j) => (j === i ? { ...x, condition: v } : x)),
              ),
            `case-cond:${i}`,
          )
        }
      />
    </li>
  );
}

export function SwitchForm({ node, commit, commitDoc }: { node: WorkflowNode; commit: Commit; commitDoc: CommitDoc }) {
  const cases = node.params?.cases ?? [];
  return (
    <>
      <div className="section-title">Cases</div>
      <p className="muted small">The first case whose condition holds is taken; otherwise the default branch.</p>
      <ol className="cases" data-testid="inspector-cases">
        {cases.map((c, i) => (
          <CaseRow key={i} node={node} i={i} c={c} cases={cases} commit={commit} commitDoc={commitDoc} />
        ))}
      </ol>
      <button type="button" className="btn small" data-testid="add-case" onClick={() => commitDoc((w) => addCase(w, node.id), 'case-add')}>
        <Plus size={13} /> Add case
      </button>
    </>
  );
}

export function LoopForm({ node, commit }: { node: WorkflowNode; commit: Commit }) {
  return (
    <>
      <ConditionInput
        label="Exit condition"
        testId="inspector-exit-condition"
        nodeId={node.id}
        refPlace="exit_condition"
        value={node.params?.exit_condition}
        onCommit={(v) => commit((n) => setParam(n, 'exit_condition', v || undefined), 'exit_condition')}
        hint="Checked after each iteration from the second on; empty runs until max iterations."
        placeholder="e.g. loop.index >= 3"
      />
      <NumberField
        label="Max iterations"
        value={node.params?.max_iterations}
        min={1}
        max={1_000_000}
        placeholder="100"
        hint="A hard cap (default 100)."
        onCommit={(v) => commit((n) => setParam(n, 'max_iterations', v), 'max_iterations')}
        testId="inspector-max-iterations"
      />
    </>
  );
}

export function EndLoopForm({ node, doc, commitDoc }: { node: WorkflowNode; doc: Workflow; commitDoc: CommitDoc }) {
  const id = useId();
  const loops = doc.nodes.filter((n) => n.type === 'Loop');
  const loopId = node.params?.loop_id ?? '';
  const known = loops.some((l) => l.id === loopId);
  const owners = new Map(
    doc.nodes.filter((n) => n.type === 'EndLoop' && n.id !== node.id && n.params?.loop_id).map((n) => [n.params.loop_id!, n]),
  );
  return (
    <Field label="Loop" htmlFor={id} required hint="The Loop this EndLoop closes; its edge goes back there.">
      <select
        id={id}
        data-testid="inspector-loop"
        value={loopId}
        onChange={(e) => commitDoc((w) => setEndLoopTarget(w, node.id, e.target.value), 'loop_id')}
      >
        <option value="">(choose a Loop)</option>
        {!known && loopId && <option value={loopId}>{`${loopId} (missing)`}</option>}
        {loops.map((l) => (
          <option key={l.id} value={l.id}>
            {`${l.name || l.key}${owners.has(l.id) ? ' — has an EndLoop' : ''}`}
          </option>
        ))}
      </select>
    </Field>
  );
}
