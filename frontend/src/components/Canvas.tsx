// The workflow canvas: React Flow over the store's nodes and edges, or over
// the assistant's preview of a proposed change while one is under review.
// Connections are checked as they are drawn (graph/connect.ts) and a refused
// one says why; palette entries can be dropped onto it.
import {
  Background,
  BackgroundVariant,
  ControlButton,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore as useFlowStore,
  type Connection,
  type Edge,
  type FinalConnectionState,
} from '@xyflow/react';
import { Maximize, MousePointerClick } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type MouseEvent as ReactMouseEvent } from 'react';
import { checkConnection } from '../graph/connect';
import { removeElements, type NodeSpec } from '../graph/edit';
import { LARGE_WORKFLOW } from '../graph/startView';
import { withRunCounts } from '../graph/runEdges';
import { LOW_DETAIL_ZOOM, NODE_WIDTH, type WeftFlowEdge, type WeftFlowNode } from '../graph/toFlow';
import { useStore } from '../store';
import { canvasBridge, fitViewport, MIN_ZOOM, PALETTE_MIME, startViewport } from './canvasBridge';
import { CanvasMiniMap } from './CanvasMiniMap';
import { OverviewLayer } from './OverviewLayer';
import { nodeTypes } from './WeftNode';
import { TriggerNode } from './TriggerNode';
import { isTriggerId, triggerFlow } from '../graph/triggers';
import { ContextMenu, type MenuTarget } from './ContextMenu';
import { FindBox } from './FindBox';
import { annotationOf, type AnnotationFlowNode } from '../graph/annotations';
import { annotationNodeTypes } from './AnnotationNodes';

/** Below this zoom a large workflow is drawn as an overview picture. */
export const OVERVIEW_ZOOM = 0.25;
const NO_NODES: WeftFlowNode[] = [];
const NO_EDGES: WeftFlowEdge[] = [];
const NO_ANNOTATIONS: AnnotationFlowNode[] = [];
/** The workflow's steps, its triggers before them (graph/triggers.ts), its
 * notes and groups behind them (graph/annotations.ts). */
const canvasNodeTypes = { ...nodeTypes, ...annotationNodeTypes, trigger: TriggerNode };

/** shownNodes are the nodes on the canvas: a change's preview while one is
 * under review, else the workflow's with its notes and groups. Fitting
 * goes by these. */
function shownNodes(): WeftFlowNode[] {
  const s = useStore.getState();
  if (s.previewNodes) return s.previewNodes;
  return s.annotations.length ? [...(s.annotations as unknown as WeftFlowNode[]), ...s.nodes] : s.nodes;
}

function FocusFollower() {
  const focus = useStore((s) => s.focusRequest);
  const previewing = useStore((s) => !!s.previewNodes);
  const rf = useReactFlow();
  useEffect(() => {
    if (!focus) return;
    const { doc, previewNodes } = useStore.getState();
    if (!focus.nodeIds.length && !previewNodes) {
      // An empty workflow opens at full size (the zoom of the one before
      // would stay, perhaps far out); what the palette adds is readable.
      if (doc && !doc.nodes.length) {
        void rf.setViewport({ x: 0, y: 0, zoom: 1 });
        return;
      }
      // A workflow too large to read when fitted opens on its start.
      const vp = doc ? startViewport(doc) : null;
      if (vp) {
        void rf.setViewport(vp);
        return;
      }
    }
    const fit = () => {
      const vp = focus.nodeIds.length
        ? fitViewport(shownNodes(), { ids: focus.nodeIds, padding: 0.6, maxZoom: 1.25 })
        : fitViewport(shownNodes());
      if (vp) void rf.setViewport(vp, { duration: focus.nodeIds.length ? 300 : 0 });
    };
    fit();
    // Once more after React Flow has measured freshly loaded nodes.
    const t = shownNodes().length ? window.setTimeout(fit, 40) : undefined;
    return () => window.clearTimeout(t);
  }, [focus, rf]);
  // A plan applied to an empty workflow is the whole workflow now: fit it
  // (its preview was fitted; the applied nodes may be measured otherwise).
  const emptyBefore = useRef(false);
  useEffect(() => {
    const doc = useStore.getState().doc;
    if (previewing) {
      emptyBefore.current = !doc?.nodes.length;
      return;
    }
    if (!emptyBefore.current || !doc?.nodes.length) return;
    emptyBefore.current = false;
    useStore.getState().requestFitAll();
  }, [previewing]);
  return null;
}

/** toConnection turns a finished drag into source → target, whichever end it started from. */
function toConnection(st: FinalConnectionState): Connection | null {
  if (!st.fromHandle || !st.toHandle) return null;
  const [a, b] = st.fromHandle.type === 'source' ? [st.fromHandle, st.toHandle] : [st.toHandle, st.fromHandle];
  return { source: a.nodeId, sourceHandle: a.id ?? null, target: b.nodeId, targetHandle: b.id ?? null };
}

function CanvasInner() {
  const previewing = useStore((s) => !!s.previewNodes);
  const nodes = useStore((s) => s.previewNodes ?? s.nodes);
  const edges = useStore((s) => s.previewEdges ?? s.edges);
  const onStepsChange = useStore((s) => (s.previewNodes && s.onPreviewNodesChange) || s.onNodesChange);
  const onStepEdgesChange = useStore((s) => s.onEdgesChange);
  // The triggers are drawn, not part of the document's nodes: nothing that
  // happens to them reaches the store.
  const triggers = useStore((s) => (s.previewNodes ? undefined : s.doc?.triggers));
  const trig = useMemo(() => triggerFlow(triggers ? useStore.getState().doc : null, nodes), [triggers, nodes, edges]); // eslint-disable-line react-hooks/exhaustive-deps
  // Notes and groups are not drawn over a preview (it is read-only).
  const annotations = useStore((s) => (s.previewNodes ? NO_ANNOTATIONS : s.annotations));
  const canvasNodes = useMemo(
    () => (trig.nodes.length || annotations.length ? ([...annotations, ...trig.nodes, ...nodes] as unknown as WeftFlowNode[]) : nodes),
    [trig, nodes, annotations],
  );
  // After a run: each edge's count and, on hover, what crossed it (not over
  // a preview); a past run opened from the history shows its own.
  const viewed = useStore((s) => s.viewedRun);
  const edgeRun = useStore((s) => (s.previewNodes ? null : s.viewedRun ? s.viewedRun.edges : s.edgeRun));
  const runRecords = useStore((s) => (s.viewedRun ? s.viewedRun.records : s.edgeRun ? s.nodeData.records : null));
  const stepEdges = useMemo(
    () => withRunCounts(edges, edgeRun, runRecords, viewed ? 'in this run' : 'in the last run'),
    [edges, edgeRun, runRecords, viewed],
  );
  const canvasEdges = useMemo(() => (trig.edges.length ? ([...trig.edges, ...stepEdges] as WeftFlowEdge[]) : stepEdges), [trig, stepEdges]);
  const onNodesChange = useCallback(
    (changes: Parameters<typeof onStepsChange>[0]) => {
      // A note's or group's change goes to them; a trigger's nowhere.
      const s = useStore.getState();
      const isAnnotation = (id: string) => !!annotationOf(id) && s.annotations.some((a) => a.id === id);
      const mine = changes.filter((c) => 'id' in c && isAnnotation(c.id));
      if (mine.length) s.onAnnotationsChange(mine as unknown as Parameters<typeof s.onAnnotationsChange>[0]);
      const steps = changes.filter((c) => !('id' in c && (isTriggerId(c.id) || isAnnotation(c.id))));
      if (steps.length) onStepsChange(steps);
    },
    [onStepsChange],
  );
  const onEdgesChange = useCallback(
    (changes: Parameters<typeof onStepEdgesChange>[0]) => onStepEdgesChange(changes.filter((c) => !('id' in c && isTriggerId(c.id)))),
    [onStepEdgesChange],
  );
  const hasDoc = useStore((s) => s.doc !== null);
  const empty = useStore((s) => s.doc !== null && s.doc.nodes.length === 0);
  const openExamples = useStore((s) => s.setExamplesOpen);
  const rf = useReactFlow();
  const wrapper = useRef<HTMLDivElement>(null);
  const lowDetail = useFlowStore((s) => s.transform[2] < LOW_DETAIL_ZOOM);
  // A large workflow zoomed far out is drawn as one picture (OverviewLayer).
  const large = useStore((s) => (s.doc?.nodes.length ?? 0) > LARGE_WORKFLOW);
  const farOut = useFlowStore((s) => s.transform[2] < OVERVIEW_ZOOM);
  const overview = large && farOut && !previewing;

  useEffect(() => {
    canvasBridge.center = () => {
      const r = wrapper.current?.getBoundingClientRect();
      if (!r) return null;
      return rf.screenToFlowPosition({ x: r.left + r.width / 2, y: r.top + r.height / 2 });
    };
    canvasBridge.fitView = (o) => {
      const vp = fitViewport(shownNodes());
      if (vp) void rf.setViewport(vp, { duration: o?.duration ?? 200 });
    };
    canvasBridge.size = () => {
      const el = wrapper.current;
      if (!el) return null;
      const r = el.getBoundingClientRect();
      // (offsetWidth for layout-less test DOMs)
      const width = r.width || el.offsetWidth;
      const height = r.height || el.offsetHeight;
      return width > 0 && height > 0 ? { width, height } : null;
    };
    canvasBridge.getViewport = () => rf.getViewport();
    canvasBridge.setViewport = (v) => void rf.setViewport(v);
    return () => {
      canvasBridge.center = () => null;
      canvasBridge.fitView = () => {};
      canvasBridge.size = () => null;
      canvasBridge.getViewport = () => null;
      canvasBridge.setViewport = () => {};
    };
  }, [rf]);

  // While an edge's end is dragged elsewhere, the edge itself is not in
  // the way: a move is checked as if it were gone.
  const reconnecting = useRef<string | null>(null);
  const isValidConnection = useCallback((c: Connection | Edge) => {
    const doc = useStore.getState().doc;
    if (!doc) return false;
    return checkConnection(reconnecting.current ? removeElements(doc, [], [reconnecting.current]) : doc, c).ok;
  }, []);
  const onReconnectStart = useCallback((_: unknown, ed: WeftFlowEdge) => {
    reconnecting.current = ed.data?.key ?? null;
  }, []);
  const onReconnectEnd = useCallback(() => {
    reconnecting.current = null;
  }, []);

  const onConnect = useCallback((c: Connection) => {
    const r = useStore.getState().connect(c);
    if (!r.ok) useStore.getState().toast(r.reason);
  }, []);

  // An edge's end dragged to another handle re-routes it (one undo step).
  const onReconnect = useCallback((old: WeftFlowEdge, c: Connection) => {
    if (!old.data) return;
    const r = useStore.getState().reconnect(old.data.key, c);
    if (!r.ok) useStore.getState().toast(r.reason);
  }, []);

  // isValidConnection only says no; the reason is shown when the drag ends.
  // A connection from an output dropped on empty canvas asks the palette
  // for the node to add there.
  const onConnectEnd = useCallback((e: MouseEvent | TouchEvent, st: FinalConnectionState) => {
    // React Flow calls this for an edge's end dragged elsewhere too: onto
    // nothing, the edge stays as it was; onto a handle it may not go to,
    // say why (checked as if the edge were gone).
    if (reconnecting.current) {
      const doc = useStore.getState().doc;
      const c = toConnection(st);
      if (st.isValid === false && c && doc) {
        const r = checkConnection(removeElements(doc, [], [reconnecting.current]), c);
        if (!r.ok) useStore.getState().toast(r.reason);
      }
      return;
    }
    if (!st.toHandle && st.fromHandle && st.fromNode) {
      // Dropped on empty canvas: the palette adds the node to connect,
      // after an output, or before an input (the drag started there).
      const pt = 'changedTouches' in e ? e.changedTouches[0] : e;
      const p = rf.screenToFlowPosition({ x: pt.clientX, y: pt.clientY });
      const s = useStore.getState();
      s.setPendingConnect(
        st.fromHandle.type === 'source'
          ? { source: st.fromNode.id, sourceHandle: st.fromHandle.id ?? null, position: { x: p.x, y: p.y - 46 } }
          : { target: st.fromNode.id, position: { x: p.x - NODE_WIDTH, y: p.y - 46 } },
      );
      if (!s.paletteOpen) s.setPaletteOpen(true);
      window.setTimeout(() => document.querySelector<HTMLInputElement>('[data-testid="palette-search"]')?.focus(), 0);
      return;
    }
    if (st.isValid !== false) return;
    if (st.fromHandle && st.toHandle && st.fromHandle.type === st.toHandle.type) {
      useStore
        .getState()
        .toast(
          st.fromHandle.type === 'target'
            ? 'Both ends are inputs: connect an output (the right side of a step) to an input (the left side).'
            : 'Both ends are outputs: connect an output (the right side of a step) to an input (the left side).',
        );
      return;
    }
    const c = toConnection(st);
    const doc = useStore.getState().doc;
    if (!c || !doc) return;
    const r = checkConnection(doc, c);
    if (!r.ok) useStore.getState().toast(r.reason);
  }, [rf]);

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

  // In the overview a click zooms in there, back to the editable canvas.
  const onPaneClick = useCallback(
    (e: ReactMouseEvent) => {
      const p = rf.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      const size = canvasBridge.size();
      if (!size) return;
      const zoom = 0.75;
      void rf.setViewport({ x: size.width / 2 - p.x * zoom, y: size.height / 2 - p.y * zoom, zoom }, { duration: 250 });
    },
    [rf],
  );

  const clearPending = useCallback(() => {
    if (useStore.getState().pendingConnect) useStore.getState().setPendingConnect(null);
  }, []);

  // Right-click menus on nodes, edges and empty canvas. Focus goes back
  // where it was when the menu closes (the canvas, or the node it was for).
  const [menu, setMenu] = useState<MenuTarget | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const closeMenu = useCallback(() => {
    setMenu(null);
    const back = opener.current;
    opener.current = null;
    window.setTimeout(() => {
      // Unless the pick moved focus on purpose (the palette's search).
      const now = document.activeElement;
      if (now && now !== document.body && !now.closest('[data-testid="context-menu"]')) return;
      (back?.isConnected ? back : wrapper.current)?.focus();
    }, 0);
  }, []);
  const showMenu = useCallback(
    (kind: MenuTarget['kind'], at: { x: number; y: number }, id?: string) => {
      const active = document.activeElement;
      opener.current = active instanceof HTMLElement && wrapper.current?.contains(active) ? active : wrapper.current;
      setMenu({ kind, id, screen: at, flow: rf.screenToFlowPosition(at) });
    },
    [rf],
  );
  const openMenu = useCallback(
    (e: ReactMouseEvent | MouseEvent, kind: MenuTarget['kind'], id?: string) => {
      e.preventDefault();
      showMenu(kind, { x: e.clientX, y: e.clientY }, id);
    },
    [showMenu],
  );
  // Shift+F10 or the context-menu key: the focused node's menu, else the
  // canvas's, at the middle of what it is for.
  const onMenuKey = useCallback(
    (e: React.KeyboardEvent) => {
      if (!(e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) || overview) return;
      const t = e.target as HTMLElement;
      if (t.closest('input, textarea, select, [contenteditable="true"], [data-testid="context-menu"]')) return;
      e.preventDefault();
      const nodeEl = t.closest<HTMLElement>('.react-flow__node');
      const id = nodeEl?.dataset.id;
      const r = (nodeEl ?? wrapper.current)?.getBoundingClientRect();
      if (!r) return;
      const at = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      if (id && annotationOf(id)) showMenu('annotation', at, id);
      else if (id && !isTriggerId(id)) {
        const s = useStore.getState();
        if (!s.previewNodes && !s.selectedNodeIds.includes(id)) s.selectNodes([id]);
        showMenu('node', at, id);
      } else showMenu('pane', at);
    },
    [showMenu, overview],
  );
  const onNodeContextMenu = useCallback(
    (e: ReactMouseEvent, n: WeftFlowNode) => {
      // The menu acts on what is selected: a right-clicked node outside
      // the selection becomes it (as in file managers and n8n).
      if (isTriggerId(n.id)) return;
      if (annotationOf(n.id)) {
        openMenu(e, 'annotation', n.id);
        return;
      }
      const s = useStore.getState();
      if (!s.previewNodes && !s.selectedNodeIds.includes(n.id)) s.selectNodes([n.id]);
      openMenu(e, 'node', n.id);
    },
    [openMenu],
  );
  const onEdgeContextMenu = useCallback((e: ReactMouseEvent, ed: WeftFlowEdge) => ed.data && openMenu(e, 'edge', ed.data.key), [openMenu]);
  const onPaneContextMenu = useCallback((e: ReactMouseEvent | MouseEvent) => openMenu(e, 'pane'), [openMenu]);

  const onNodeDoubleClick = useCallback((_: ReactMouseEvent, n: WeftFlowNode) => {
    if (isTriggerId(n.id) || annotationOf(n.id)) return;
    useStore.getState().setSidebarTab('inspector');
    window.setTimeout(() => document.querySelector<HTMLInputElement>('[data-testid="inspector-name"]')?.focus(), 0);
  }, []);

  return (
    <div
      className={`canvas${lowDetail ? ' lod-low' : ''}${overview ? ' overview' : ''}`}
      data-testid="canvas"
      ref={wrapper}
      onDragOver={onDragOver}
      onDrop={onDrop}
      onKeyDown={onMenuKey}
      // Focusable, so Shift+F10 reaches the canvas's menu and a closed menu gives focus back.
      tabIndex={0}
      role="region"
      aria-label="Workflow canvas"
    >
      <ReactFlow
        nodes={overview ? NO_NODES : canvasNodes}
        edges={overview ? NO_EDGES : canvasEdges}
        onPaneClick={overview ? onPaneClick : clearPending}
        nodeTypes={canvasNodeTypes}
        // Tab walks the steps; edges (drawn before the nodes) would come
        // first, one stop per edge. They stay selectable by click.
        edgesFocusable={false}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        onReconnect={onReconnect}
        onReconnectStart={onReconnectStart}
        onReconnectEnd={onReconnectEnd}
        isValidConnection={isValidConnection}
        onNodeDoubleClick={onNodeDoubleClick}
        onNodeContextMenu={overview ? undefined : onNodeContextMenu}
        onEdgeContextMenu={overview ? undefined : onEdgeContextMenu}
        onPaneContextMenu={overview ? undefined : onPaneContextMenu}
        nodesConnectable={!previewing}
        nodesDraggable={!previewing}
        deleteKeyCode={null}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={['Shift', 'Meta', 'Control']}
        snapToGrid
        snapGrid={[10, 10]}
        connectionRadius={28}
        onlyRenderVisibleElements={large}
        minZoom={MIN_ZOOM}
        maxZoom={2}
        colorMode="dark"
        proOptions={{ hideAttribution: true }}
      >
        <Background variant={BackgroundVariant.Dots} gap={20} size={1.2} />
        {overview && <OverviewLayer nodes={nodes} edges={edges} />}
        <CanvasMiniMap nodes={nodes} />
        <Controls showInteractive={false} showFitView={false}>
          {/* React Flow's own fit waits for every node to be measured, which
              the nodes outside the view of a large workflow never are. */}
          <ControlButton className="react-flow__controls-fitview" onClick={() => canvasBridge.fitView()} title="Fit view (F)" aria-label="Fit view">
            <Maximize />
          </ControlButton>
        </Controls>
        <FocusFollower />
      </ReactFlow>
      <FindBox />
      <ContextMenu target={menu} onClose={closeMenu} />
      {!hasDoc && <div className="canvas-empty">Loading workflow…</div>}
      {empty && !previewing /* assistant: a plan's preview draws here */ && (
        <div className="canvas-empty" data-testid="canvas-empty-hint">
          <div className="canvas-hint">
            <MousePointerClick size={22} />
            <strong>An empty workflow</strong>
            <span>Click a node or tool in the palette, or drag it here. Connect nodes by dragging from an output handle to an input.</span>
            <button type="button" className="btn" onClick={() => openExamples(true)} data-testid="empty-examples-button">
              Start from an example…
            </button>
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
