// The overview of a large workflow zoomed far out, drawn on one <canvas>.
// With hundreds of nodes in view, the browser spends most of each frame
// compositing their DOM elements (one layer chunk each); drawn as boxes and
// curves on a canvas the same view costs a few milliseconds. React Flow
// still handles panning and zooming; the canvas follows its transform.
// Clicking a spot zooms in there, back to the editable canvas.
import { useStore as useFlowStore } from '@xyflow/react';
import { useEffect, useRef } from 'react';
import { typeMeta } from '../graph/nodeMeta';
import type { WeftFlowEdge, WeftFlowNode } from '../graph/toFlow';
import { useStore } from '../store';
import { canvasColours } from '../theme';

function handleCenter(n: WeftFlowNode, id: string | null | undefined, type: 'source' | 'target') {
  const h = n.handles?.find((x) => x.type === type && (x.id ?? null) === (id ?? null));
  const w = n.width ?? 220;
  const hh = n.height ?? 92;
  if (!h) return { x: n.position.x + (type === 'source' ? w : 0), y: n.position.y + hh / 2, side: type === 'source' ? 'right' : 'left' };
  return { x: n.position.x + h.x + (h.width ?? 0) / 2, y: n.position.y + h.y + (h.height ?? 0) / 2, side: h.position as string };
}

const DIR: Record<string, [number, number]> = { right: [1, 0], left: [-1, 0], top: [0, -1], bottom: [0, 1] };

export function OverviewLayer({ nodes, edges }: { nodes: WeftFlowNode[]; edges: WeftFlowEdge[] }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const [tx, ty, zoom] = useFlowStore((s) => s.transform);
  const width = useFlowStore((s) => s.width);
  const height = useFlowStore((s) => s.height);
  const problems = useStore((s) => s.problemsByNode);
  useStore((s) => s.theme); // redraw in the other theme's colours

  useEffect(() => {
    const c = ref.current;
    const g = c?.getContext('2d');
    if (!c || !g) return;
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
      c.width = Math.round(width * dpr);
      c.height = Math.round(height * dpr);
    }
    const C = canvasColours();
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.setTransform(dpr * zoom, 0, 0, dpr * zoom, dpr * tx, dpr * ty);
    // Only what is in view.
    const x0 = -tx / zoom;
    const y0 = -ty / zoom;
    const x1 = x0 + width / zoom;
    const y1 = y0 + height / zoom;
    const byId = new Map(nodes.map((n) => [n.id, n]));
    g.lineWidth = 1.5 / zoom;
    for (const e of edges) {
      const a = byId.get(e.source);
      const b = byId.get(e.target);
      if (!a || !b) continue;
      const s = handleCenter(a, e.sourceHandle, 'source');
      const t = handleCenter(b, e.targetHandle, 'target');
      if (Math.max(s.x, t.x) < x0 || Math.min(s.x, t.x) > x1 || Math.max(s.y, t.y) < y0 || Math.min(s.y, t.y) > y1) continue;
      const d = Math.max(40, Math.hypot(t.x - s.x, t.y - s.y) * 0.3);
      const [sx, sy] = DIR[s.side] ?? [1, 0];
      const [txd, tyd] = DIR[t.side] ?? [-1, 0];
      g.strokeStyle = C.edge[e.data?.kind ?? ''] ?? C.edgeDefault;
      if (e.className?.includes('edge-problem')) g.strokeStyle = C.error;
      g.beginPath();
      g.moveTo(s.x, s.y);
      g.bezierCurveTo(s.x + sx * d, s.y + sy * d, t.x + txd * d, t.y + tyd * d, t.x, t.y);
      g.stroke();
    }
    const showNames = zoom * 24 >= 7;
    if (showNames) {
      g.font = '600 24px Inter Variable, Inter, system-ui, sans-serif';
      g.textBaseline = 'middle';
    }
    for (const n of nodes) {
      const w = n.width ?? 220;
      const h = n.height ?? 92;
      const { x, y } = n.position;
      if (x > x1 || x + w < x0 || y > y1 || y + h < y0) continue;
      const family = typeMeta(n.data?.node?.type ?? '').family;
      g.fillStyle = C.panel;
      g.fillRect(x, y, w, h);
      g.fillStyle = C.family[family] ?? C.family.unknown;
      g.fillRect(x, y, 12, h);
      const ps = problems[n.id];
      g.strokeStyle = n.selected ? C.accent : ps?.some((p) => p.severity === 'error') ? C.error : ps?.some((p) => p.severity === 'warning') ? C.warning : C.border;
      g.lineWidth = (n.selected || ps?.length ? 3 : 1) / zoom;
      g.strokeRect(x, y, w, h);
      if (showNames) {
        g.fillStyle = C.text;
        g.fillText(n.data?.node?.name || n.data?.node?.key || n.id, x + 24, y + h / 2, w - 32);
      }
    }
  });

  return <canvas ref={ref} className="overview-layer" style={{ width, height }} data-testid="overview-layer" aria-hidden="true" />;
}
