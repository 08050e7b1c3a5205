// Before a run, the person approves each step a model wrote or changed that
// can act on the world (commands, file writes, any HTTP request, reads
// outside the workflow's folder, MCP tools, AI agents that may call them).
// Approval covers the exact content shown here, in full: a later change by
// a model, or by hand, asks again. The rule lives in Go (backend/approval).
// Only the step's display form is shown: Go has escaped every character
// that would not show (bidi overrides, zero-width…) as the terminal does,
// so what is read here is what runs.
import { Bot, Check, FileSearch, FilePen, Globe, ShieldAlert, SquareTerminal, TriangleAlert, Wrench } from 'lucide-react';
import { useId, useRef } from 'react';
import type { ApprovalStep } from '../../types';
import { plural } from './format';
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
};

const VIA: Record<string, string> = {
  plan: 'planned by a model',
  patch: 'changed by the assistant',
  replan: 'replanned after a failure',
  fix: 'fix suggested by a model',
};

export function ApprovalDialog({
  steps,
  approved,
  error,
  onApproveStep,
  onApproveAll,
  onCancel,
  verb = 'run',
}: {
  /** what approving leads to: the run starts, or the schedule is made */
  verb?: 'run' | 'schedule';
  steps: ApprovalStep[];
  approved: string[];
  error?: string;
  onApproveStep(fingerprint: string): void;
  onApproveAll(): void;
  onCancel(): void;
}) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  const done = new Set(approved);
  const left = steps.filter((s) => !done.has(s.fingerprint)).length;
  return (
    <div className="run-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div className="run-modal approval" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="approval-dialog" ref={box}>
        <header className="run-modal-head">
          <ShieldAlert size={16} className="esc-icon" />
          <div className="run-modal-titles">
            <h2 id={titleId}>Approve steps a model wrote</h2>
            <p className="muted">
              A model wrote or changed {plural(steps.length, 'step')} below that can act outside Weft. Each runs only after you
              approve exactly what is shown; if it changes later, you are asked again.
            </p>
          </div>
        </header>
        <div className="run-modal-body">
          <ul className="approval-list">
            {steps.map((s) => {
              const k = KIND[s.kind] ?? { label: s.kind, icon: Wrench };
              const isDone = done.has(s.fingerprint);
              const d = s.display;
              return (
                <li key={s.node_id} data-testid="approval-step" data-kind={s.kind} data-approved={isDone ? 'true' : 'false'}>
                  <k.icon size={14} className="approval-icon" aria-label={k.label} />
                  <div className="approval-text">
                    <div className="approval-name">
                      <strong>{d.name || d.key}</strong> <code>{d.key}</code>
                      {d.tool && <code>{d.tool}</code>}
                      <span className="approval-new">{VIA[s.provenance?.via ?? ''] ?? 'written by a model'}</span>
                    </div>
                    <div className="approval-detail">{d.reason}</div>
                    {d.escaped && (
                      <div className="approval-escaped" data-testid="approval-escaped">
                        <TriangleAlert size={11} /> {d.note}
                      </div>
                    )}
                    {d.arguments.length > 0 && (
                      <dl className="approval-args" data-testid="approval-args">
                        {d.arguments.map((f) => (
                          <div key={f.name}>
                            <dt>{f.name}</dt>
                            <dd>
                              <pre tabIndex={0}>{f.value}</pre>
                            </dd>
                          </div>
                        ))}
                      </dl>
                    )}
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
                    {d.other.length > 0 && (
                      <dl className="approval-args" data-testid="approval-other">
                        {d.other.map((f) => (
                          <div key={f.name}>
                            <dt>{f.name}</dt>
                            <dd>
                              <pre tabIndex={0}>{f.value}</pre>
                            </dd>
                          </div>
                        ))}
                      </dl>
                    )}
                    <details className="approval-content">
                      <summary>Everything this approval covers</summary>
                      <pre tabIndex={0} data-testid="approval-content">
                        {d.content}
                      </pre>
                    </details>
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
          <button type="button" className="btn" onClick={onCancel} data-testid="approve-cancel">
            Cancel
          </button>
        </footer>
      </div>
    </div>
  );
}
