// After a run, each edge says how often the run took it (Go's walk counts
// them: the run summary's edges, store.edgeRun) and, on hover, the last
// outputs of the node it leaves; an edge the run did not take is dimmed.
import type { NodeAttempt } from '../store/nodeData';
import type { WeftFlowEdge } from './toFlow';

/** How much of a node's outputs a hover shows. */
const TIP_CHARS = 800;

/** edgeTip is what hovering an edge's count says: how often it was taken
 * and the last outputs of the node it leaves (what the next step may read). */
export function edgeTip(taken: number, from: NodeAttempt[] | undefined, which = 'in the last run'): string {
  const times = taken === 0 ? `Not taken ${which}` : `Taken ${taken} ${taken === 1 ? 'time' : 'times'} ${which}`;
  const last = from ? [...from].reverse().find((r) => r.outputs) : undefined;
  if (!last?.outputs) return times;
  let json = JSON.stringify(last.outputs, null, 1);
  if (json.length > TIP_CHARS) json = `${json.slice(0, TIP_CHARS)}…`;
  const when = last.iteration !== undefined ? ` (iteration ${last.iteration})` : '';
  return `${times}\nLast outputs that crossed it${when}:\n${json}`;
}

/** withRunCounts draws the run's counts on the step edges (edges without
 * data, the triggers', are left as they are). It returns edges itself when
 * there is no run to show. */
export function withRunCounts(
  edges: WeftFlowEdge[],
  counts: Record<string, number> | null,
  records: Record<string, NodeAttempt[]> | null,
  /** which run the counts are of, for the hover and the label: "in the last run" */
  which = 'in the last run',
): WeftFlowEdge[] {
  if (!counts) return edges;
  return edges.map((e) => {
    if (!e.data) return e;
    const taken = counts[e.data.key] ?? 0;
    const base = typeof e.label === 'string' ? e.label : '';
    const text = taken ? `${base ? `${base} · ` : ''}${taken}×` : base;
    return {
      ...e,
      className: `${e.className ?? ''} ${taken ? 'edge-taken' : 'edge-untaken'}`.trim(),
      label: text ? (
        <>
          <title>{edgeTip(taken, records?.[e.source], which)}</title>
          {text}
        </>
      ) : undefined,
      ariaLabel: `Edge${base ? ` (${base})` : ''}: ${taken ? `taken ${taken}×` : 'not taken'} ${which}`,
    };
  });
}
