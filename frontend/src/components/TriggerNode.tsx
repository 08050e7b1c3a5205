// A workflow trigger on the canvas (graph/triggers.ts): what starts it
// under weft serve, drawn before its entry step. Shown, never edited here.
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { FolderInput, Webhook, Zap } from 'lucide-react';
import { memo } from 'react';
import type { TriggerFlowNode } from '../graph/triggers';

function TriggerNodeImpl({ id, data }: NodeProps<TriggerFlowNode>) {
  const Icon = data.kind === 'webhook' ? Webhook : data.kind === 'file' ? FolderInput : Zap;
  return (
    <div className="trigger-node" data-testid="trigger-node" data-kind={data.kind} title="Started by weft serve (the workflow file's triggers)">
      <Icon size={14} aria-hidden="true" />
      <div className="trigger-text">
        <strong>{data.label}</strong>
        <code>{data.detail}</code>
      </div>
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
