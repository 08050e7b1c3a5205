// The Run tab: Run / Stop, where the run is, the escalation and approval
// dialogs, a replanned version to review, the summary of the last run, the
// event log and the history of past runs. Per-node status shows on the
// canvas (RunChip in WeftNode).
import { repairNotes } from '../../store/assistantSlice';
import { RepairDetails } from '../assistant/RepairDetails';
import { CircleAlert, History, LoaderCircle, Play, Route, ScrollText, Square, TriangleAlert, Wrench, X } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { useStore } from '../../store';
import { missingSecretsOf } from '../../store/secretsSlice';
import { isEnabled } from '../../types';
import { ReviewBanner } from '../assistant/ReviewBanner';
import { assistantActions } from '../assistant/actions';
import { runActions as defaultRunActions } from './actions';
import { ApprovalDialog } from './ApprovalDialog';
import { RunInputsDialog } from './RunInputsDialog';
import { EscalationDialog } from './EscalationDialog';
import { nodesRan, outcomeLabel, plural } from './format';
import { RunHistory } from './RunHistory';
import { RunLog } from './RunLog';
import { RUN_REPLAN_ENTRY, type RunActions } from './runActions';
import { RunSummary } from './RunSummary';
import '../assistant/buttons.css';
import './run.css';

const STEP_TYPES = new Set(['Tool', 'AiStep', 'AiTransform', 'Workflow']);

export const REPLAN_UNAVAILABLE = 'Replanning needs a model: set one in Preferences, and the planner makes the new plan.';

export function RunPanel({ actions = defaultRunActions }: { actions?: RunActions }) {
  const doc = useStore((s) => s.doc);
  const path = useStore((s) => s.path);
  const dirty = useStore((s) => s.dirty);
  const phase = useStore((s) => s.runPhase);
  const missingSecrets = useStore(missingSecretsOf);
  const askSecrets = useStore((s) => s.setSecretsAskOpen);
  const nodeRun = useStore((s) => s.nodeRun);
  const runWorkflowId = useStore((s) => s.runWorkflowId);
  const log = useStore((s) => s.runLog);
  const dropped = useStore((s) => s.runLogDropped);
  const filter = useStore((s) => s.logFilter);
  const query = useStore((s) => s.logQuery);
  const setFilter = useStore((s) => s.setLogFilter);
  const setQuery = useStore((s) => s.setLogQuery);
  const esc = useStore((s) => s.runEscalation);
  const sending = useStore((s) => s.escalationSending);
  const escError = useStore((s) => s.escalationError);
  const result = useStore((s) => s.runResult);
  const runError = useStore((s) => s.runError);
  const problems = useStore((s) => s.runProblems);
  const warnings = useStore((s) => s.runWarnings);
  const approval = useStore((s) => s.runApproval);
  const runInputs = useStore((s) => s.runInputs);
  const fileTrust = useStore((s) => (s.fileTrustFor === s.path ? s.fileTrust : null));
  const replan = useStore((s) => s.runReplan);
  const proposal = useStore((s) => s.proposal);
  const history = useStore((s) => s.runHistory);
  const historyLoading = useStore((s) => s.runHistoryLoading);
  const historyError = useStore((s) => s.runHistoryError);
  const viewed = useStore((s) => s.viewedRun);
  const selectNodes = useStore((s) => s.selectNodes);
  // Live validation: a workflow with errors cannot run, and Run says why.
  const liveValid = useStore((s) => s.valid);
  const liveProblems = useStore((s) => s.problems);
  const blockers = useMemo(() => (liveValid === false ? liveProblems.filter((p) => p.severity === 'error') : []), [liveValid, liveProblems]);
  const [view, setView] = useState<'log' | 'history'>('log');

  useEffect(() => {
    actions.subscribe();
    void actions.sync();
  }, [actions]);

  useEffect(() => {
    void actions.loadHistory();
  }, [actions, doc?.id, path]);

  const busy = phase === 'starting' || phase === 'running' || phase === 'stopping';
  const going = useStore((s) => s.runsGoing);

  // Runs of this workflow going on Temporal that the app does not follow:
  // after a restart, or started elsewhere; asked again when a run ends.
  useEffect(() => {
    if (!busy) void actions.loadGoing();
  }, [actions, doc?.id, path, busy]);
  const ours = !runWorkflowId || runWorkflowId === doc?.id;
  const steps = useMemo(() => (doc?.nodes ?? []).filter((n) => STEP_TYPES.has(n.type) && isEnabled(n)), [doc]);
  const done = ours ? steps.filter((n) => ['ok', 'skipped', 'failed'].includes(nodeRun[n.id]?.status ?? '')).length : 0;
  const runProposal = proposal?.entryId === RUN_REPLAN_ENTRY ? proposal : null;
  const otherProposal = !!proposal && !runProposal;
  const escNode = esc ? doc?.nodes.find((n) => n.id === esc.escalation.node_id) : null;
  const replanning = useStore((s) => s.runReplanning) && phase === 'running';
  const fixOffer = useStore((s) => s.runFixOffer);
  const setFixOffer = useStore((s) => s.setRunFixOffer);

  let status: string;
  switch (phase) {
    case 'starting':
      status = 'Starting…';
      break;
    case 'stopping':
      status = 'Stopping…';
      break;
    case 'running':
      status = esc
        ? `Waiting for you at ${esc.escalation.node_name || esc.escalation.node_key}`
        : replanning
          ? 'Replanning…'
          : `Running · ${done}/${steps.length} steps`;
      break;
    case 'finished':
      status = `${outcomeLabel(result?.outcome, result?.summary, result?.verdict)}${result?.summary ? ` · ${nodesRan(result.summary)}` : ''}`;
      break;
    default:
      status = approval
        ? 'Waiting for your approval'
        : doc
          ? `${plural(steps.length, 'step')} · not run in this session`
          : 'No workflow open';
  }

  return (
    <div className="run" data-testid="run-panel">
      <header className="run-head">
        {busy ? (
          <button
            type="button"
            className="btn stop"
            onClick={() => void actions.stop()}
            disabled={phase === 'stopping' || phase === 'starting'}
            data-testid="stop-button"
            title="Stop the run (the step in progress is cancelled)"
          >
            <Square size={13} /> Stop
          </button>
        ) : (
          <button
            type="button"
            className="btn primary"
            onClick={() => void actions.start()}
            disabled={!doc || !doc.nodes.length || otherProposal || blockers.length > 0}
            data-testid="run-button"
            title={
              otherProposal
                ? 'Apply or discard the proposed change first'
                : blockers.length
                  ? `Fix ${plural(blockers.length, 'problem')} first: ${blockers[0].message}`
                  : 'Run the workflow with real tools'
            }
          >
            <Play size={13} /> Run
          </button>
        )}
        <span className={`run-status phase-${phase}`} data-testid="run-status" data-phase={phase} aria-live="polite">
          {busy && <LoaderCircle size={13} className="spin" />}
          {status}
        </span>
        {!busy && blockers.length > 0 && (
          <button
            type="button"
            className="link run-blocked"
            data-testid="run-blocked"
            title={blockers.map((p) => p.message).join('\n')}
            onClick={() => selectNodes(blockers.find((p) => p.node_ids?.length)?.node_ids ?? [], { focus: true })}
          >
            Cannot run: fix {plural(blockers.length, 'problem')} first (see Problems)
          </button>
        )}
      </header>
      {!busy && missingSecrets.length > 0 && (
        <div className="run-missing-secrets" role="status" data-testid="run-missing-secrets">
          <TriangleAlert size={13} aria-hidden="true" />
          <span>
            Secrets missing here: <code>{missingSecrets.map((m) => m.name).join(', ')}</code>. The workflow does not run without them.
          </span>
          <button type="button" className="linkish" onClick={() => askSecrets(true)} data-testid="run-missing-secrets-add">
            Add…
          </button>
        </div>
      )}

      {approval && (
        <ApprovalDialog
          steps={approval.steps}
          approved={approval.approved}
          error={approval.error}
          file={fileTrust}
          onApproveStep={(fp) => void actions.approveStep(fp)}
          onApproveAll={() => void actions.approve()}
          onApproveOnly={() => void actions.approveOnly()}
          onCancel={actions.cancelApproval}
        />
      )}
      {runInputs && <RunInputsDialog key={JSON.stringify(runInputs)} ask={runInputs} onRun={(v, refs) => void actions.runWithInputs(v, refs)} onCancel={actions.cancelInputs} />}
      {esc && (
        <EscalationDialog
          esc={esc}
          node={escNode}
          sending={sending}
          error={escError}
          replanUnavailable={REPLAN_UNAVAILABLE}
          onRespond={(r) => void actions.respond(r)}
        />
      )}

      <div className="run-body">
        {!busy && going.length > 0 && (
          <div className="run-note" role="status" data-testid="runs-going">
            <Route size={13} />
            <div>
              <p>
                {going.length === 1 ? 'A run' : `${going.length} runs`} of this workflow {going.length === 1 ? 'is' : 'are'} going on the Temporal service
                without the app following {going.length === 1 ? 'it' : 'them'}: {going.length === 1 ? 'its' : 'their'} events, questions and end show here when you
                follow {going.length === 1 ? 'it' : 'one'}.
              </p>
              <ul className="runs-going">
                {going.slice(0, 3).map((r) => (
                  <li key={r.run_id}>
                    <code title={r.run_id}>started {new Date(r.started).toLocaleString()}</code>
                    <button type="button" className="btn" onClick={() => void actions.follow(r.run_id)} data-testid="follow-run">
                      Follow it
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          </div>
        )}
        {fixOffer && doc?.nodes.some((n) => n.id === fixOffer.nodeId) && (
          <div className="run-note" role="status" data-testid="fix-offer">
            <Wrench size={13} />
            <div>
              <p>
                The fix of {fixOffer.node} changed this run only: <code>{JSON.stringify(fixOffer.arguments)}</code>. The next run fails the same way unless
                you keep it in the workflow.
              </p>
              <div className="run-note-actions">
                <button type="button" className="btn primary" onClick={() => void actions.keepFix()} data-testid="fix-keep">
                  Keep it in the workflow
                </button>
                <button type="button" className="btn" onClick={() => setFixOffer(null)} data-testid="fix-dismiss">
                  This run only
                </button>
              </div>
            </div>
          </div>
        )}
        {!busy && doc && (!path || dirty) && (
          <p className="run-note muted" data-testid="run-unsaved-note">
            {!path
              ? 'Not saved: the run works in Weft’s own folder and is logged in its data folder. Save to run beside the file.'
              : 'Runs the workflow as on the canvas, unsaved changes included.'}
          </p>
        )}
        {runError && (
          <div className="run-note error" role="alert" data-testid="run-error">
            <CircleAlert size={13} />
            <div>
              <p>{runError}</p>
              {problems.length > 0 && (
                <ul>
                  {problems.map((p, i) => (
                    <li key={`${p.code}-${i}`}>
                      <button type="button" className="linkish" onClick={() => selectNodes(p.node_ids ?? [], { focus: true })}>
                        {p.message}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )}
        {warnings.length > 0 && busy && (
          <div className="run-note warn">
            <TriangleAlert size={13} />
            <div>{warnings.join(' · ')}</div>
          </div>
        )}

        {replan && (
          <section className="run-replan" data-testid="run-replan">
            <header>
              <Route size={14} />
              <strong>A new plan was made</strong>
              <button type="button" className="icon" aria-label="Dismiss" title="Dismiss" onClick={() => useStore.getState().setRunReplan(null)}>
                <X size={13} />
              </button>
            </header>
            <p>{replan.message}</p>
            {replan.changes && <p className="muted">{replan.changes}</p>}
            <RepairDetails tries={replan.tries} fixes={repairNotes(replan)} testId="replan-repair" />
            {!!replan.side_effects?.length && (
              <p className="muted">
                {plural(replan.side_effects.length, 'step')} written by the model will need your approval before it runs.
              </p>
            )}
            {runProposal ? (
              <ReviewBanner actions={assistantActions} />
            ) : (
              <button type="button" className="btn" onClick={() => actions.showReplan(replan)} disabled={!!proposal} data-testid="replan-review">
                Review on the canvas
              </button>
            )}
          </section>
        )}

        {result && ours && phase === 'finished' && (
          <RunSummary summary={result.summary} outcome={result.outcome} error={result.error} stoppedAt={result.stopped_at} verdict={result.verdict} />
        )}
        {result && ours && phase === 'finished' && !!result.warnings?.length && (
          <details className="run-warnings">
            <summary>
              <TriangleAlert size={12} /> {plural(result.warnings.length, 'warning')}
            </summary>
            <ul>
              {result.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          </details>
        )}

        <div className="run-views" role="tablist">
          <button type="button" role="tab" aria-selected={view === 'log'} className={view === 'log' ? 'on' : ''} onClick={() => setView('log')} data-testid="run-view-log">
            <ScrollText size={13} /> Log
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={view === 'history'}
            className={view === 'history' ? 'on' : ''}
            onClick={() => {
              setView('history');
              void actions.loadHistory();
            }}
            data-testid="run-view-history"
          >
            <History size={13} /> History{history.length ? ` (${history.length})` : ''}
          </button>
        </div>

        {view === 'log' ? (
          <>
            {viewed && (
              <div className="run-viewing" data-testid="viewing-past-run">
                <span>
                  Past run {viewed.record.run_id}
                  {viewed.truncated ? ` · last ${viewed.log.length} of ${viewed.total} events` : ''}
                </span>
                <button type="button" className="linkish" onClick={() => void actions.viewRun(null)}>
                  Back to the current run
                </button>
              </div>
            )}
            {viewed?.error && <p className="run-note error">{viewed.error}</p>}
            <RunLog
              entries={viewed ? viewed.log : ours ? log : []}
              dropped={viewed ? 0 : dropped}
              filter={filter}
              query={query}
              onFilter={setFilter}
              onQuery={setQuery}
              empty={viewed?.loading ? 'Loading…' : 'No events yet: press Run.'}
              onOpenRun={busy ? undefined : (link) => void actions.openRun(link)}
            />
          </>
        ) : (
          <RunHistory
            runs={history}
            loading={historyLoading}
            error={historyError}
            viewing={viewed?.record.run_id ?? null}
            onRefresh={() => void actions.loadHistory(true)}
            onView={(r) => {
              void actions.viewRun(r);
              setView('log');
            }}
            onOpenRun={(link) => {
              void actions.openRun(link).then((shown) => shown && setView('log'));
            }}
          />
        )}
      </div>
    </div>
  );
}
