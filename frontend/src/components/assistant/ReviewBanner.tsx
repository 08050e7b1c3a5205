// The review of a proposed change: what it adds, removes and modifies (the
// canvas shows the same in green, red and amber) with every field it sets,
// old → new in full (the backend's ChangeSet: nothing is computed here), its
// validation errors and warnings, the steps of the reply it leaves out, and
// Apply / Discard. An invalid change, or one that leaves steps out, needs
// "Apply anyway".
import { Check, CircleAlert, GitPullRequestArrow, Minus, PencilLine, Plus, TriangleAlert, X } from 'lucide-react';
import { useMemo } from 'react';
import { typeMeta } from '../../graph/nodeMeta';
import { useStore } from '../../store';
import type { AssistantActions } from '../../store/assistantActions';
import type { Proposal } from '../../store/assistantSlice';
import type { ChangeValue, EdgeChange, FieldChange, NodeChange, ProposalTests, Workflow, WorkflowNode } from '../../types';

interface Row {
  id: string;
  status: 'added' | 'removed' | 'modified';
  node: WorkflowNode | undefined;
}

function label(n: WorkflowNode | undefined, id: string): string {
  return n?.name || n?.key || id;
}

function rows(p: Proposal, base: Workflow | null): Row[] {
  const merged = new Map(p.workflow.nodes.map((n) => [n.id, n]));
  const old = new Map((base?.nodes ?? []).map((n) => [n.id, n]));
  return [
    ...(p.diff.added_node_ids ?? []).map((id) => ({ id, status: 'added' as const, node: merged.get(id) })),
    ...(p.diff.modified_node_ids ?? []).map((id) => ({ id, status: 'modified' as const, node: merged.get(id) })),
    ...(p.diff.removed_node_ids ?? []).map((id) => ({ id, status: 'removed' as const, node: old.get(id) })),
  ];
}

const ICON = { added: Plus, removed: Minus, modified: PencilLine };

/** A value as the CLI shows it: a one-line string quoted (so 5 and "5"
 * differ), anything else as it is; long values scroll, never cut. */
function Val({ v, side }: { v: ChangeValue | null; side: 'old' | 'new' }) {
  if (!v) {
    return (
      <span className={`review-value ${side} unset`} data-testid={`review-${side}`}>
        (not set)
      </span>
    );
  }
  const quoted = !v.json && !v.text.includes('\n');
  return (
    <pre className={`review-value ${side}${v.json ? ' json' : ''}`} data-testid={`review-${side}`}>
      {quoted ? `"${v.text}"` : v.text}
    </pre>
  );
}

function Field({ f }: { f: FieldChange }) {
  const escaped = !!(f.old?.escaped || f.new?.escaped);
  return (
    <li className="review-field" data-testid="review-field" data-field={f.field}>
      <code className="review-field-name">{f.field}</code>
      {escaped && (
        <span className="review-field-note" data-testid="review-escaped" title="The value holds characters that would not show">
          <TriangleAlert size={11} /> invisible characters are shown as \u escapes
        </span>
      )}
      <div className="review-field-values">
        {f.old && f.new ? (
          <>
            <Val v={f.old} side="old" />
            <span className="review-arrow" aria-label="becomes">
              →
            </span>
            <Val v={f.new} side="new" />
          </>
        ) : f.new ? (
          <Val v={f.new} side="new" />
        ) : (
          <Val v={f.old} side="old" />
        )}
      </div>
    </li>
  );
}

function edgeText(e: EdgeChange): string {
  const out = e.output ? ` [${e.output.type}${e.output.name ? `: ${e.output.name}` : ''}]` : '';
  return `${e.from_label} → ${e.to_label}${out}`;
}

/** Node names only, for a proposal without a description (an older backend). */
function NameRows({ list }: { list: Row[] }) {
  const selectNodes = useStore((s) => s.selectNodes);
  return (
    <>
      {list.map((r) => {
        const I = ICON[r.status];
        return (
          <li key={`${r.status}-${r.id}`}>
            <button
              type="button"
              className={`review-change ${r.status}`}
              data-testid={`review-${r.status}`}
              title="Show on canvas"
              onClick={() => selectNodes([r.id], { focus: true })}
            >
              <I size={13} className="review-change-icon" />
              <span className="review-change-name">{label(r.node, r.id)}</span>
              {r.node && <span className="review-change-type">{typeMeta(r.node.type).label}</span>}
            </button>
          </li>
        );
      })}
    </>
  );
}

/** The node rows with their fields, and each edge, from the backend's ChangeSet. */
function ChangeRows({ changes }: { changes: NonNullable<Proposal['changes']> }) {
  const selectNodes = useStore((s) => s.selectNodes);
  const node = (status: Row['status'], n: NodeChange) => {
    const I = ICON[status];
    return (
      <li key={`${status}-${n.id}`} className="review-node" data-testid={`review-node-${status}`}>
        <button
          type="button"
          className={`review-change ${status}`}
          data-testid={`review-${status}`}
          title="Show on canvas"
          onClick={() => selectNodes([n.id], { focus: true })}
        >
          <I size={13} className="review-change-icon" />
          <span className="review-change-name">{n.name || n.key || n.id}</span>
          <span className="review-change-type">{typeMeta(n.type).label}</span>
        </button>
        {n.fields?.length ? (
          <ul className="review-fields">
            {n.fields.map((f) => (
              <Field key={f.field} f={f} />
            ))}
          </ul>
        ) : null}
      </li>
    );
  };
  return (
    <>
      {changes.added_nodes?.map((n) => node('added', n))}
      {changes.updated_nodes?.map((n) => node('modified', n))}
      {changes.removed_nodes?.map((n) => node('removed', n))}
      {changes.added_edges?.map((e, i) => (
        <li key={`edge+${i}`} className="review-edge added" data-testid="review-edge-added">
          <Plus size={12} /> {edgeText(e)}
        </li>
      ))}
      {changes.removed_edges?.map((e, i) => (
        <li key={`edge-${i}`} className="review-edge removed" data-testid="review-edge-removed">
          <Minus size={12} /> {edgeText(e)}
        </li>
      ))}
    </>
  );
}

/** The workflow's test cases played against the change by the backend
 * (mocked, nothing acting): its line, then each case that differs or
 * errors and how. Shown, never decided here. */
export function TestsLine({ tests }: { tests: ProposalTests }) {
  const cases = tests.cases ?? [];
  const state = tests.error ? 'unplayed' : cases.some((c) => c.errored) ? 'errored' : cases.length ? 'differs' : 'passes';
  const head = (
    <>
      {state === 'passes' ? <Check size={13} className="sev ok" /> : <TriangleAlert size={13} className="sev warning" />}{' '}
      <span data-testid="review-tests-line">{tests.line}</span>
    </>
  );
  if (!cases.length) {
    return (
      <p className={`review-tests ${state}`} data-testid="review-tests" data-state={state}>
        {head}
      </p>
    );
  }
  return (
    <details className={`review-tests ${state}`} data-testid="review-tests" data-state={state} open>
      <summary>{head}</summary>
      <ul>
        {cases.map((c) => (
          <li key={c.name} data-testid="review-test-case" data-errored={String(c.errored)}>
            <span className="review-test-name">{c.name}</span> {c.errored ? 'errors' : 'differs'}
            <ul>
              {(c.differences ?? []).map((d, i) => (
                <li key={i}>{d}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </details>
  );
}

export function ReviewBanner({ actions }: { actions: AssistantActions }) {
  const proposal = useStore((s) => s.proposal);
  const doc = useStore((s) => s.doc);
  const confirming = useStore((s) => s.confirmingApplyAnyway);
  const setConfirming = useStore((s) => s.setConfirmingApplyAnyway);
  const list = useMemo(() => (proposal ? rows(proposal, doc) : []), [proposal, doc]);
  if (!proposal) return null;

  const p = proposal;
  const edgesAdded = p.diff.added_edges?.length ?? 0;
  const edgesRemoved = p.diff.removed_edges?.length ?? 0;
  const title = p.kind === 'plan' ? 'Proposed plan' : 'Proposed change';
  const validity = !p.valid ? 'invalid' : p.validated ? 'valid' : 'unchecked';
  const leftOut = p.leftOut ?? [];
  const asks = !p.valid || leftOut.length > 0;

  return (
    <section className={`review ${validity}`} aria-label={title} data-testid="review-banner" data-valid={String(p.valid)}>
      <header className="review-head">
        <GitPullRequestArrow size={15} className="review-icon" />
        <span className="review-title">{title}</span>
        <span className={`review-badge ${validity}`} data-testid="review-validity">
          {validity === 'invalid' ? (
            <>
              <CircleAlert size={12} /> invalid
            </>
          ) : validity === 'valid' ? (
            <>
              <Check size={12} /> valid
            </>
          ) : (
            'not validated'
          )}
        </span>
        {p.attempts > 1 && <span className="review-attempts">{p.attempts} attempts</span>}
      </header>

      <ul className="review-changes" data-testid="review-changes">
        {p.changes ? <ChangeRows changes={p.changes} /> : <NameRows list={list} />}
        {!p.changes && (edgesAdded > 0 || edgesRemoved > 0) && (
          <li className="review-edges">
            {edgesAdded > 0 && <span className="added">+{edgesAdded} connection{edgesAdded === 1 ? '' : 's'}</span>}
            {edgesRemoved > 0 && <span className="removed">−{edgesRemoved} connection{edgesRemoved === 1 ? '' : 's'}</span>}
          </li>
        )}
      </ul>

      {p.tests && <TestsLine tests={p.tests} />}

      {p.problems.length > 0 && (
        <ul className="review-problems" data-testid="review-problems">
          {p.problems.map((x, i) => (
            <li key={`${x.code}-${i}`}>
              <CircleAlert size={13} className="sev error" />
              <span>
                {x.message} <code>{x.code}</code>
              </span>
            </li>
          ))}
        </ul>
      )}

      {leftOut.length > 0 && (
        <div className="review-problems" data-testid="review-left-out">
          <p>
            <TriangleAlert size={13} className="sev warning" /> The model&apos;s reply held{' '}
            {leftOut.length === 1 ? 'a step' : `${leftOut.length} steps`} this change leaves out:
          </p>
          <ul>
            {leftOut.map((s, i) => (
              <li key={i}>
                <code>{s}</code>
              </li>
            ))}
          </ul>
        </div>
      )}

      {p.warnings.length > 0 && (
        <details className="review-warnings" data-testid="review-warnings">
          <summary>
            <TriangleAlert size={13} className="sev warning" /> {p.warnings.length} note{p.warnings.length === 1 ? '' : 's'} from
            reading the reply
          </summary>
          <ul>
            {p.warnings.map((w, i) => (
              <li key={i}>
                <code>{w.stage}</code> {w.message}
              </li>
            ))}
          </ul>
        </details>
      )}

      {confirming ? (
        <div
          className="review-confirm"
          role="alertdialog"
          aria-label={p.valid ? 'Apply a change that leaves steps out' : 'Apply an invalid change'}
          data-testid="apply-anyway-confirm"
        >
          {!p.valid && (
            <p>
              This change leaves the workflow invalid
              {p.problems.length ? ` (${p.problems.length} error${p.problems.length === 1 ? '' : 's'})` : ''}. You can fix
              it on the canvas after applying, or undo it.
            </p>
          )}
          {leftOut.length > 0 && (
            <p data-testid="apply-anyway-left-out">
              {leftOut.length === 1 ? 'One step' : `${leftOut.length} steps`} of the model&apos;s reply will not be in the
              workflow. Apply without {leftOut.length === 1 ? 'it' : 'them'}, or discard and ask again.
            </p>
          )}
          <div className="review-actions">
            <button type="button" className="btn danger" onClick={() => void actions.apply({ anyway: true })}>
              Apply anyway
            </button>
            <button type="button" className="btn" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div className="review-actions">
          {!asks ? (
            <button type="button" className="btn primary" onClick={() => void actions.apply()} data-testid="apply-change">
              <Check size={14} /> Apply
            </button>
          ) : (
            <button type="button" className="btn warn" onClick={() => void actions.apply()} data-testid="apply-change">
              <TriangleAlert size={14} /> Apply anyway…
            </button>
          )}
          <button type="button" className="btn" onClick={() => actions.discard()} data-testid="discard-change">
            <X size={14} /> Discard
          </button>
        </div>
      )}
    </section>
  );
}
