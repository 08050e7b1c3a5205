// Lists the backend's validation problems; clicking one selects its nodes
// and centres them on the canvas.
import { CircleAlert, CircleCheck, Info, KeyRound, LoaderCircle, TriangleAlert } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useStore } from '../store';
import type { Problem } from '../types';
import { MoveToSecretsDialog } from './MoveToSecretsDialog';
import { Prose } from './Prose';

function nodeNames(p: Problem, names: Map<string, string>): string {
  return (p.node_ids ?? []).map((id) => names.get(id) ?? id).join(', ');
}

export function ProblemsPanel() {
  const all = useStore((s) => s.problems);
  const valid = useStore((s) => s.valid);
  const validating = useStore((s) => s.validating);
  const doc = useStore((s) => s.doc);
  const selectNodes = useStore((s) => s.selectNodes);
  const selected = useStore((s) => s.selectedNodeIds);
  const extra = useStore((s) => s.warnings);

  // An empty workflow is where every workflow starts, not a mistake: the
  // canvas shows how to begin instead of a red no_nodes error.
  const empty = doc !== null && doc.nodes.length === 0;
  const problems = useMemo(() => (empty ? all.filter((p) => p.code !== 'no_nodes') : all), [all, empty]);
  const names = useMemo(() => new Map((doc?.nodes ?? []).map((n) => [n.id, n.name || n.key || n.id])), [doc]);
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  // Infos: what works as written but perhaps not as meant (exit_code_fails).
  const infos = problems.length - errors - warnings;
  const selectedKey = selected.join(',');
  // The row last clicked stays highlighted while its nodes stay selected.
  const [clicked, setClicked] = useState<Problem | null>(null);
  // The literal_secret warning whose "Move to secrets" dialog is open.
  const [moving, setMoving] = useState<Problem | null>(null);

  return (
    <section
      className={`problems${problems.length || extra.length ? '' : ' compact'}`}
      aria-label="Problems"
      data-testid="problems-panel"
    >
      <header className="problems-head">
        <span className="problems-title">Problems</span>
        <span className={`count error${errors ? '' : ' zero'}`} data-testid="error-count">
          <CircleAlert size={13} /> {errors}
        </span>
        <span className={`count warning${warnings ? '' : ' zero'}`} data-testid="warning-count">
          <TriangleAlert size={13} /> {warnings}
        </span>
        {infos > 0 && (
          <span className="count info" data-testid="info-count" title="Notes: works as written, perhaps not as meant">
            <Info size={13} /> {infos}
          </span>
        )}
        {validating && (
          <span className="problems-busy">
            <LoaderCircle size={13} className="spin" /> validating…
          </span>
        )}
      </header>
      <div className="problems-scroll">
      {problems.length === 0 ? (
        <div className="problems-empty" data-testid="problems-empty">
          {empty ? (
            'Nothing to check yet: the workflow has no steps.'
          ) : valid === null ? (
            doc ? 'Not validated yet.' : 'No workflow open.'
          ) : (
            <>
              <CircleCheck size={15} className="ok" /> No problems: the workflow is valid.
            </>
          )}
        </div>
      ) : (
        <ul className="problems-list" role="list">
          {problems.map((p, i) => {
            const ids = p.node_ids ?? [];
            const isSel = clicked === p && ids.length > 0 && ids.join(',') === selectedKey;
            return (
              <li key={`${p.code}-${i}`}>
                <button
                  type="button"
                  className={`problem-row ${p.severity}${isSel ? ' active' : ''}`}
                  data-testid="problem-row"
                  data-code={p.code}
                  disabled={ids.length === 0}
                  title={ids.length ? 'Show on canvas' : undefined}
                  onClick={() => {
                    setClicked(p);
                    selectNodes(ids, { focus: true });
                  }}
                >
                  {p.severity === 'error' ? (
                    <CircleAlert size={14} className="sev error" aria-label="error" />
                  ) : p.severity === 'warning' ? (
                    <TriangleAlert size={14} className="sev warning" aria-label="warning" />
                  ) : (
                    <Info size={14} className="sev info" aria-label="note" />
                  )}
                  <code className="problem-code">{p.code}</code>
                  <span className="problem-message">
                    <Prose text={p.message} />
                  </span>
                  {ids.length > 0 && <span className="problem-nodes">{nodeNames(p, names)}</span>}
                </button>
                {p.code === 'literal_secret' && p.path && ids.length === 1 && (
                  <button type="button" className="btn problem-action" data-testid="move-to-secrets-button" onClick={() => setMoving(p)}>
                    <KeyRound size={13} /> Move to secrets
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {extra.length > 0 && (
        <div className="problems-extra" data-testid="planner-warnings">
          <div className="problems-subtitle">Planner and patch warnings</div>
          <ul className="problems-list" role="list">
            {extra.map((w, i) => (
              <li key={`${w.source}-${i}`}>
                <button
                  type="button"
                  className="problem-row warning"
                  data-testid="planner-warning-row"
                  disabled={!w.node_id}
                  onClick={() => w.node_id && selectNodes([w.node_id], { focus: true })}
                >
                  <TriangleAlert size={14} className="sev warning" aria-label="warning" />
                  <code className="problem-code">{w.stage ? `${w.source}: ${w.stage}` : w.source}</code>
                  <span className="problem-message">
                    <Prose text={w.message} />
                  </span>
                  {w.node_id && <span className="problem-nodes">{names.get(w.node_id) ?? w.node_id}</span>}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      </div>
      {moving && <MoveToSecretsDialog problem={moving} onClose={() => setMoving(null)} />}
    </section>
  );
}
