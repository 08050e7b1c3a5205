// A condition (expr-lang) with a live syntax check through the backend's
// CheckCondition, debounced while typing.
import { CircleAlert, CircleCheck, LoaderCircle } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { api, errorMessage } from '../../api';
import { Field, TextInput } from './fields';

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

export function ConditionInput({
  label,
  value,
  onCommit,
  required,
  placeholder = 'e.g. check.exit_code == 0',
  hint,
  testId,
}: {
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
  let status = null;
  if (check.state === 'checking') {
    status = (
      <span className="cond-status checking">
        <LoaderCircle size={12} className="spin" /> checking…
      </span>
    );
  } else if (check.state === 'ok') {
    status = (
      <span className="cond-status ok" data-testid={testId && `${testId}-ok`}>
        <CircleCheck size={12} /> valid expression
      </span>
    );
  } else if (check.state === 'error') {
    status = (
      <span className="cond-status error" role="alert" data-testid={testId && `${testId}-error`}>
        <CircleAlert size={12} /> {check.message}
      </span>
    );
  } else if (required) {
    status = <span className="cond-status missing">A condition is required.</span>;
  } else if (hint) {
    status = <span className="cond-status">{hint}</span>;
  }
  return (
    <Field label={label} htmlFor={id} required={required}>
      <TextInput id={id} testId={testId} value={text} onCommit={onCommit} multiline rows={2} mono placeholder={placeholder} />
      <div className="cond-line">{status}</div>
    </Field>
  );
}
