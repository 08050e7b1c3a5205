// Past runs of the workflow, newest first, each with its summary; one can
// be opened in the log.
import { ChevronRight, RefreshCw, ScrollText } from 'lucide-react';
import { useState } from 'react';
import { baseName } from '../../store/workflowSlice';
import type { RunLink, RunRecord } from '../../types';
import { duration, nodesRan, outcomeLabel, plural, when } from './format';
import { RunSummary } from './RunSummary';
import './run.css';

function brief(r: RunRecord): string {
  const s = r.summary;
  if (!s) return r.complete ? '' : 'no summary: still going, or stopped abruptly';
  const parts = [nodesRan(s)];
  if (s.escalations) parts.push(plural(s.escalations, 'escalation'));
  if (s.retried) parts.push(`${s.retried} retried`);
  if (s.skipped) parts.push(`${s.skipped} skipped`);
  return parts.join(' · ');
}

export function RunHistory({
  runs,
  loading,
  error,
  viewing,
  onView,
  onRefresh,
  onOpenRun,
}: {
  runs: RunRecord[];
  loading: boolean;
  error: string | null;
  viewing: string | null;
  onView(r: RunRecord): void;
  onRefresh(): void;
  /** onOpenRun opens a linked run of another file (a sub-workflow's, or its caller's). */
  onOpenRun?(link: RunLink): void;
}) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="run-history" data-testid="run-history">
      <div className="run-history-bar">
        <span className="muted">{loading ? 'Loading…' : plural(runs.length, 'run')}</span>
        <button type="button" className="icon" title="Refresh" aria-label="Refresh the history" onClick={onRefresh}>
          <RefreshCw size={13} />
        </button>
      </div>
      {error && <p className="run-note error">{error}</p>}
      {!loading && !runs.length && !error && <p className="run-history-empty muted">This workflow has not run yet.</p>}
      <ul className="run-history-list">
        {runs.map((r) => {
          const expanded = open === r.run_id;
          const outcome = r.complete ? r.outcome : 'incomplete';
          return (
            <li key={r.run_id} className={expanded ? 'open' : ''} data-testid="history-row" data-outcome={outcome}>
              <button type="button" className="run-history-row" onClick={() => setOpen(expanded ? null : r.run_id)} aria-expanded={expanded}>
                <ChevronRight size={13} className="chev" />
                <span className="run-history-when">{when(r.started)}</span>
                <span className={`outcome-chip ${outcome}`}>{outcomeLabel(outcome, r.summary, r.verdict)}</span>
                <span className="run-history-brief muted">{brief(r)}</span>
                {r.summary && <span className="run-history-dur muted">{duration(r.summary.duration_ms)}</span>}
              </button>
              {expanded && (
                <div className="run-history-detail">
                  {r.summary && <RunSummary summary={r.summary} outcome={r.outcome} error={r.error} stoppedAt={r.stopped_at} verdict={r.verdict} testId="history-summary" />}
                  <div className="run-history-actions">
                    <button type="button" className="btn" onClick={() => onView(r)} disabled={viewing === r.run_id} data-testid="history-view-log">
                      <ScrollText size={13} /> {viewing === r.run_id ? 'Shown in the log' : 'Show log'}
                    </button>
                    <code className="run-history-id" title={r.dir}>
                      {r.run_id}
                    </code>
                    {r.engine_run_id && (
                      <code className="run-history-id" title="its id on the Temporal service (weft runs show …)" data-testid="history-engine-id">
                        Temporal: {r.engine_run_id}
                      </code>
                    )}
                  </div>
                  {onOpenRun && (r.parent || r.sub_runs?.length) && (
                    <div className="run-history-links" data-testid="history-links">
                      {r.parent && (
                        <button type="button" className="linkish" onClick={() => onOpenRun(r.parent!)} data-testid="history-parent" title={r.parent.file}>
                          Called by {baseName(r.parent.file ?? '') || 'a workflow'} (step {r.parent.node_key}, run {r.parent.run_id})
                        </button>
                      )}
                      {r.sub_runs?.map((l) => (
                        <button type="button" key={l.run_id} className="linkish" onClick={() => onOpenRun(l)} data-testid="history-sub-run" title={l.file}>
                          Sub-workflow {baseName(l.file ?? '')} (step {l.node_key}, run {l.run_id})
                        </button>
                      ))}
                    </div>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
