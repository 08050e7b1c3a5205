// A run's retry statistics: nodes run, first-attempt successes, retried,
// retry successes, escalations, skipped, failed and the failure types.
import type { NodeRef, RunSummary as Summary, Verdict } from '../../types';
import { duration, outcomeLabel, ranOf, verdictText } from './format';
import './run.css';

const STATS: { key: keyof Summary; label: string; tone?: string }[] = [
  { key: 'ran', label: 'Nodes run' },
  { key: 'first_attempt_successes', label: 'First try ok', tone: 'ok' },
  { key: 'retried', label: 'Retried', tone: 'warn' },
  { key: 'retry_successes', label: 'Retry ok', tone: 'ok' },
  { key: 'escalations', label: 'Escalated', tone: 'warn' },
  { key: 'skipped', label: 'Skipped', tone: 'warn' },
  { key: 'handled', label: 'Handled', tone: 'warn' },
  { key: 'failed', label: 'Failed', tone: 'error' },
];

const TITLES: Partial<Record<keyof Summary, string>> = {
  ran: 'Steps and decisions (If, Switch, Loop) that ran; a step in a loop counts each time',
  first_attempt_successes: 'Succeeded on the first attempt',
  retried: 'Needed more than one attempt',
  retry_successes: 'Succeeded after one or more retries',
  escalations: 'Asked you what to do',
  skipped: 'Skipped after an escalation',
  handled: 'Failed, and the step’s on_error (continue or Error branch) took it',
  failed: 'Failed (the run stopped there, or you aborted or replanned)',
};

export function RunSummary({
  summary,
  outcome,
  error,
  stoppedAt,
  verdict,
  testId = 'run-summary',
}: {
  summary: Summary | null | undefined;
  outcome: string;
  error?: string;
  stoppedAt?: NodeRef | null;
  verdict?: Verdict | null;
  testId?: string;
}) {
  const types = Object.entries(summary?.failure_types ?? {}).filter(([, n]) => n > 0);
  return (
    <section className={`run-summary outcome-${outcome}`} data-testid={testId} data-outcome={outcome}>
      <header>
        <span className={`outcome-chip ${outcome}`} data-testid="run-outcome">
          {outcomeLabel(outcome, summary, verdict)}
        </span>
        {summary && <span className="muted">in {duration(summary.duration_ms)}</span>}
        {stoppedAt && outcome !== 'succeeded' && <span className="muted"> at {stoppedAt.name || stoppedAt.key}</span>}
      </header>
      {error && outcome !== 'succeeded' && outcome !== 'partial' && <p className="run-summary-error">{error}</p>}
      {summary?.from && (
        <p className="run-summary-note" data-testid="summary-from">
          Ran from {summary.from.name || summary.from.key}
          {summary.reused
            ? `; ${summary.reused} step${summary.reused === 1 ? '' : 's'} before it reused ${summary.reused_from ? `run ${summary.reused_from}` : 'an earlier run'}'s outputs`
            : ''}
          .
        </p>
      )}
      {!!summary?.pinned && (
        <p className="run-summary-note pinned" data-testid="summary-pinned">
          Pinned data stood in for {summary.pinned} step execution{summary.pinned === 1 ? '' : 's'}: {summary.pinned === 1 ? 'that step' : 'those steps'} did not run.
        </p>
      )}
      {verdict && (
        <div className={`run-verdict ${verdict.approved ? 'met' : 'not-met'}`} data-testid="run-verdict" data-approved={verdict.approved}>
          <strong>{verdictText(verdict)}</strong>
          {verdict.criteria && <span className="muted"> · {verdict.criteria}</span>}
          {verdict.condition && !verdict.criteria && <code> {verdict.condition}</code>}
          {verdict.feedback && <p>{verdict.feedback}</p>}
          {verdict.suggestions && verdict.suggestions.length > 0 && (
            <ul data-testid="verdict-suggestions">
              {verdict.suggestions.map((s, i) => (
                <li key={i}>{s}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {summary && (
        <dl className="run-stats">
          {STATS.map((s) => {
            const v = s.key === 'ran' ? ranOf(summary) : ((summary[s.key] as number) ?? 0);
            if (s.key === 'handled' && !v) return null;
            return (
              <div key={s.key} className={`stat ${v ? (s.tone ?? '') : 'zero'}`} data-testid={`summary-${s.key}`} data-value={v} title={TITLES[s.key]}>
                <dt>{s.label}</dt>
                <dd>{v}</dd>
              </div>
            );
          })}
        </dl>
      )}
      {types.length > 0 && (
        <div className="run-failure-types" data-testid="summary-failure-types">
          <span className="muted">Failure types</span>
          {types.map(([t, n]) => (
            <code key={t} className="ft-chip">
              {t} ×{n}
            </code>
          ))}
        </div>
      )}
    </section>
  );
}
