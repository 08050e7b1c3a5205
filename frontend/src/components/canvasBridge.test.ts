import { afterEach, describe, expect, it } from 'vitest';
import type { WeftFlowNode } from '../graph/toFlow';
import { canvasBridge, fitViewport, MINIMAP } from './canvasBridge';

function node(id: string, x: number, y: number): WeftFlowNode {
  return { id, position: { x, y }, data: {}, width: 220, height: 92 } as unknown as WeftFlowNode;
}

/** A grid of cols × rows nodes, 300 px apart across and 150 down. */
function grid(cols: number, rows: number): WeftFlowNode[] {
  const out: WeftFlowNode[] = [];
  for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) out.push(node(`${c}-${r}`, c * 300, r * 150));
  return out;
}

interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
const overlaps = (a: Rect, b: Rect) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

afterEach(() => {
  canvasBridge.size = () => null;
});

// After Fit, no node is under the minimap (bottom right, 15 px from the
// edges) or the zoom controls (bottom left), whatever the workflow's shape
// and the canvas's size; and every node is on the canvas.
describe('fitViewport', () => {
  // Every grid up to 9 × 9 and a few long bands: among them the shapes
  // as wide as the canvas is, which the fit fills to the corners.
  const shapes: [string, WeftFlowNode[]][] = [];
  for (let c = 1; c <= 9; c++) for (let r = 1; r <= 9; r++) shapes.push([`a ${c} × ${r} grid`, grid(c, r)]);
  shapes.push(['a 20 × 3 band', grid(20, 3)], ['a 3 × 20 band', grid(3, 20)]);
  // The widest a plan gets: its steps in one row, as far apart as the
  // planner lays out (300 px); a plan of 60 steps is fitted too.
  for (let n = 10; n <= 60; n++) shapes.push([`a chain of ${n}`, grid(n, 1)]);
  const sizes = [
    { width: 1200, height: 800 },
    { width: 900, height: 560 },
    { width: 1600, height: 900 },
    { width: 700, height: 900 },
    // the desktop's window (1280 × 800) with both side panels open
    { width: 704, height: 741 },
  ];
  for (const size of sizes) {
    it(`keeps every shape clear of the minimap and the controls in ${size.width} × ${size.height}`, () => {
      canvasBridge.size = () => size;
      const minimap: Rect = { x0: size.width - 15 - MINIMAP.width - 2, y0: size.height - 15 - MINIMAP.height - 2, x1: size.width - 15, y1: size.height - 15 };
      const controls: Rect = { x0: 15, y0: size.height - 15 - 3 * 27, x1: 15 + 28, y1: size.height - 15 };
      for (const [name, nodes] of shapes) {
        const vp = fitViewport(nodes);
        expect(vp, name).not.toBeNull();
        const { x, y, zoom } = vp!;
        for (const n of nodes) {
          const r: Rect = { x0: n.position.x * zoom + x, y0: n.position.y * zoom + y, x1: (n.position.x + 220) * zoom + x, y1: (n.position.y + 92) * zoom + y };
          expect(overlaps(r, minimap), `${name}: ${n.id} under the minimap`).toBe(false);
          expect(overlaps(r, controls), `${name}: ${n.id} under the controls`).toBe(false);
          expect(r.x0 >= 0 && r.y0 >= 0 && r.x1 <= size.width && r.y1 <= size.height, `${name}: ${n.id} off the canvas`).toBe(true);
        }
      }
    });
  }
});
