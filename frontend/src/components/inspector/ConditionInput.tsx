// A condition (expr-lang) with a live syntax check through the backend's
// CheckCondition, debounced while typing.
import { CircleAlert, CircleCheck, Info, LoaderCircle } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { api, errorMessage } from '../../api';
import { useStore } from '../../store';
import type { Problem, RefPlace } from '../../types';
import { Field, TextInput } from './fields';
import { Prose } from '../Prose';
import { RefScope } from './references';

/** Codes of the workflow problems that are about what a condition reads. */
const CONDITION_CODES = new Set(['unknown_output', 'unknown_variable', 'output_alias', 'exit_code_fails', 'unknown_input']);
const NO_PROBLEMS: Problem[] = [];

/** conditionProblems picks, from the problems of the node a condition
 * belongs to, those about this condition's text: the node's own problems
 * (it comes first in node_ids) whose message says it reads a key.field the
 * text reads, or names an unknown key the text reads (not a suggestion:
 * a stale problem goes once the text is fixed). The syntax check alone said "valid" while the problems
 * list said the output did not exist. */
export function conditionProblems(text: string, nodeId: string, problems: Problem[]): Problem[] {
  const refs = [...text.matchAll(/(?<![\w.?#])([A-Za-z_]\w*)\.([A-Za-z_]\w*)/g)];
  if (!refs.length) return NO_PROBLEMS;
  return problems.filter(
    (p) =>
      CONDITION_CODES.has(p.code) &&
      p.node_ids?.[0] === nodeId &&
      refs.some(([whole, key]) => new RegExp(`\\breads ${whole.replace('.', '\\.')}(?!\\w)|\\bkey '${key}'`).test(p.message)),
  );
}

/** How long the check waits after the last keystroke. */
export const CHECK_DELAY_MS = 250;

type Check = { state: 'idle' } | { state: 'checking' } | { state: 'ok' } | { state: 'error'; message: string };

export function useConditionCheck(text: string): Check {
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  useEffect(() => {
    if (!text.trim()) {
      setCheck({ state: 'idle' });
      return;
    }
    let live = true;
    setCheck({ state: 'checking' });
    const t = setTimeout(() => {
      api
        .checkCondition(text)
        .then((msg) => live && setCheck(msg ? { state: 'error', message: msg } : { state: 'ok' }))
        .catch((e) => live && setCheck({ state: 'error', message: `could not check: ${errorMessage(e)}` }));
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text]);
  return check;
}

/** errorAt reads "(column N)" or "(line L, column N)" at the end of a
 * condition error and returns the text of that line cut around the column
 * with a caret under it; null when the error has no position. */
export function errorAt(text: string, message: string): { excerpt: string; caret: string } | null {
  const m = /\((?:line (\d+), )?column (\d+)\)$/.exec(message);
  if (!m) return null;
  const lines = text.split('\n');
  const line = [...(lines[(m[1] ? Number(m[1]) : 1) - 1] ?? '')];
  const col = Math.min(Number(m[2]), line.length + 1);
  const from = Math.max(0, col - 1 - 30);
  const excerpt = (from > 0 ? '…' : '') + line.slice(from, from + 60).join('') + (from + 60 < line.length ? '…' : '');
  const caret = ' '.repeat(col - 1 - from + (from > 0 ? 1 : 0)) + '^';
  return { excerpt, caret };
}

export function ConditionInput({
  label,
  value,
  onCommit,
  required,
  placeholder = 'e.g. check.exit_code == 0',
  hint,
  testId,
  nodeId,
  refPlace = '',
}: {
  /** the node the condition belongs to: its workflow problems about the condition show here */
  nodeId?: string;
  /** which of its node's conditions this is: what it may read differs (the {{ completion) */
  refPlace?: RefPlace;
  label: string;
  value: string | undefined;
  onCommit: (v: string) => void;
  required?: boolean;
  placeholder?: string;
  hint?: string;
  testId?: string;
}) {
  const id = useId();
  const text = value ?? '';
  const check = useConditionCheck(text);
  const nodeProblems = useStore((s) => (nodeId ? s.problemsByNode[nodeId] : undefined) ?? NO_PROBLEMS);
  const about = nodeId ? conditionProblems(text, nodeId, nodeProblems) : NO_PROBLEMS;
  let status = null;
  if (check.state === 'checking') {
    status = (
      <span className="cond-status checking">
        <LoaderCircle size={12} className="spin" /> checking…
      </span>
    );
  } else if (check.state === 'ok' && about.length) {
    // Well formed, but the workflow check found what it reads wrong.
    status = (
      <>
        {about.map((p, i) => (
          <span key={i} className={`cond-status ${p.severity}`} role={p.severity === 'error' ? 'alert' : undefined} data-testid={testId && `${testId}-problem`}>
            {p.severity === 'info' ? <Info size={12} /> : <CircleAlert size={12} />} <Prose text={p.message} />
          </span>
        ))}
      </>
    );
  } else if (check.state === 'ok') {
    status = (
      <span className="cond-status ok" data-testid={testId && `${testId}-ok`}>
        <CircleCheck size={12} /> valid expression
      </span>
    );
  } else if (check.state === 'error') {
    const at = errorAt(text, check.message);
    status = (
      <>
        <span className="cond-status error" role="alert" data-testid={testId && `${testId}-error`}>
          <CircleAlert size={12} /> {check.message}
        </span>
        {at && (
          <pre className="cond-caret" aria-hidden="true" data-testid={testId && `${testId}-caret`}>
            {at.excerpt}
            {'\n'}
            {at.caret}
          </pre>
        )}
      </>
    );
  } else if (required) {
    status = <span className="cond-status missing">A condition is required.</span>;
  } else if (hint) {
    status = <span className="cond-status">{hint}</span>;
  }
  return (
    <Field label={label} htmlFor={id} required={required}>
      <RefScope nodeId={nodeId} place={refPlace}>
        <TextInput id={id} testId={testId} value={text} onCommit={onCommit} multiline rows={2} mono placeholder={placeholder} refs="expression" />
      </RefScope>
      <div className="cond-line">{status}</div>
    </Field>
  );
}
