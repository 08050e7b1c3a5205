// The minimap, drawn on a <canvas>: every node as a coloured box and the
// visible part of the workflow as a frame. React Flow's own MiniMap renders
// one SVG element (and one React component) per node, which for thousands
// of nodes costs more than the canvas itself; this one costs one draw call
// per node into a cached layer, and one blit per viewport change.
// Click or drag to move the view there; the wheel zooms.
import { useReactFlow, useStore as useFlowStore } from '@xyflow/react';
import { useEffect, useMemo, useRef, type PointerEvent, type WheelEvent } from 'react';
import { typeMeta } from '../graph/nodeMeta';
import type { WeftFlowNode } from '../graph/toFlow';
import { useStore } from '../store';
import { canvasColours } from '../theme';
import { MIN_ZOOM, MINIMAP } from './canvasBridge';

const W = MINIMAP.width;
const H = MINIMAP.height;
const PAD = 6;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function nodeBox(n: WeftFlowNode): Box {
  return { x: n.position.x, y: n.position.y, w: n.measured?.width ?? n.width ?? 220, h: n.measured?.height ?? n.height ?? 92 };
}

export function CanvasMiniMap({ nodes }: { nodes: WeftFlowNode[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const layer = useRef<HTMLCanvasElement | null>(null);
  const rf = useReactFlow();
  const [tx, ty, zoom] = useFlowStore((s) => s.transform);
  const width = useFlowStore((s) => s.width);
  const height = useFlowStore((s) => s.height);
  const dpr = typeof window !== 'undefined' ? Math.min(2, window.devicePixelRatio || 1) : 1;
  const theme = useStore((s) => s.theme); // the node layer is redrawn in the other theme's colours

  // The flow area the map shows: all nodes, padded.
  const bounds = useMemo<Box>(() => {
    if (!nodes.length) return { x: 0, y: 0, w: 1, h: 1 };
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const n of nodes) {
      const b = nodeBox(n);
      x0 = Math.min(x0, b.x);
      y0 = Math.min(y0, b.y);
      x1 = Math.max(x1, b.x + b.w);
      y1 = Math.max(y1, b.y + b.h);
    }
    return { x: x0, y: y0, w: Math.max(1, x1 - x0), h: Math.max(1, y1 - y0) };
  }, [nodes]);

  // The visible rectangle in flow coordinates.
  const view: Box = { x: -tx / zoom, y: -ty / zoom, w: width / zoom, h: height / zoom };
  // Map what both cover, so the frame never leaves the map.
  const all: Box = useMemo(() => {
    const x0 = Math.min(bounds.x, view.x);
    const y0 = Math.min(bounds.y, view.y);
    const x1 = Math.max(bounds.x + bounds.w, view.x + view.w);
    const y1 = Math.max(bounds.y + bounds.h, view.y + view.h);
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  }, [bounds, view.x, view.y, view.w, view.h]);
  const scale = Math.min((W - 2 * PAD) / all.w, (H - 2 * PAD) / all.h);
  const ox = PAD + ((W - 2 * PAD) - all.w * scale) / 2 - all.x * scale;
  const oy = PAD + ((H - 2 * PAD) - all.h * scale) / 2 - all.y * scale;

  // The node layer, redrawn when nodes or the mapping change.
  useEffect(() => {
    const c = layer.current ?? (layer.current = document.createElement('canvas'));
    c.width = W * dpr;
    c.height = H * dpr;
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    const { family } = canvasColours();
    for (const n of nodes) {
      const b = nodeBox(n);
      g.fillStyle = family[typeMeta(n.data?.node?.type ?? '').family] ?? family.unknown;
      g.globalAlpha = n.selected ? 1 : 0.8;
      g.fillRect(ox + b.x * scale, oy + b.y * scale, Math.max(1.5, b.w * scale), Math.max(1.5, b.h * scale));
    }
    g.globalAlpha = 1;
  }, [nodes, ox, oy, scale, dpr, theme]);

  // The map: the node layer, dimmed outside the visible frame.
  useEffect(() => {
    const c = canvas.current;
    const g = c?.getContext('2d');
    if (!c || !g || !layer.current) return;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, c.width, c.height);
    g.drawImage(layer.current, 0, 0);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const fx = ox + view.x * scale;
    const fy = oy + view.y * scale;
    const fw = view.w * scale;
    const fh = view.h * scale;
    const C = canvasColours();
    g.fillStyle = C.shade;
    g.globalAlpha = 0.6;
    g.beginPath();
    g.rect(0, 0, W, H);
    g.rect(fx, fy, fw, fh);
    g.fill('evenodd');
    g.strokeStyle = C.frame;
    g.globalAlpha = 0.7;
    g.lineWidth = 1;
    g.strokeRect(fx + 0.5, fy + 0.5, Math.max(1, fw - 1), Math.max(1, fh - 1));
    g.globalAlpha = 1;
  });

  const drag = useRef(false);
  const moveTo = (e: PointerEvent) => {
    const r = canvas.current!.getBoundingClientRect();
    const fx = (e.clientX - r.left - ox) / scale;
    const fy = (e.clientY - r.top - oy) / scale;
    void rf.setViewport({ x: width / 2 - fx * zoom, y: height / 2 - fy * zoom, zoom });
  };
  const onWheel = (e: WheelEvent) => {
    const z = Math.min(2, Math.max(MIN_ZOOM, zoom * (e.deltaY < 0 ? 1.15 : 1 / 1.15)));
    const cx = (width / 2 - tx) / zoom;
    const cy = (height / 2 - ty) / zoom;
    void rf.setViewport({ x: width / 2 - cx * z, y: height / 2 - cy * z, zoom: z });
  };

  return (
    <div className="react-flow__panel bottom right weft-minimap" data-testid="minimap">
      <canvas
        ref={canvas}
        width={W * dpr}
        height={H * dpr}
        style={{ width: W, height: H }}
        aria-label="Minimap: click or drag to move the view"
        onPointerDown={(e) => {
          drag.current = true;
          (e.target as HTMLElement).setPointerCapture?.(e.pointerId);
          moveTo(e);
        }}
        onPointerMove={(e) => drag.current && moveTo(e)}
        onPointerUp={() => (drag.current = false)}
        onWheel={onWheel}
      />
    </div>
  );
}
