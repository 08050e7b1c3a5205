// A step's pinned data (n8n's pinned data): outputs that runs in the
// editor use instead of running the step, pinned from the last run or typed
// as JSON. Whether a pin fits the step's outputs is Go's to say (the
// pinned_* problems shown with the node's other problems); here a pin must
// parse as a JSON object.
import { Pin, PinOff } from 'lucide-react';
import { useState } from 'react';
import { hasPin, setPinned } from '../../graph/edit';
import { useStore } from '../../store';
import type { WorkflowNode } from '../../types';
import { runActions as defaultRunActions } from '../run/actions';
import type { RunActions } from '../run/runActions';

/** parsePin reads typed pinned data: a JSON object, or why it is not one. */
export function parsePin(text: string): { value?: Record<string, unknown>; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `Not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    return { error: 'Pinned data must be a JSON object of the step’s outputs, like {"stdout": "…"}.' };
  }
  return { value: v as Record<string, unknown> };
}

export function PinnedData({ node, run = defaultRunActions }: { node: WorkflowNode; run?: Pick<RunActions, 'pinFromRun' | 'unpin'> }) {
  const doc = useStore((s) => s.doc);
  const edit = useStore((s) => s.edit);
  const tools = useStore((s) => s.tools);
  // What Go's validation says of this pin (pinned_fields, pinned_invalid).
  const pinProblems = useStore((s) => s.problemsByNode[node.id])?.filter((p) => p.code.startsWith('pinned_')) ?? [];
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pinned = hasPin(doc, node.id);
  const value = doc?.pinned?.[node.id];

  // Editing starts from the pin, or from the tool's outputs to fill in.
  const startTyping = () => {
    const skeleton: Record<string, unknown> = {};
    if (!pinned && node.type === 'Tool') {
      for (const o of tools.find((t) => t.name === node.params.tool)?.outputs ?? []) skeleton[o.name] = '';
    }
    setDraft(JSON.stringify(pinned ? value : skeleton, null, 2));
    setError(null);
  };
  const save = () => {
    if (draft === null) return;
    const r = parsePin(draft);
    if (!r.value) {
      setError(r.error ?? 'Not a JSON object.');
      return;
    }
    edit((w) => setPinned(w, [node.id], r.value), { label: `Pin data to ${node.name || node.key}` });
    setDraft(null);
    setError(null);
  };

  return (
    <details className={`pinned-data${pinned ? ' is-pinned' : ''}`} open={pinned || draft !== null || undefined} data-testid="pinned-data">
      <summary>{pinned ? 'Pinned data' : 'Pin data'}</summary>
      {pinned && pinProblems.length > 0 && (
        <ul className="inspector-problems" data-testid="pinned-problems">
          {pinProblems.map((p, i) => (
            <li key={i} className={p.severity}>
              {p.message}
            </li>
          ))}
        </ul>
      )}
      {pinned && draft === null && (
        <>
          <p className="muted">Runs in the editor use this instead of running the step; `weft run` uses it only with --pinned.</p>
          <pre className="run-data-json" data-testid="pinned-json">
            {JSON.stringify(value, null, 2)}
          </pre>
        </>
      )}
      {draft !== null && (
        <div className="pinned-edit">
          <label htmlFor={`pin-${node.id}`}>Outputs, as a JSON object</label>
          <textarea
            id={`pin-${node.id}`}
            data-testid="pinned-editor"
            rows={8}
            spellCheck={false}
            value={draft}
            aria-invalid={!!error || undefined}
            onChange={(e) => {
              setDraft(e.target.value);
              setError(null);
            }}
          />
          {error && (
            <p className="field-error" role="alert" data-testid="pinned-error">
              {error}
            </p>
          )}
        </div>
      )}
      <div className="pinned-actions">
        {draft !== null ? (
          <>
            <button type="button" className="primary" data-testid="pinned-save" onClick={save}>
              <Pin size={12} /> Pin
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button type="button" data-testid="pinned-from-run" onClick={() => void run.pinFromRun(node.id)}>
              <Pin size={12} /> {pinned ? 'Pin the last run’s output instead' : 'Pin the last run’s output'}
            </button>
            <button type="button" data-testid="pinned-type" onClick={startTyping}>
              {pinned ? 'Edit' : 'Type data…'}
            </button>
            {pinned && (
              <button type="button" className="danger" data-testid="pinned-unpin" onClick={() => run.unpin(node.id)}>
                <PinOff size={12} /> Unpin
              </button>
            )}
          </>
        )}
      </div>
    </details>
  );
}
