// Small formatting helpers of the Run panel.
import type { RunNodeStatus, RunSummary, Verdict } from '../../types';

/** clock shows an RFC 3339 time as HH:MM:SS in local time. */
export function clock(iso: string | undefined, withMs = false): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const s = `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  return withMs ? `${s}.${p(d.getMilliseconds(), 3)}` : s;
}

/** when shows a past run's start: the time today, else the date and time. */
export function when(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 2000) return '—';
  const sameDay = d.toDateString() === now.toDateString();
  if (sameDay) return clock(iso);
  return `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${clock(iso).slice(0, 5)}`;
}

/** duration shows milliseconds compactly: 850ms, 2.4s, 3m 05s. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m}m ${String(s).padStart(2, '0')}s`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** ranOf is how many nodes a run ran, as Go counts them (Summary.ran:
 * steps and decisions; a summary written before it has step executions
 * only). */
export function ranOf(s: RunSummary): number {
  const ran: number | undefined = s.ran;
  return ran ?? s.nodes;
}

/** nodesRan says it: "3 nodes ran". */
export function nodesRan(s: RunSummary): string {
  return `${plural(ranOf(s), 'node')} ran`;
}

export const OUTCOME_LABEL: Record<string, string> = {
  succeeded: 'Succeeded',
  partial: 'Completed with problems',
  failed: 'Failed',
  aborted: 'Aborted',
  canceled: 'Stopped',
  replanned: 'Replanned',
  needs_review: 'Needs review',
};

export const STATUS_LABEL: Record<RunNodeStatus, string> = {
  running: 'running',
  ok: 'ok',
  retrying: 'retrying',
  escalated: 'needs you',
  failed: 'failed',
  skipped: 'skipped',
  canceled: 'stopped',
};

/** outcomeLabel names how a run ended; a partial run says what went
 * wrong from its summary: "Completed with 2 skipped, 1 failure handled". */
export function outcomeLabel(outcome: string | undefined, summary?: RunSummary | null, verdict?: Verdict | null): string {
  if (outcome !== 'partial') return OUTCOME_LABEL[outcome ?? ''] ?? outcome ?? 'Finished';
  const parts: string[] = [];
  if (summary?.skipped) parts.push(`${summary.skipped} skipped`);
  if (summary?.handled) parts.push(plural(summary.handled, 'failure') + ' handled');
  if (verdict && !verdict.approved) parts.push('goal not met');
  return parts.length ? `Completed with ${parts.join(', ')}` : OUTCOME_LABEL.partial;
}

/** verdictText is one line about a goal check. */
export function verdictText(v: Verdict): string {
  const state = v.approved ? 'met' : v.accepted ? 'not met (accepted)' : 'not met';
  const by = v.checked_by.includes('model') ? `${v.checked_by}, ${Math.round(v.confidence * 100)}% confident` : v.checked_by;
  return `Goal check ${state} (${by})`;
}
