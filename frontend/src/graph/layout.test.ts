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

  it('wraps a long chain into rows instead of one endless row', async () => {
    const n = 120;
    const w = {
      ...fixtureWorkflow(),
      nodes: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, key: `s${i}`, name: `Step ${i}`, type: 'Tool', params: { tool: 'log', arguments: {} } })),
      edges: Array.from({ length: n - 1 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })),
    };
    const pos = await layoutWorkflow(w as never);
    const xs = Object.values(pos).map((p) => p.x);
    const ys = Object.values(pos).map((p) => p.y);
    const width = Math.max(...xs) - Math.min(...xs);
    const height = Math.max(...ys) - Math.min(...ys);
    expect(height).toBeGreaterThan(0);
    expect(width / height).toBeLessThan(8); // one row would be ~400:1
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

  it('folds a long chain into bands', () => {
    const n = 100;
    const w = {
      ...fixtureWorkflow(),
      nodes: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, key: `s${i}`, name: `Step ${i}`, type: 'Tool', params: { tool: 'log', arguments: {} } })),
      edges: Array.from({ length: n - 1 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })),
    };
    const pos = simpleLayout(w as never);
    const xs = new Set(Object.values(pos).map((p) => p.x));
    const ys = new Set(Object.values(pos).map((p) => p.y));
    expect(xs.size).toBe(12);
    expect(ys.size).toBe(Math.ceil((n + 1) / 12));
    expect(new Set(Object.values(pos).map((p) => `${p.x},${p.y}`)).size).toBe(n); // no two in one place
  });

  it('falls back to it when ELK is too slow', async () => {
    let why: unknown;
    const pos = await layoutWorkflow(fixtureWorkflow(), { timeoutMs: 0, onFallback: (e) => (why = e) });
    expect(String(why)).toMatch(/layout took over 0 ms/);
    expect(pos).toEqual(simpleLayout(fixtureWorkflow()));
  });
});
