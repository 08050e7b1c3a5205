// The workflow canvas: React Flow over the store's nodes and edges.
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Node,
} from '@xyflow/react';
import { useEffect } from 'react';
import { typeMeta } from '../graph/nodeMeta';
import type { WeftFlowNode } from '../graph/toFlow';
import { useStore } from '../store';
import { nodeTypes } from './WeftNode';

const FAMILY_COLOURS: Record<string, string> = {
  tool: '#4f8cff',
  ai: '#a77bff',
  branch: '#f0a34b',
  loop: '#2fbf9b',
  unknown: '#8a8f98',
};

function miniMapColour(n: Node): string {
  const data = (n as WeftFlowNode).data;
  return FAMILY_COLOURS[typeMeta(data?.node?.type ?? '').family];
}

function FocusFollower() {
  const focus = useStore((s) => s.focusRequest);
  const rf = useReactFlow();
  useEffect(() => {
    if (!focus) return;
    // Let React Flow measure freshly loaded nodes before fitting.
    const t = window.setTimeout(() => {
      if (focus.nodeIds.length) {
        void rf.fitView({ nodes: focus.nodeIds.map((id) => ({ id })), duration: 300, padding: 0.6, maxZoom: 1.25 });
      } else {
        void rf.fitView({ duration: 0, padding: 0.12, maxZoom: 1.1 });
      }
    }, 30);
    return () => window.clearTimeout(t);
  }, [focus, rf]);
  return null;
}

function CanvasInner() {
  const nodes = useStore((s) => s.nodes);
  const edges = useStore((s) => s.edges);
  const onNodesChange = useStore((s) => s.onNodesChange);
  const onEdgesChange = useStore((s) => s.onEdgesChange);
  const hasDoc = useStore((s) => s.doc !== null);

  return (
    <div className="canvas" data-testid="canvas">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        nodesConnectable={false}
        deleteKeyCode={null}
        onlyRenderVisibleElements
        fitView
        fitViewOptions={{ padding: 0.12, maxZoom: 1.1 }}
        minZoom={0.1}
        maxZoom={2}
        colorMode="dark"
        proOptions={{ hideAttribution: true }}
      >
        <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} />
        <MiniMap
          pannable
          zoomable
          nodeColor={miniMapColour}
          nodeStrokeWidth={0}
          nodeBorderRadius={6}
          maskColor="rgba(12,13,16,0.6)"
          style={{ width: 168, height: 108 }}
        />
        <Controls showInteractive={false} />
        <FocusFollower />
      </ReactFlow>
      {!hasDoc && <div className="canvas-empty">Loading workflow…</div>}
    </div>
  );
}

export function Canvas() {
  return (
    <ReactFlowProvider>
      <CanvasInner />
    </ReactFlowProvider>
  );
}
