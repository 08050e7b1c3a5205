// The escalation dialog: a step failed and automated recovery cannot help.
// It shows the step, the failure type and its classification, every
// attempt (time, failure type, error, output summary) and the last error,
// and sends one answer: Retry (a fresh round of attempts), Skip, Abort, Fix
// (an instruction for an AI step, or JSON arguments merged into a Tool
// step's) or Replan.
import { Hand, LoaderCircle, OctagonX, RotateCcw, Route, SkipForward, TriangleAlert, Wrench } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { RunEscalation, RunResponse, WorkflowNode } from '../../types';
import { clock, plural } from './format';
import './run.css';
import { useFocusTrap } from '../focusTrap';
import { Prose } from '../Prose';

export interface EscalationDialogProps {
  esc: RunEscalation;
  /** the step as on the canvas: its arguments start the Fix editor */
  node?: WorkflowNode | null;
  sending: boolean;
  error: string | null;
  /** why Replan cannot be offered, when it cannot */
  replanUnavailable?: string;
  onRespond(r: RunResponse): void;
}

const SEVERITY_CLASS: Record<string, string> = { CRITICAL: 'critical', HIGH: 'high', MEDIUM: 'medium', LOW: 'low' };

/** parseArguments reads the Fix editor of a Tool step: a JSON object, or why not. */
export function parseArguments(text: string): { value?: Record<string, unknown>; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'The arguments must be a JSON object, like {"path": "notes.txt"}.' };
  if (!Object.keys(v).length) return { error: 'The object is empty: change at least one argument.' };
  return { value: v as Record<string, unknown> };
}

export function EscalationDialog({ esc, node, sending, error, replanUnavailable, onRespond }: EscalationDialogProps) {
  const e = esc.escalation;
  const isTool = e.node_type === 'Tool';
  const titleId = useId();
  const [fixing, setFixing] = useState(false);
  const initialArgs = useMemo(() => JSON.stringify(node?.params?.arguments ?? {}, null, 2), [node]);
  const [text, setText] = useState(isTool ? initialArgs : '');
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  const failures = e.failures ?? [];
  const last = failures[failures.length - 1];
  const parsed = isTool && fixing ? parseArguments(text) : null;
  const canFix = isTool ? !!parsed?.value : text.trim() !== '';
  const label = e.node_name || e.node_key;
  // The answers the runner takes here (a goal check takes no fix).
  const offers = (a: RunResponse['action']) => !e.choices?.length || e.choices.includes(a);
  const goalCheck = e.node_type === 'DoneWhen';

  // A new escalation (a refused answer asks again) starts afresh.
  useEffect(() => {
    setFixing(false);
    setText(isTool ? initialArgs : '');
  }, [esc.id, isTool, initialArgs]);

  useEffect(() => {
    box.current?.querySelector<HTMLButtonElement>('[data-autofocus]')?.focus();
  }, [esc.id]);

  const sendFix = () => {
    if (!canFix || sending) return;
    if (isTool && parsed?.value) onRespond({ action: 'fix', arguments: parsed.value });
    else onRespond({ action: 'fix', instruction: text.trim() });
  };

  return (
    <div className="run-modal-backdrop">
      <div className="run-modal escalation" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={box} data-testid="escalation-dialog">
        <header className="run-modal-head">
          <Hand size={16} className="esc-icon" />
          <div className="run-modal-titles">
            <h2 id={titleId}>
              <span data-testid="esc-node">{label}</span> needs your decision
            </h2>
            <p className="muted">
              {e.node_type}
              {e.tool ? ` · ${e.tool}` : ''} · {plural(e.attempts, 'attempt')} of {e.max_attempts} failed ·{' '}
              {e.reason === 'not_retryable' ? 'retrying cannot fix this failure' : 'the retries are used up'}
            </p>
          </div>
        </header>

        <div className="run-modal-body">
          <div className="esc-class" data-testid="esc-classification">
            <span className="esc-field">
              <span className="k">Failure</span>
              <code data-testid="esc-failure-type">{last?.failure_type ?? '—'}</code>
            </span>
            <span className="esc-field">
              <span className="k">Severity</span>
              <span className={`sev-chip ${SEVERITY_CLASS[e.severity] ?? ''}`} data-testid="esc-severity">
                {e.severity}
              </span>
            </span>
            <span className="esc-field">
              <span className="k">Category</span>
              <span data-testid="esc-category">{e.category}</span>
            </span>
            <span className="esc-field">
              <span className="k">Retryable</span>
              <span data-testid="esc-retryable">{e.retryable ? 'yes' : 'no'}</span>
            </span>
          </div>
          {e.suggested_fix && (
            <p className="esc-suggest">
              <Prose text={e.suggested_fix} />
            </p>
          )}
          {e.notice && (
            <p className="esc-notice" data-testid="esc-notice">
              <TriangleAlert size={13} /> {e.notice}
            </p>
          )}

          <h3>Attempts</h3>
          <div className="esc-table-wrap">
            <table className="esc-table" data-testid="attempt-table">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Time</th>
                  <th>Failure type</th>
                  <th>Error</th>
                  <th>Output</th>
                </tr>
              </thead>
              <tbody>
                {failures.map((f, i) => (
                  <tr key={`${f.attempt}-${i}`} data-testid="attempt-row">
                    <td className="num">{f.attempt}</td>
                    <td className="time">{clock(f.time)}</td>
                    <td>
                      <code>{f.failure_type}</code>
                    </td>
                    <td>
                      <div className="cell-text" title={f.error}>
                        <Prose text={f.error} />
                      </div>
                    </td>
                    <td>
                      <div className="cell-text mono" title={f.output_summary}>
                        {f.output_summary || '—'}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>

          <h3>Last error</h3>
          <pre className="esc-last" data-testid="esc-last-error">
            {e.last_error}
          </pre>

          {!!e.known_fixes?.length && (
            <details className="esc-known">
              <summary>{plural(e.known_fixes.length, 'known fix', 'known fixes')} from earlier runs</summary>
              <ul>
                {e.known_fixes.map((k, i) => (
                  <li key={i}>
                    <strong>{k.resolution}</strong>
                    {k.fix ? <code> {k.fix}</code> : null}
                    {k.error ? <span className="muted"> — {k.error}</span> : null}
                  </li>
                ))}
              </ul>
            </details>
          )}

          {fixing && (
            <div className="esc-fix" data-testid="esc-fix-editor">
              <label htmlFor={`${titleId}-fix`}>
                {isTool
                  ? 'Arguments to merge into the step (a JSON object; null removes a key)'
                  : 'An instruction the step gets as priority guidance'}
              </label>
              <textarea
                id={`${titleId}-fix`}
                className={isTool ? 'mono' : undefined}
                rows={isTool ? 6 : 3}
                value={text}
                spellCheck={!isTool}
                placeholder={isTool ? '{"path": "notes.txt"}' : 'Return the answer as JSON with the keys a and b.'}
                onChange={(ev) => setText(ev.target.value)}
                onKeyDown={(ev) => {
                  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) sendFix();
                }}
                data-testid="esc-fix-text"
                autoFocus
              />
              {parsed?.error && (
                <p className="esc-fix-error" data-testid="esc-fix-error">
                  {parsed.error}
                </p>
              )}
            </div>
          )}
          {error && (
            <p className="esc-error" role="alert">
              {error}
            </p>
          )}
        </div>

        <footer className="run-modal-foot">
          {fixing ? (
            <>
              <button type="button" className="btn primary" disabled={!canFix || sending} onClick={sendFix} data-testid="esc-fix-send">
                <Wrench size={14} /> Retry with fix
              </button>
              <button type="button" className="btn" disabled={sending} onClick={() => setFixing(false)}>
                Back
              </button>
            </>
          ) : (
            <>
              <button
                type="button"
                className="btn primary"
                disabled={sending}
                onClick={() => onRespond({ action: 'retry' })}
                title={goalCheck ? 'Check the goal again' : `Run the step again with a fresh round of ${e.max_attempts > e.attempts ? 'attempts' : 'retries'}`}
                data-testid="esc-retry"
                data-autofocus
              >
                <RotateCcw size={14} /> {goalCheck ? 'Check again' : 'Retry'}
              </button>
              <button
                type="button"
                className="btn"
                disabled={sending}
                onClick={() => onRespond({ action: 'skip' })}
                title={
                  goalCheck
                    ? 'Accept the result although the goal check did not pass; the run ends as completed with problems'
                    : 'Mark the step skipped and go on; steps reading its outputs may fail or branch differently'
                }
                data-testid="esc-skip"
              >
                <SkipForward size={14} /> {goalCheck ? 'Accept anyway' : 'Skip'}
              </button>
              {offers('fix') && (
              <button
                type="button"
                className="btn"
                disabled={sending}
                onClick={() => setFixing(true)}
                title={isTool ? 'Change the step’s arguments and retry' : 'Give the step an instruction and retry'}
                data-testid="esc-fix"
              >
                <Wrench size={14} /> Fix…
              </button>
              )}
              <button
                type="button"
                className="btn"
                disabled={sending || !e.can_replan}
                onClick={() => onRespond({ action: 'replan' })}
                title={e.can_replan ? 'Ask the planner for a new plan; you review it before it runs' : replanUnavailable}
                data-testid="esc-replan"
              >
                <Route size={14} /> Replan
              </button>
              <span className="spacer" />
              <button
                type="button"
                className="btn danger"
                disabled={sending}
                onClick={() => onRespond({ action: 'abort' })}
                title="Stop the run here, keeping what it did"
                data-testid="esc-abort"
              >
                <OctagonX size={14} /> Abort
              </button>
            </>
          )}
        </footer>
        {!e.can_replan && !fixing && (
          <p className="esc-replan-note muted" data-testid="esc-replan-note">
            {replanUnavailable}
          </p>
        )}
        {sending && (
          <div className="esc-sending">
            <LoaderCircle size={13} className="spin" /> Sending…
          </div>
        )}
      </div>
    </div>
  );
}
