// A workflow trigger on the canvas (graph/triggers.ts): what starts it
// under weft serve, drawn before its entry step. Shown, never edited here.
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { FolderInput, Webhook, Zap } from 'lucide-react';
import { memo, useState } from 'react';
import { createPortal } from 'react-dom';
import type { TriggerFlowNode } from '../graph/triggers';
import { useStore } from '../store';
import { ServeDialog } from './ServeDialog';

function TriggerNodeImpl({ id, data }: NodeProps<TriggerFlowNode>) {
  const Icon = data.kind === 'webhook' ? Webhook : data.kind === 'file' ? FolderInput : Zap;
  const path = useStore((s) => s.path);
  const dirty = useStore((s) => s.dirty);
  const [serving, setServing] = useState(false);
  return (
    <div className="trigger-node" data-testid="trigger-node" data-kind={data.kind} title="Started by weft serve (the workflow file's triggers)">
      <Icon size={14} aria-hidden="true" />
      <div className="trigger-text">
        <strong>{data.label}</strong>
        <code>{data.detail}</code>
      </div>
      <button
        type="button"
        className="btn trigger-serve nodrag nopan"
        disabled={!path || dirty}
        title={!path || dirty ? 'Save the workflow first: weft serve runs the file as saved' : 'Keep weft serve running for this folder (a systemd user service)'}
        onClick={() => setServing(true)}
        data-testid="trigger-serve"
      >
        Serve…
      </button>
      {serving && createPortal(<ServeDialog path={path} onClose={() => setServing(false)} />, document.body)}
      <Handle
        type="source"
        id="out"
        position={data.direction === 'TB' ? Position.Bottom : Position.Right}
        className="handle"
        isConnectable={false}
        data-testid={`handle-${id}-out`}
      />
    </div>
  );
}

export const TriggerNode = memo(TriggerNodeImpl);
