import { describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import type { Workflow } from '../types';
import { handleForOutput } from './handles';
import { entryOrder, LARGE_WORKFLOW, READABLE_ZOOM, startNodes } from './startView';
import { handlesFor, toFlowNodes } from './toFlow';

/** A chain of n Tool nodes, 300 px apart. */
function chain(n: number): Workflow {
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    key: `c${i}`,
    name: `Step ${i}`,
    type: 'Tool' as const,
    params: { tool: 'log' },
    position: { x: i * 300, y: 0 },
  }));
  const edges = nodes.slice(1).map((n, i) => ({ from: `c${i}`, to: n.id }));
  return { format: 'weft/v1', id: 'chain', name: 'Chain', nodes, edges };
}

describe('start view', () => {
  it('fits a workflow whole when that is readable', () => {
    expect(startNodes(fixtureWorkflow(), { width: 1600, height: 900 })).toEqual([]);
  });

  it('opens a small but wide workflow on its first steps, not fitted unreadably small (the sample in a laptop window)', () => {
    // 2,320 px wide, like the sample: fitted whole it was at zoom 0.25.
    const ids = startNodes(chain(8), { width: 680, height: 650 });
    expect(ids.slice(0, 3)).toEqual(['c0', 'c1', 'c2']);
    expect(ids.length).toBeLessThan(8);
  });

  it('whatever it opens on is drawn at a readable zoom, for workflows of every width in canvases of every size', () => {
    for (const n of [1, 2, 3, 5, 8, 13, 40, 300]) {
      for (const size of [{ width: 680, height: 650 }, { width: 1000, height: 700 }, { width: 1600, height: 900 }]) {
        const w = chain(n);
        const ids = startNodes(w, size);
        const shown = ids.length ? ids.length : n;
        // A chain's nodes are 300 apart and 220 wide; 12% padding each side.
        const zoom = Math.min(1, size.width / ((shown - 1) * 300 + 220) / 1.24);
        if (ids.length && ids.length <= 3) continue; // at least three are shown, clamped to the readable zoom by the viewport
        expect(zoom, `${n} nodes in ${size.width}×${size.height}`).toBeGreaterThanOrEqual(READABLE_ZOOM * 0.8);
      }
    }
  });

  it('opens a wide workflow on its first steps, as many as fit at a readable zoom', () => {
    const w = chain(60);
    const ids = startNodes(w, { width: 1000, height: 700 });
    expect(ids[0]).toBe('c0');
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids.length).toBeLessThan(6);
    expect(ids).toEqual(ids.map((_, i) => `c${i}`));
  });

  it('without a canvas size, only large workflows open on their start', () => {
    expect(startNodes(chain(20))).toEqual([]);
    expect(startNodes(chain(LARGE_WORKFLOW + 1))).toHaveLength(24);
  });

  it('walks breadth-first from the entries, not into EndLoop back edges', () => {
    const order = entryOrder(fixtureWorkflow());
    expect(order[0]).toBe('n1');
    expect(order.slice(1, 3)).toEqual(['n2', 'n3']);
    expect(new Set(order).size).toBe(6);
  });
});

describe('handle positions given up front', () => {
  it('match where the node draws its handles', () => {
    const nodes = toFlowNodes(fixtureWorkflow(), 'LR');
    const ifNode = nodes.find((n) => n.id === 'n3')!;
    const h = Object.fromEntries(ifNode.handles!.map((x) => [`${x.type}:${x.id}`, x]));
    // In on the left, middle; true and false on the right at 1/3 and 2/3.
    expect(h['target:in']).toMatchObject({ x: -5, y: ifNode.height! / 2 - 5, position: 'left' });
    expect(h['source:true']).toMatchObject({ x: 215, position: 'right' });
    expect(h['source:true'].y).toBeCloseTo(ifNode.height! / 3 - 5);
    expect(h['source:false'].y).toBeCloseTo((2 * ifNode.height!) / 3 - 5);
    // A Loop takes its EndLoop's edge at the bottom.
    const loop = nodes.find((n) => n.id === 'n2')!;
    expect(loop.handles!.find((x) => x.type === 'target' && x.id === 'back')).toMatchObject({ x: 105, y: loop.height! - 5, position: 'bottom' });
    const tb = handlesFor([handleForOutput(null)], false, 'TB', 220, 92);
    expect(tb).toEqual([
      { id: 'in', type: 'target', position: 'top', x: 105, y: -5, width: 10, height: 10 },
      { id: 'out', type: 'source', position: 'bottom', x: 105, y: 87, width: 10, height: 10 },
    ]);
  });
});
