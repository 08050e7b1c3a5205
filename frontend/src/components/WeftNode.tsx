// The canvas node: one component for every node type, styled by type family.
import { Handle, Position, useStore as useFlowStore, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { typeMeta } from '../graph/nodeMeta';
import type { WeftFlowNode } from '../graph/toFlow';
import { LOW_DETAIL_ZOOM, nodeHeight, outputPlacement } from '../graph/toFlow';
import { useStore } from '../store';
import { isStale } from '../store/runSlice';
import { hasPin } from '../graph/edit';
import { isEnabled, type Problem } from '../types';
import { NodeIcon } from './NodeIcon';
import { RunChip, runClass } from './run/RunChip'; // run panel: live status

const NO_PROBLEMS: Problem[] = [];

export function ProblemBadge({ problems }: { problems: Problem[] }) {
  if (!problems.length) return null;
  const errors = problems.filter((p) => p.severity === 'error').length;
  const severity = errors ? 'error' : problems.some((p) => p.severity === 'warning') ? 'warning' : 'info';
  const title = problems.map((p) => `${p.severity}: ${p.message}`).join('\n');
  return (
    <span className={`problem-badge ${severity}`} title={title} data-testid="problem-badge" data-severity={severity}>
      {errors || problems.length}
    </span>
  );
}

function WeftNodeImpl({ id, data, selected }: NodeProps<WeftFlowNode>) {
  const { node, outputs, summary, backTarget, direction } = data;
  const tb = direction === 'TB';
  // LR: in on the left, outputs on the right, loop-back handles below.
  // TB: in on top, outputs below, loop-back handles on the right.
  const inPos = tb ? Position.Top : Position.Left;
  const outPos = tb ? Position.Bottom : Position.Right;
  const backPos = tb ? Position.Right : Position.Bottom;
  const problems = useStore((s) => s.problemsByNode[id]) ?? NO_PROBLEMS;
  const low = useFlowStore((s) => s.transform[2] < LOW_DETAIL_ZOOM);
  // The assistant's preview marks nodes added, removed or modified.
  const preview = useStore((s) => (s as { previewStatus?: Record<string, string> | null }).previewStatus?.[id]);
  // Run panel: the node's status in the run (store/runSlice.ts), hidden under a preview.
  const run = useStore((s) => s.nodeRun[id]);
  // Changed since that run: its status and run data describe the step as it was.
  const stale = useStore((s) => isStale(s, node));
  // Pinned data: editor runs use it instead of running the step.
  const pinned = useStore((s) => hasPin(s.doc, id));
  const meta = typeMeta(node.type);
  const enabled = isEnabled(node);
  const placed = outputPlacement(outputs);
  const multi = placed.length > 1;
  const classes = ['weft-node', `family-${meta.family}`, `type-${node.type}`, `dir-${direction}`];
  if (!enabled) classes.push('disabled');
  if (pinned) classes.push('pinned');
  if (selected) classes.push('selected');
  if (preview) classes.push(`preview-${preview}`);
  if (problems.some((p) => p.severity === 'error')) classes.push('has-error');
  else if (problems.some((p) => p.severity === 'warning')) classes.push('has-warning');
  if (run && !preview) classes.push(runClass(run)); // run panel

  return (
    <div
      className={classes.join(' ')}
      style={{ minHeight: nodeHeight(outputs.length) }}
      data-testid={`node-${node.id}`}
      data-node-type={node.type}
    >
      {!preview && <RunChip state={run} stale={stale} />}
      <Handle type="target" position={inPos} id="in" className="handle handle-in" data-testid={`handle-${node.id}-in`} />
      {backTarget && (
        <Handle
          type="target"
          position={backPos}
          id="back"
          className="handle handle-back"
          data-testid={`handle-${node.id}-back-in`}
        />
      )}
      {low ? (
        // Zoomed far out: icon and name only, quick to draw.
        <div className="weft-node-body lod">
          <div className="weft-node-head">
            <span className="weft-node-icon">
              <NodeIcon type={node.type} size={22} />
            </span>
            <span className="weft-node-name">{node.name || node.key || node.id}</span>
            <ProblemBadge problems={problems} />
          </div>
        </div>
      ) : (
        <div className={`weft-node-body${multi ? ' with-outputs' : ''}`}>
          <div className="weft-node-head">
            <span className="weft-node-icon">
              <NodeIcon type={node.type} />
            </span>
            <span className="weft-node-name" title={node.name}>
              {node.name || node.key || node.id}
            </span>
            <ProblemBadge problems={problems} />
          </div>
          <div className="weft-node-meta">
            <code className="weft-node-key">{node.key}</code>
            <span className="weft-node-type">{meta.label}</span>
            {!enabled && <span className="weft-node-off">disabled</span>}
            {pinned && (
              <span className="weft-node-pin" data-testid={`pin-${node.id}`} title="Pinned data: runs in the editor use it instead of running this step">
                pinned
              </span>
            )}
          </div>
          <div className="weft-node-summary" title={summary}>
            {summary}
          </div>
        </div>
      )}
      {placed.map(({ o, at: f }) => {
        const at = `${f * 100}%`;
        const place = tb ? { left: at } : { top: at };
        return (
          <div key={o.id}>
            <Handle
              type="source"
              position={outPos}
              id={o.id}
              className={`handle handle-out out-${o.kind}`}
              style={place}
              data-testid={`handle-${node.id}-${o.id}`}
            />
            {multi && !low && (
              <span className={`handle-label out-${o.kind}`} style={place}>
                {o.label}
              </span>
            )}
          </div>
        );
      })}
      {outputs.some((o) => o.id === 'back') && (
        <Handle
          type="source"
          position={backPos}
          id="back"
          className="handle handle-back"
          data-testid={`handle-${node.id}-back`}
        />
      )}
    </div>
  );
}

export const WeftNode = memo(WeftNodeImpl);
export const nodeTypes = { weft: WeftNode };
