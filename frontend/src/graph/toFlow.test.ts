import { describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import { NODE_WIDTH, toFlowNodes } from './toFlow';

// React Flow moves a node (in a dragged selection, by the arrow keys) only
// once it has a measured size, and says "drag a node that is not
// initialized" otherwise; with onlyRenderVisibleElements a node outside the
// view is never drawn, so never measured. Every node comes measured.
describe('toFlowNodes', () => {
  it('gives every node its size up front, and keeps a measurement React Flow made', () => {
    const w = fixtureWorkflow();
    const nodes = toFlowNodes(w);
    expect(nodes.length).toBeGreaterThan(3);
    for (const n of nodes) expect(n.measured, n.id).toEqual({ width: NODE_WIDTH, height: n.height });

    // A measurement stays while the height it was made at holds; a node
    // whose content changed gets its new size.
    const measured = nodes.map((n, i) => (i === 0 ? { ...n, measured: { width: NODE_WIDTH, height: n.height! + 0.5 } } : n));
    const changed = { ...w, nodes: w.nodes.map((n, i) => (i === 1 ? { ...n, name: `${n.name} again` } : n)) };
    const again = toFlowNodes(changed, undefined, measured);
    expect(again[0].measured).toEqual({ width: NODE_WIDTH, height: nodes[0].height! + 0.5 });
    for (const n of again) expect(n.measured?.width, n.id).toBe(NODE_WIDTH);
  });
});
