// A node's run status on the canvas: a chip over its top edge (running,
// ok, retrying n/m, needs you, failed, skipped, stopped); the node gets a
// matching ring through runClass.
import { Check, CircleAlert, Hand, History, LoaderCircle, Pin, Redo2, RotateCw, Square, X } from 'lucide-react';
import type { NodeRunState } from '../../store/runSlice';
import { STATUS_LABEL } from './format';
import './run.css';

const ICONS = {
  running: LoaderCircle,
  ok: Check,
  retrying: RotateCw,
  escalated: Hand,
  failed: X,
  skipped: Redo2,
  canceled: Square,
} as const;

/** runClass is the class the node takes for its ring. */
export function runClass(st: NodeRunState | undefined): string {
  return st ? `run-${st.status}` : '';
}

export function chipText(st: NodeRunState): string {
  const n = st.attempt && st.maxAttempts ? `${st.attempt}/${st.maxAttempts}` : '';
  switch (st.status) {
    case 'retrying':
      return n ? `retrying ${n}` : 'retrying';
    case 'running':
      if (st.iteration) return `iteration ${st.iteration}`;
      return st.attempt && st.attempt > 1 && n ? `attempt ${n}` : 'running';
    case 'ok':
      if (st.source === 'pinned') return 'pinned data';
      if (st.source === 'reused') return 'reused';
      return st.attempt && st.attempt > 1 ? `ok · ${st.attempt} attempts` : 'ok';
    default:
      return STATUS_LABEL[st.status] ?? st.status;
  }
}

export function RunChip({ state, stale }: { state: NodeRunState | undefined; stale?: boolean }) {
  if (!state) return null;
  const Icon = state.source === 'pinned' ? Pin : state.source === 'reused' ? History : (ICONS[state.status] ?? CircleAlert);
  const title = state.message ? `${chipText(state)}: ${state.message}` : chipText(state);
  return (
    <span
      className={`run-chip ${state.status}${state.source ? ` ${state.source}` : ''}${stale ? ' stale' : ''}`}
      data-testid="run-chip"
      data-status={state.status}
      data-stale={stale ? 'true' : undefined}
      title={stale ? `${title} (changed since this run: its result may not hold for the step as it is now)` : title}
    >
      <Icon size={11} className={state.status === 'running' ? 'spin' : undefined} />
      {chipText(state)}
      {stale ? ' · changed' : ''}
    </span>
  );
}
