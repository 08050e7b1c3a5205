// Before a run, the person approves each step a model wrote or changed that
// can act on the world (commands, file writes, any HTTP request, reads
// outside the workflow's folder, MCP tools, AI agents that may call them)
// or decides where the run goes. In a workflow file Weft did not write and
// the person did not review (cloned, downloaded, edited elsewhere) that is
// every such step, whoever wrote it: the dialog then says why the file is
// reviewed and, for a file that changed since it was reviewed, shows each
// step as it was beside what it is now.
// Approval covers the exact content shown here, in full: a later change by
// a model, or by hand, asks again. The rule lives in Go (backend/approval).
// Only the step's display form is shown: Go has escaped every character
// that would not show (bidi overrides, zero-width…) as the terminal does,
// so what is read here is what runs.
import { Bot, Check, FileSearch, FilePen, GitBranch, Globe, Route, ShieldAlert, SquareTerminal, TriangleAlert, Webhook, Workflow, Wrench } from 'lucide-react';
import { useId, useMemo, useRef } from 'react';
import type { ApprovalStep, FileTrust } from '../../types';
import { plural } from './format';
import { lineDiff, type DiffLine } from './lineDiff';
import './run.css';
import { useFocusTrap } from '../focusTrap';

const KIND: Record<string, { label: string; icon: typeof Wrench }> = {
  command: { label: 'runs a command', icon: SquareTerminal },
  file_write: { label: 'writes a file', icon: FilePen },
  request: { label: 'sends a request', icon: Globe },
  read_outside: { label: 'reads outside the folder', icon: FileSearch },
  tool: { label: 'calls a tool', icon: Wrench },
  unknown_tool: { label: 'unknown tool', icon: Wrench },
  agent: { label: 'AI agent', icon: Bot },
  // A sub-workflow: calling that file with these inputs (its own steps are reviewed in it).
  workflow: { label: 'runs another workflow', icon: Workflow },
  control: { label: 'decides where the run goes', icon: GitBranch },
  flow: { label: 'leads to other steps', icon: Route },
  // A workflow's trigger (weft serve): who may start it, with what inputs.
  trigger: { label: 'starts the workflow', icon: Webhook },
};

/** badge says where a step to review comes from, and for a file's step whether it is new or changed. */
function badge(s: ApprovalStep, file: FileTrust | null | undefined): { text: string; cls: string } {
  if (s.origin === 'file') {
    if (s.display.previous || s.previous) return { text: 'changed', cls: 'changed' };
    if (file?.changed) return { text: 'new', cls: 'new' };
    return { text: 'not reviewed', cls: 'file' };
  }
  // Go says who wrote it (approval.Said), as the command line does.
  return { text: s.said || 'written by a model', cls: '' };
}

/** Fields lists named values of a step (its arguments, the rest of its content) in full. */
function Fields({ fields, testId }: { fields: { name: string; value: string }[]; testId: string }) {
  if (!fields.length) return null;
  return (
    <dl className="approval-args" data-testid={testId}>
      {fields.map((f) => (
        <div key={f.name}>
          <dt>{f.name}</dt>
          <dd>
            <pre tabIndex={0}>{f.value}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function sentence(t: string): string {
  const s = t.trim();
  return s ? s[0].toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.') : s;
}

export function ApprovalDialog({
  steps,
  approved,
  error,
  onApproveStep,
  onApproveAll,
  onCancel,
  verb = 'run',
  file,
  onApproveOnly,
}: {
  /** what approving leads to: the run starts, or the schedule is made */
  verb?: 'run' | 'schedule';
  steps: ApprovalStep[];
  approved: string[];
  error?: string;
  /** the trust of the workflow's file: why its steps are reviewed */
  file?: FileTrust | null;
  onApproveStep(fingerprint: string): void;
  onApproveAll(): void;
  /** approves every step left without going on (no run): offered when given */
  onApproveOnly?(): void;
  onCancel(): void;
}) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  const done = new Set(approved);
  const left = steps.filter((s) => !done.has(s.fingerprint)).length;
  const fromFile = steps.some((s) => s.origin === 'file');
  const title = !fromFile
    ? 'Approve steps a model wrote'
    : file?.changed
      ? 'This workflow file changed since you reviewed it'
      : file && !file.trusted
        ? 'Weft did not write this workflow file'
        : 'Review this workflow file';
  return (
    <div className="run-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div className="run-modal approval" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="approval-dialog" ref={box}>
        <header className="run-modal-head">
          <ShieldAlert size={16} className="esc-icon" />
          <div className="run-modal-titles">
            <h2 id={titleId}>{title}</h2>
            {fromFile ? (
              <p className="muted" data-testid="approval-why">
                {file?.why ? sentence(file.why) + ' ' : 'It was not written by Weft, or it changed since you reviewed it. '}
                {file?.changed
                  ? `Below are the steps that act or decide where the run goes and changed since (${plural(steps.length, 'step')}), each as it was and as it is now.`
                  : `Everything in it that acts or decides where the run goes is below (${plural(steps.length, 'step')}).`}{' '}
                Nothing runs until you approve each exactly as shown; if it changes later, you are asked again.
              </p>
            ) : (
              <p className="muted">
                A model wrote or changed {plural(steps.length, 'step')} below that can act outside Weft. Each runs only after you
                approve exactly what is shown; if it changes later, you are asked again.
              </p>
            )}
          </div>
        </header>
        <div className="run-modal-body">
          <ul className="approval-list">
            {steps.map((s) => {
              const k = KIND[s.kind] ?? { label: s.kind, icon: Wrench };
              const isDone = done.has(s.fingerprint);
              const d = s.display;
              const b = badge(s, file);
              return (
                <li
                  key={s.fingerprint || s.node_id}
                  data-testid="approval-step"
                  data-kind={s.kind}
                  data-origin={s.origin ?? 'model'}
                  data-approved={isDone ? 'true' : 'false'}
                >
                  <k.icon size={14} className="approval-icon" aria-label={k.label} />
                  <div className="approval-text">
                    <div className="approval-name">
                      <strong>{d.name || d.key}</strong> <code>{d.key}</code>
                      {d.tool && <code>{d.tool}</code>}
                      <span className={`approval-new ${b.cls}`} data-testid="approval-badge">
                        {b.text}
                      </span>
                    </div>
                    <div className="approval-detail">{d.reason}</div>
                    {d.escaped && (
                      <div className="approval-escaped" data-testid="approval-escaped">
                        <TriangleAlert size={11} /> {d.note}
                      </div>
                    )}
                    <Fields fields={d.arguments ?? []} testId="approval-args" />
                    {d.prompt && (
                      <dl className="approval-args">
                        <div>
                          <dt>prompt</dt>
                          <dd>
                            <pre tabIndex={0}>{d.prompt}</pre>
                          </dd>
                        </div>
                        {d.tools && d.tools.length > 0 && (
                          <div>
                            <dt>may call</dt>
                            <dd>{d.tools.join(', ')}</dd>
                          </div>
                        )}
                      </dl>
                    )}
                    <Fields fields={d.other ?? []} testId="approval-other" />
                    {d.previous ? (
                      <WasNow was={d.previous} now={d.content} />
                    ) : (
                      <details className="approval-content">
                        <summary>Everything this approval covers</summary>
                        <pre tabIndex={0} data-testid="approval-content">
                          {d.content}
                        </pre>
                      </details>
                    )}
                  </div>
                  <div className="approval-action">
                    {isDone ? (
                      <span className="approval-done" data-testid="approval-step-done">
                        <Check size={13} /> Approved
                      </span>
                    ) : (
                      <button type="button" className="btn" onClick={() => onApproveStep(s.fingerprint)} data-testid="approve-step">
                        Approve
                      </button>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
          {error && (
            <p className="run-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <footer className="run-modal-foot">
          <button type="button" className="btn primary" onClick={onApproveAll} data-testid="approve-run" autoFocus>
            {left === 0
              ? verb[0].toUpperCase() + verb.slice(1)
              : left === steps.length
                ? `Approve all and ${verb}`
                : `Approve the other ${plural(left, 'step')} and ${verb}`}
          </button>
          {onApproveOnly && left > 0 && (
            <button type="button" className="btn" onClick={onApproveOnly} data-testid="approve-only">
              {left === steps.length ? 'Approve all' : `Approve the other ${plural(left, 'step')}`} without running
            </button>
          )}
          <button type="button" className="btn" onClick={onCancel} data-testid="approve-cancel">
            Cancel
          </button>
        </footer>
      </div>
    </div>
  );
}

/** WasNow shows a changed step as it was when its file was last reviewed and as it is now, the lines that differ marked. */
function WasNow({ was, now }: { was: string; now: string }) {
  const d = useMemo(() => lineDiff(was, now), [was, now]);
  return (
    <div className="approval-wasnow" data-testid="approval-wasnow">
      <DiffBlock label="was (when you last reviewed it)" lines={d.was} sign="−" testid="approval-was" />
      <DiffBlock label="now" lines={d.now} sign="+" testid="approval-now" />
    </div>
  );
}

function DiffBlock({ label, lines, sign, testid }: { label: string; lines: DiffLine[]; sign: string; testid: string }) {
  const changed = lines.filter((l) => l.changed).length;
  return (
    <figure className={`approval-diff ${testid === 'approval-was' ? 'was' : 'now'}`}>
      <figcaption>
        {label}
        {changed > 0 && <span className="muted"> · {plural(changed, 'line')} differ</span>}
      </figcaption>
      <pre tabIndex={0} data-testid={testid}>
        {lines.map((l, i) => (
          <span key={i} className={l.changed ? 'diff-line changed' : 'diff-line'} data-changed={l.changed ? 'true' : undefined}>
            <span className="diff-sign">{l.changed ? sign : ' '}</span>
            {l.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}
