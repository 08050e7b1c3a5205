// What a model's answer needed before it could be used: each reply asked
// again and why (with what Weft had fixed locally in it), and the local
// fixes of the reply used. Shown under an assistant answer and a replan.
import type { AssistantTry } from '../../types';

export function RepairDetails({ tries, fixes, testId = 'chat-repair' }: { tries?: AssistantTry[]; fixes?: string[]; testId?: string }) {
  if (!tries?.length && !fixes?.length) return null;
  return (
    <details className="chat-repair" data-testid={testId}>
      <summary>{tries?.length ? `Needed ${tries.length + 1} attempts: what was wrong and what Weft fixed` : 'Weft fixed the reply locally: see what'}</summary>
      <ol>
        {tries?.map((t) => (
          <li key={t.attempt} data-testid="chat-repair-try">
            Attempt {t.attempt} was asked again: {(t.why ?? []).join('; ')}
            {t.fixed?.length ? <span className="muted"> (fixed locally: {t.fixed.join('; ')})</span> : null}
          </li>
        ))}
        {fixes?.length ? (
          <li data-testid="chat-repair-final">
            {tries?.length ? `Attempt ${tries.length + 1}, used: ` : ''}fixed locally: {fixes.join('; ')}
          </li>
        ) : null}
      </ol>
    </details>
  );
}
