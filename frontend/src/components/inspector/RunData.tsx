// The selected node's data from the last run (n8n's INPUT | OUTPUT
// panes): per attempt and loop iteration, what reached the step (the
// arguments it ran with, templates filled in, and the outputs of the steps
// it reads, as they were then) beside what it produced or the failure
// record, each with a copy button. Each output field can be dragged into a
// form field, or its reference copied, to read it there.
import { Copy, GripVertical } from 'lucide-react';
import { useState } from 'react';
import { useStore } from '../../store';
import type { NodeAttempt } from '../../store/nodeData';
import { isStale } from '../../store/runSlice';
import { REF_MIME } from './references';

function title(r: NodeAttempt): string {
  const parts: string[] = [];
  if (r.iteration !== undefined) parts.push(`Iteration ${r.iteration}`);
  if (r.attempt > 0) parts.push(`attempt ${r.attempt}`);
  parts.push(r.status === 'ok' ? 'ok' : r.status);
  const s = parts.join(' · ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** CopyButton copies text and says so. */
function CopyButton({ text, label, title, size = 12 }: { text: string; label: string; title: string; size?: number }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="icon"
      aria-label={label}
      title={title}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      <Copy size={size} /> {copied ? 'copied' : ''}
    </button>
  );
}

function Block({ label, value, testId }: { label: string; value: unknown; testId: string }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <div className="run-data-block" data-testid={testId}>
      <div className="run-data-label">
        <span>{label}</span>
        <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} title={`Copy ${label.toLowerCase()} as JSON`} />
      </div>
      <pre className="run-data-json">{text}</pre>
    </div>
  );
}

/** FieldRef is one output field as a reference: dragged into a field it
 * drops in as one (references.tsx), and its button copies {{key.field}}. */
function FieldRef({ name }: { name: string }) {
  const template = `{{${name}}}`;
  return (
    <li
      className="run-data-field"
      draggable
      data-testid="run-data-field"
      title={`Drag into a field to read ${name} there`}
      onDragStart={(e) => {
        e.dataTransfer.setData(REF_MIME, name);
        e.dataTransfer.setData('text/plain', template);
        e.dataTransfer.effectAllowed = 'copy';
      }}
    >
      <GripVertical size={11} aria-hidden="true" />
      <code>{name}</code>
      <CopyButton text={template} label={`Copy reference ${template}`} title={`Copy ${template}`} size={11} />
    </li>
  );
}

/** FieldRefs lists the fields of a step's outputs (read as key.field). */
function FieldRefs({ refKey, value }: { refKey: string | undefined; value: unknown }) {
  if (!refKey || !value || typeof value !== 'object' || Array.isArray(value)) return null;
  const fields = Object.keys(value).filter((f) => f !== truncatedField && /^[A-Za-z_]\w*$/.test(f));
  if (!fields.length) return null;
  return (
    <ul className="run-data-fields" aria-label={`Fields of ${refKey}: drag one into a field, or copy its reference`}>
      {fields.map((f) => (
        <FieldRef key={f} name={`${refKey}.${f}`} />
      ))}
    </ul>
  );
}

// The outputs Go marked as cut at a cap (backend/expression's
// TruncatedField): field → why. A step that reads one fails; the data
// below is what was received.
const truncatedField = 'weft.truncated';

function cutFields(outputs: unknown): [string, string][] {
  if (!outputs || typeof outputs !== 'object') return [];
  const marks = (outputs as Record<string, unknown>)[truncatedField];
  if (!marks || typeof marks !== 'object') return [];
  return Object.entries(marks as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
}

function CutNotice({ outputs }: { outputs: unknown }) {
  const cut = cutFields(outputs);
  if (!cut.length) return null;
  return (
    <div className="run-data-cut" data-testid="run-data-cut">
      {cut.map(([field, why]) => (
        <p key={field}>
          <code>{field}</code> was cut at a size limit: only its first part is below, and a step that reads it fails. <span className="muted">{why}</span>
        </p>
      ))}
    </div>
  );
}

export function RunData({ nodeId }: { nodeId: string }) {
  const records = useStore((s) => s.nodeData.records[nodeId]);
  const dropped = useStore((s) => s.nodeData.dropped[nodeId] ?? 0);
  const stale = useStore((s) => {
    const n = s.doc?.nodes.find((x) => x.id === nodeId);
    return !!n && isStale(s, n);
  });
  const nodeKey = useStore((s) => s.doc?.nodes.find((x) => x.id === nodeId)?.key);
  const [open, setOpen] = useState<number | null>(null);
  if (!records?.length) {
    return (
      <details className="run-data" data-testid="run-data">
        <summary>Run data</summary>
        <p className="muted">Not run yet in this session. Run the workflow to see what this step ran with and produced.</p>
      </details>
    );
  }
  // Newest first; the newest is open unless the person picked another.
  const list = [...records].reverse();
  const shown = open ?? list[0].seq;
  return (
    <details className="run-data" open data-testid="run-data">
      <summary>
        Run data <span className="muted">({records.length + dropped} record{records.length + dropped === 1 ? '' : 's'})</span>
      </summary>
      {stale && (
        <p className="run-data-stale" data-testid="run-data-stale">
          This step changed since the run: the data below is from the step as it was then.
        </p>
      )}
      {dropped > 0 && <p className="muted">The oldest {dropped} are in the run's log only.</p>}
      <ul className="run-data-list">
        {list.map((r) => (
          <li key={r.seq} className={`run-data-item status-${r.status}`} data-testid="run-data-item" data-status={r.status}>
            <button type="button" className="run-data-head" aria-expanded={shown === r.seq} onClick={() => setOpen(shown === r.seq ? -1 : r.seq)}>
              {title(r)}
            </button>
            {shown === r.seq && (
              <div className="run-data-body run-data-io">
                <section className="run-data-side" aria-label="Input" data-testid="run-data-input">
                  <h4>Input</h4>
                  {r.arguments && <Block label="Arguments" value={r.arguments} testId="run-data-arguments" />}
                  {Object.entries(r.read ?? {}).map(([key, v]) => (
                    <div key={key}>
                      <Block label={`Read from ${key}`} value={v} testId="run-data-read" />
                      <FieldRefs refKey={key} value={v} />
                    </div>
                  ))}
                  {!r.arguments && !r.read && <p className="muted">Nothing recorded: the step reads no other step’s outputs.</p>}
                </section>
                <section className="run-data-side" aria-label="Output" data-testid="run-data-output">
                  <h4>Output</h4>
                  {r.outputs && <CutNotice outputs={r.outputs} />}
                  {r.outputs && <Block label="Outputs" value={r.outputs} testId="run-data-outputs" />}
                  {r.outputs && <FieldRefs refKey={nodeKey} value={r.outputs} />}
                  {r.failure && <Block label="Failure" value={r.failure} testId="run-data-failure" />}
                  {r.message && <p className="muted">{r.message}</p>}
                  {!r.outputs && !r.failure && !r.message && <p className="muted">{r.status === 'running' ? 'Running…' : 'No outputs.'}</p>}
                </section>
              </div>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
