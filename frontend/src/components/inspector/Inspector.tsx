// The Inspector tab: edits the selected node (name, key, enabled, the form
// of its type and the advanced run settings), several selected nodes at
// once (enable, disable, duplicate, delete), or the workflow itself.
import { Copy, Power, PowerOff, Trash2 } from 'lucide-react';
import { useCallback, useId, useState, type ReactElement } from 'react';
import { keyProblem } from '../../graph/ids';
import { renameKey, setField, setOnError, takenKeys, updateNode } from '../../graph/edit';
import { typeMeta } from '../../graph/nodeMeta';
import { useStore } from '../../store';
import { isEnabled, type DoneWhen, type OnError, type RefPlace, type Retry, type Workflow, type WorkflowNode } from '../../types';
import { NodeIcon } from '../NodeIcon';
import { ProblemBadge } from '../WeftNode';
import { ConditionInput } from './ConditionInput';
import { DraftInput, Field, NumberField, TextInput, Toggle } from './fields';
import { AiStepForm, AiTransformForm, EndLoopForm, IfForm, LoopForm, SwitchForm, WorkflowForm, type Commit, type CommitDoc } from './forms';
import { ToolForm } from './ToolForm';
import { PinnedData } from './PinnedData';
import { RunData } from './RunData';
import { RefScope } from './references';
import { Prose } from '../Prose';

function KeyField({ node, doc, commitDoc }: { node: WorkflowNode; doc: Workflow; commitDoc: CommitDoc }) {
  const id = useId();
  const [error, setError] = useState('');
  return (
    <Field
      label="Key"
      htmlFor={id}
      required
      error={error}
      hint={
        <>
          Refers to this node's outputs: <code>{node.key || 'key'}.field</code>. Renaming updates the references.
        </>
      }
    >
      <DraftInput<string>
        id={id}
        testId="inspector-key"
        value={node.key}
        format={(v) => v}
        parse={(t) => {
          const problem = keyProblem(t, takenKeys(doc, node.id));
          return problem ? { ok: false, error: problem } : { ok: true, value: t };
        }}
        onError={setError}
        onCommit={(k) => commitDoc((w) => renameKey(w, node.id, k), 'key')}
        mono
      />
    </Field>
  );
}

function retryWith(r: Retry | undefined, f: (r: Retry) => Retry): Retry | undefined {
  const next = f(structuredClone(r ?? {}));
  if (next.backoff && Object.values(next.backoff).every((v) => v === undefined)) delete next.backoff;
  return Object.values(next).some((v) => v !== undefined) ? next : undefined;
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

const ON_ERROR: { value: OnError; label: string; hint: string }[] = [
  { value: 'stop', label: 'Stop and ask me', hint: 'After its retries, a failure asks you what to do (or ends a headless run).' },
  { value: 'continue', label: 'Continue', hint: 'Record the failure and go on to the next step; it reads success = false and error.' },
  { value: 'branch', label: 'Error branch', hint: 'Go on along the Error output instead; connect it to the step that handles the failure.' },
];

const STEP_TYPES = new Set(['Tool', 'AiStep', 'AiTransform', 'Workflow']);

/** OnErrorField chooses what a step's failure does; leaving "Error branch"
 * removes the node's Error edges in the same undo step. */
function OnErrorField({ node, commitDoc }: { node: WorkflowNode; commitDoc: CommitDoc }) {
  const id = useId();
  const mode: OnError = node.on_error ?? 'stop';
  const hint = ON_ERROR.find((o) => o.value === mode)?.hint;
  return (
    <Field label="On error" htmlFor={id} hint={hint}>
      <select
        id={id}
        data-testid="inspector-on-error"
        value={mode}
        onChange={(e) => {
          const next = e.target.value as OnError;
          commitDoc((w) => setOnError(w, node.id, next), 'on_error');
        }}
      >
        {ON_ERROR.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

function Advanced({ node, commit, commitDoc }: { node: WorkflowNode; commit: Commit; commitDoc: CommitDoc }) {
  const r = node.retry;
  const setRetry = (f: (r: Retry) => Retry, field: string) => commit((n) => setField(n, 'retry', retryWith(n.retry, f)), field);
  const set = node.timeout_ms !== undefined || !!node.retry || !!node.verify || !!node.on_error || !!node.done_when;
  return (
    <details className="advanced" open={set || undefined} data-testid="inspector-advanced">
      <summary>Advanced</summary>
      {STEP_TYPES.has(node.type) && <OnErrorField node={node} commitDoc={commitDoc} />}
      <NumberField
        label="Timeout (ms)"
        value={node.timeout_ms}
        min={0}
        placeholder="none"
        hint="Fail the node if it runs longer."
        onCommit={(v) => commit((n) => setField(n, 'timeout_ms', v || undefined), 'timeout_ms')}
        testId="inspector-timeout"
      />
      <NumberField
        label="Retry: max attempts"
        value={r?.max_attempts}
        min={1}
        max={100}
        placeholder="from settings"
        onCommit={(v) => setRetry((x) => clean({ ...x, max_attempts: v }), 'retry.max_attempts')}
        testId="inspector-retry-attempts"
      />
      <div className="grid-2">
        <NumberField
          label="Backoff initial (ms)"
          value={r?.backoff?.initial_ms}
          min={0}
          onCommit={(v) => setRetry((x) => ({ ...x, backoff: clean({ ...x.backoff, initial_ms: v }) }), 'retry.initial_ms')}
        />
        <NumberField
          label="Backoff max (ms)"
          value={r?.backoff?.max_ms}
          min={0}
          onCommit={(v) => setRetry((x) => ({ ...x, backoff: clean({ ...x.backoff, max_ms: v }) }), 'retry.max_ms')}
        />
        <NumberField
          label="Multiplier"
          value={r?.backoff?.multiplier}
          integer={false}
          min={1}
          onCommit={(v) => setRetry((x) => ({ ...x, backoff: clean({ ...x.backoff, multiplier: v }) }), 'retry.multiplier')}
        />
        <NumberField
          label="Jitter (0–1)"
          value={r?.backoff?.jitter}
          integer={false}
          min={0}
          max={1}
          onCommit={(v) => setRetry((x) => ({ ...x, backoff: clean({ ...x.backoff, jitter: v }) }), 'retry.jitter')}
        />
      </div>
      <ConditionInput
        label="Verify"
        testId="inspector-verify"
        nodeId={node.id}
        refPlace="verify"
        value={node.verify}
        placeholder={`e.g. ${node.key || 'step'}.exit_code == 0`}
        hint="Must hold for an attempt to count as a success."
        onCommit={(v) => commit((n) => setField(n, 'verify', v || undefined), 'verify')}
      />
      {STEP_TYPES.has(node.type) && (
        <DoneWhenFields
          refPlace="done_when"
          value={node.done_when}
          subject={`${node.key || 'step'}.stdout != ''`}
          testId="inspector-done"
          hint="Checked after the step succeeded; a result that does not hold is retried like a failure."
          onCommit={(dw, field) => commit((n) => withDoneWhen(n, dw), field)}
        />
      )}
    </details>
  );
}

function NodeInspector({ node, doc }: { node: WorkflowNode; doc: Workflow }) {
  const updateNodeInStore = useStore((s) => s.updateNode);
  const edit = useStore((s) => s.edit);
  const problems = useStore((s) => s.problemsByNode[node.id]);
  const nameId = useId();
  const meta = typeMeta(node.type);
  // Each field is its own undo group: a burst of typing in it is one step.
  const commit: Commit = useCallback(
    (f, field) => updateNodeInStore(node.id, f, { group: `${node.id}:${field}`, label: `Edit ${field}` }),
    [node.id, updateNodeInStore],
  );
  const commitDoc: CommitDoc = useCallback(
    (f, field) => edit(f, { group: `${node.id}:${field}`, label: `Edit ${field}` }),
    [node.id, edit],
  );
  let form: ReactElement;
  switch (node.type) {
    case 'Tool':
      form = <ToolForm node={node} commit={commit} />;
      break;
    case 'AiStep':
      form = <AiStepForm node={node} commit={commit} />;
      break;
    case 'AiTransform':
      form = <AiTransformForm node={node} commit={commit} />;
      break;
    case 'Workflow':
      form = <WorkflowForm node={node} commit={commit} />;
      break;
    case 'If':
      form = <IfForm node={node} commit={commit} />;
      break;
    case 'Switch':
      form = <SwitchForm node={node} commit={commit} commitDoc={commitDoc} />;
      break;
    case 'Loop':
      form = <LoopForm node={node} commit={commit} />;
      break;
    case 'EndLoop':
      form = <EndLoopForm node={node} doc={doc} commitDoc={commitDoc} />;
      break;
    default:
      form = <div className="muted">Weft does not know the node type “{node.type}”; its params are kept as they are.</div>;
  }
  return (
    <div className={`inspector-node family-${meta.family}`} data-testid="inspector-node" data-node-id={node.id}>
      <header className="inspector-head">
        <span className="weft-node-icon">
          <NodeIcon type={node.type} size={16} />
        </span>
        <div className="inspector-title">
          <span className="inspector-type">{meta.label}</span>
          <code className="inspector-id" title="Node id">
            {node.id}
          </code>
        </div>
        <ProblemBadge problems={problems ?? []} />
      </header>
      {problems && problems.length > 0 && (
        <ul className="inspector-problems" data-testid="inspector-problems">
          {problems.map((p, i) => (
            <li key={i} className={p.severity}>
              <Prose text={p.message} />
            </li>
          ))}
        </ul>
      )}
      <Field label="Name" htmlFor={nameId}>
        <TextInput id={nameId} testId="inspector-name" value={node.name} onCommit={(v) => commit((n) => setField(n, 'name', v), 'name')} />
      </Field>
      <KeyField node={node} doc={doc} commitDoc={commitDoc} />
      <Toggle
        label={isEnabled(node) ? 'Enabled' : 'Disabled (passed through at run time)'}
        checked={isEnabled(node)}
        testId="inspector-enabled"
        onChange={(on) => commit((n) => setField(n, 'enabled', on ? undefined : false), 'enabled')}
      />
      <RefScope nodeId={node.id}>
        <div className="inspector-form">{form}</div>
        <Advanced node={node} commit={commit} commitDoc={commitDoc} />
      </RefScope>
      {(node.type === 'Tool' || node.type === 'AiStep' || node.type === 'AiTransform') && <PinnedData node={node} />}
      <RunData nodeId={node.id} />
    </div>
  );
}

function MultiInspector({ ids }: { ids: string[] }) {
  const edit = useStore((s) => s.edit);
  const del = useStore((s) => s.deleteSelection);
  const dup = useStore((s) => s.duplicateSelection);
  const setEnabled = (on: boolean) =>
    edit(
      (w) => ids.reduce((acc, id) => updateNode(acc, id, (n) => setField(n, 'enabled', on ? undefined : false)), w),
      { label: on ? 'Enable' : 'Disable' },
    );
  return (
    <div className="inspector-multi" data-testid="inspector-multi">
      <p>
        <strong>{ids.length} nodes</strong> selected.
      </p>
      <div className="button-row">
        <button type="button" className="btn" onClick={() => setEnabled(true)}>
          <Power size={14} /> Enable
        </button>
        <button type="button" className="btn" onClick={() => setEnabled(false)}>
          <PowerOff size={14} /> Disable
        </button>
        <button type="button" className="btn" onClick={() => dup()}>
          <Copy size={14} /> Duplicate
        </button>
        <button type="button" className="btn danger" onClick={() => del()}>
          <Trash2 size={14} /> Delete
        </button>
      </div>
    </div>
  );
}

function WorkflowInspector({ doc }: { doc: Workflow }) {
  const edit = useStore((s) => s.edit);
  const id = useId();
  const counts = new Map<string, number>();
  for (const n of doc.nodes) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  return (
    <div className="inspector-workflow" data-testid="inspector-workflow">
      <Field label="Workflow name" htmlFor={id}>
        <TextInput id={id} testId="inspector-workflow-name" value={doc.name} onCommit={(v) => edit((w) => ({ ...w, name: v }), { group: 'workflow:name', label: 'Rename workflow' })} />
      </Field>
      <p className="muted">
        {doc.nodes.length} node{doc.nodes.length === 1 ? '' : 's'}, {doc.edges.length} edge{doc.edges.length === 1 ? '' : 's'}
        {counts.size > 0 && ` (${[...counts.entries()].map(([t, c]) => `${c} ${typeMeta(t).label}`).join(', ')})`}
      </p>
      <RefScope nodeId="">
        <DoneWhenFields
          refPlace="done_when"
          value={doc.done_when}
          subject={`${doc.nodes[0]?.key || 'step'}.exit_code == 0`}
          testId="workflow-done"
          onCommit={(dw, field) => edit((w) => withDoneWhen(w, dw), { group: `workflow:${field}`, label: 'Edit done when' })}
          hint="Checked after every step ran: a run whose goal does not hold is not a success."
        />
      </RefScope>
      <Field label="Goal" htmlFor={`${id}-goal`} hint="What the workflow is for; the criteria are judged against it.">
        <TextInput
          id={`${id}-goal`}
          testId="inspector-workflow-goal"
          multiline
          rows={2}
          value={doc.goal}
          onCommit={(v) => edit((w) => clean({ ...w, goal: v.trim() ? v : undefined }), { group: 'workflow:goal', label: 'Edit goal' })}
        />
      </Field>
      <p className="muted small">Select a node to edit it. Shift-click or Shift-drag selects several.</p>
    </div>
  );
}

/** withDoneWhen sets (or, when empty, removes) a done_when. */
function withDoneWhen<T extends { done_when?: DoneWhen }>(x: T, dw: DoneWhen): T {
  const next = clean({ condition: dw.condition?.trim() ? dw.condition : undefined, criteria: dw.criteria?.trim() ? dw.criteria : undefined });
  const out = { ...x, done_when: Object.keys(next).length ? next : undefined };
  return clean(out);
}

/** DoneWhenFields edits a done_when: a condition (checked without a model)
 * and criteria (a sentence the model judges). */
function DoneWhenFields({
  value,
  subject,
  testId,
  hint,
  onCommit,
  refPlace,
}: {
  /** set for a step's done_when: its condition offers what the step may read */
  refPlace?: RefPlace;
  value: DoneWhen | undefined;
  subject: string;
  testId: string;
  hint: string;
  onCommit: (dw: DoneWhen, field: string) => void;
}) {
  const id = useId();
  return (
    <fieldset className="done-when" data-testid={testId}>
      <legend>Done when</legend>
      <p className="muted small">{hint}</p>
      <ConditionInput
        label="Condition"
        testId={`${testId}-condition`}
        refPlace={refPlace}
        value={value?.condition}
        placeholder={`e.g. ${subject}`}
        onCommit={(v) => onCommit({ ...value, condition: v }, 'done_when.condition')}
      />
      <Field label="Criteria (judged by the model)" htmlFor={id}>
        <TextInput
          id={id}
          testId={`${testId}-criteria`}
          multiline
          rows={2}
          placeholder="e.g. the report lists every failing test"
          value={value?.criteria}
          onCommit={(v) => onCommit({ ...value, criteria: v }, 'done_when.criteria')}
        />
      </Field>
    </fieldset>
  );
}

export function Inspector() {
  const doc = useStore((s) => s.doc);
  const selected = useStore((s) => s.selectedNodeIds);
  if (!doc) return <div className="inspector muted">No workflow open.</div>;
  if (selected.length > 1) {
    return (
      <div className="inspector">
        <MultiInspector ids={selected} />
      </div>
    );
  }
  const node = selected.length === 1 ? doc.nodes.find((n) => n.id === selected[0]) : undefined;
  return (
    <div className="inspector" data-testid="inspector">
      {node ? <NodeInspector key={node.id} node={node} doc={doc} /> : <WorkflowInspector doc={doc} />}
    </div>
  );
}
