// The workflow canvas: React Flow over the store's nodes and edges, or over
// the assistant's preview of a proposed change while one is under review.
// Connections are checked as they are drawn (graph/connect.ts) and a refused
// one says why; palette entries can be dropped onto it.
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection,
  type Edge,
  type FinalConnectionState,
  type Node,
} from '@xyflow/react';
import { MousePointerClick } from 'lucide-react';
import { useCallback, useEffect, useRef, type DragEvent } from 'react';
import { checkConnection } from '../graph/connect';
import type { NodeSpec } from '../graph/edit';
import { typeMeta } from '../graph/nodeMeta';
import { NODE_WIDTH, type WeftFlowEdge, type WeftFlowNode } from '../graph/toFlow';
import { useStore, type StoreState } from '../store';
import { canvasBridge, PALETTE_MIME } from './canvasBridge';
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

// The assistant's preview of a proposed change (store/assistantSlice.ts),
// read loosely so the canvas works with or without that slice.
type PreviewState = {
  previewNodes?: WeftFlowNode[] | null;
  previewEdges?: WeftFlowEdge[] | null;
  onPreviewNodesChange?: StoreState['onNodesChange'];
};
const pv = (s: StoreState) => s as StoreState & PreviewState;

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

/** toConnection turns a finished drag into source → target, whichever end it started from. */
function toConnection(st: FinalConnectionState): Connection | null {
  if (!st.fromHandle || !st.toHandle) return null;
  const [a, b] = st.fromHandle.type === 'source' ? [st.fromHandle, st.toHandle] : [st.toHandle, st.fromHandle];
  return { source: a.nodeId, sourceHandle: a.id ?? null, target: b.nodeId, targetHandle: b.id ?? null };
}

function CanvasInner() {
  const previewing = useStore((s) => !!pv(s).previewNodes);
  const nodes = useStore((s) => pv(s).previewNodes ?? s.nodes);
  const edges = useStore((s) => pv(s).previewEdges ?? s.edges);
  const onNodesChange = useStore((s) => (pv(s).previewNodes && pv(s).onPreviewNodesChange) || s.onNodesChange);
  const onEdgesChange = useStore((s) => s.onEdgesChange);
  const hasDoc = useStore((s) => s.doc !== null);
  const empty = useStore((s) => s.doc !== null && s.doc.nodes.length === 0);
  const rf = useReactFlow();
  const wrapper = useRef<HTMLDivElement>(null);

  useEffect(() => {
    canvasBridge.center = () => {
      const r = wrapper.current?.getBoundingClientRect();
      if (!r) return null;
      return rf.screenToFlowPosition({ x: r.left + r.width / 2, y: r.top + r.height / 2 });
    };
    canvasBridge.fitView = () => void rf.fitView({ duration: 200, padding: 0.12, maxZoom: 1.1 });
    return () => {
      canvasBridge.center = () => null;
      canvasBridge.fitView = () => {};
    };
  }, [rf]);

  const isValidConnection = useCallback((c: Connection | Edge) => {
    const doc = useStore.getState().doc;
    return !!doc && checkConnection(doc, c).ok;
  }, []);

  const onConnect = useCallback((c: Connection) => {
    const r = useStore.getState().connect(c);
    if (!r.ok) useStore.getState().toast(r.reason);
  }, []);

  // isValidConnection only says no; the reason is shown when the drag ends.
  const onConnectEnd = useCallback((_: MouseEvent | TouchEvent, st: FinalConnectionState) => {
    if (st.isValid !== false) return;
    const c = toConnection(st);
    const doc = useStore.getState().doc;
    if (!c || !doc) return;
    const r = checkConnection(doc, c);
    if (!r.ok) useStore.getState().toast(r.reason);
  }, []);

  const onDragOver = useCallback((e: DragEvent) => {
    if (e.dataTransfer.types.includes(PALETTE_MIME)) {
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    }
  }, []);

  const onDrop = useCallback(
    (e: DragEvent) => {
      const raw = e.dataTransfer.getData(PALETTE_MIME);
      if (!raw) return;
      e.preventDefault();
      let spec: NodeSpec;
      try {
        spec = JSON.parse(raw) as NodeSpec;
      } catch {
        return;
      }
      const p = rf.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      useStore.getState().addNode(spec, { x: p.x - NODE_WIDTH / 2, y: p.y - 30 });
    },
    [rf],
  );

  const onNodeDoubleClick = useCallback(() => {
    useStore.getState().setSidebarTab('inspector');
    window.setTimeout(() => document.querySelector<HTMLInputElement>('[data-testid="inspector-name"]')?.focus(), 0);
  }, []);

  return (
    <div className="canvas" data-testid="canvas" ref={wrapper} onDragOver={onDragOver} onDrop={onDrop}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        isValidConnection={isValidConnection}
        onNodeDoubleClick={onNodeDoubleClick}
        nodesConnectable={!previewing}
        nodesDraggable={!previewing}
        deleteKeyCode={null}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={['Shift', 'Meta', 'Control']}
        snapToGrid
        snapGrid={[10, 10]}
        connectionRadius={28}
        onlyRenderVisibleElements
        fitView
        fitViewOptions={{ padding: 0.12, maxZoom: 1.1 }}
        minZoom={0.05}
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
      {empty && !previewing /* assistant: a plan's preview draws here */ && (
        <div className="canvas-empty" data-testid="canvas-empty-hint">
          <div className="canvas-hint">
            <MousePointerClick size={22} />
            <strong>An empty workflow</strong>
            <span>Click a node or tool in the palette, or drag it here. Connect nodes by dragging from an output handle to an input.</span>
          </div>
        </div>
      )}
      {previewing && (
        <div className="canvas-preview-flag" data-testid="canvas-preview-flag">
          Previewing the proposed change — read-only until you apply or discard it
        </div>
      )}
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
