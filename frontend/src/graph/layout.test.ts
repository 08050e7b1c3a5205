import { describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import { layoutWorkflow, simpleLayout } from './layout';

describe('layoutWorkflow', () => {
  it('places every node left to right and keeps branch targets in handle order', async () => {
    const w = fixtureWorkflow();
    const pos = await layoutWorkflow(w);
    expect(Object.keys(pos).sort()).toEqual(w.nodes.map((n) => n.id).sort());
    expect(pos.n1.x).toBeLessThan(pos.n2.x);
    expect(pos.n2.x).toBeLessThan(pos.n3.x);
    // If: the true target sits above the false target.
    expect(pos.n4.y).toBeLessThan(pos.n5.y);
  });

  it('copes with dangling edges and an EndLoop pointing elsewhere', async () => {
    const w = fixtureWorkflow();
    w.edges.push({ from: 'n6', to: 'n1' }, { from: 'n1', to: 'ghost' }, { from: 'n3', to: 'n3' });
    const pos = await layoutWorkflow(w);
    expect(Object.keys(pos)).toHaveLength(w.nodes.length);
  });
});

describe('simpleLayout', () => {
  it('layers nodes by longest path and ignores the back edge', () => {
    const pos = simpleLayout(fixtureWorkflow());
    expect(pos.n1.x).toBe(0);
    expect(pos.n2.x).toBeGreaterThan(pos.n1.x);
    expect(pos.n3.x).toBeGreaterThan(pos.n2.x);
    expect(pos.n6.x).toBeGreaterThan(pos.n4.x);
    expect(pos.n4.x).toBe(pos.n5.x);
    expect(pos.n4.y).not.toBe(pos.n5.y);
  });

  it('falls back to it when ELK is too slow', async () => {
    let why: unknown;
    const pos = await layoutWorkflow(fixtureWorkflow(), { timeoutMs: 0, onFallback: (e) => (why = e) });
    expect(String(why)).toMatch(/layout took over 0 ms/);
    expect(pos).toEqual(simpleLayout(fixtureWorkflow()));
  });
});
