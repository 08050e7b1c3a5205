import { describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import { fitGroups } from './annotations';
import { elkLayout, layoutWorkflow, simpleLayout } from './layout';
import { nodeHeight, NODE_WIDTH } from './toFlow';

/** chain is n Tool steps one after the other. */
function chain(n: number) {
  return {
    ...fixtureWorkflow(),
    nodes: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, key: `s${i}`, name: `Step ${i}`, type: 'Tool', params: { tool: 'log', arguments: {} } })),
    edges: Array.from({ length: n - 1 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })),
  };
}

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
    const w = chain(n);
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

describe('layoutWorkflow with groups', () => {
  // Every way to group some of the fixture's nodes into two groups (a
  // group of a chain's ends included): after the layout and fitGroups,
  // no frame holds a node of another group or of none, and frames do not overlap.
  const w0 = fixtureWorkflow();
  const ids = w0.nodes.map((n) => n.id);
  const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  type Box = { x: number; y: number; width: number; height: number };
  const cases: string[][][] = [];
  for (let mask = 1; mask < 3 ** ids.length; mask += 37) {
    const g: string[][] = [[], []];
    let m = mask;
    for (const id of ids) {
      if (m % 3 < 2) g[m % 3].push(id);
      m = Math.floor(m / 3);
    }
    if (g[0].length) cases.push(g.filter((x) => x.length));
  }
  cases.push([['n1', 'n6']]);

  it.each(cases.map((c) => [JSON.stringify(c), c]))('%s: a group\'s nodes stay together', async (_, groups) => {
    const w = { ...w0, groups: groups.map((nodes, i) => ({ id: `g${i}`, title: '', position: { x: 0, y: 0 }, size: { width: 100, height: 100 }, nodes })) };
    const pos = await elkLayout(w, 'page');
    expect(Object.keys(pos).sort()).toEqual([...ids].sort());
    const laid = fitGroups({ ...w, nodes: w.nodes.map((n) => ({ ...n, position: pos[n.id] })) });
    const boxOf = (id: string): Box => ({ ...pos[id], width: NODE_WIDTH, height: nodeHeight(1) });
    const frames = laid.groups!.map((g) => ({ ...g.position, ...g.size }));
    laid.groups!.forEach((g, i) => {
      for (const id of ids) if (!g.nodes.includes(id)) expect(overlap(boxOf(id), frames[i]), `${id} in ${g.id}`).toBe(false);
      for (let j = i + 1; j < frames.length; j++) expect(overlap(frames[i], frames[j])).toBe(false);
    });
  });
  it('a long chain with a group still wraps, ELK laying out both (no fallback)', async () => {
    const n = 60;
    const w = { ...chain(n), groups: [{ id: 'g', title: '', position: { x: 0, y: 0 }, size: { width: 100, height: 100 }, nodes: ['s3', 's4', 's5'] }] };
    const pos = await elkLayout(w as never, 'page');
    expect(Object.keys(pos)).toHaveLength(n);
    const ys = Object.values(pos).map((p) => p.y);
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(0);
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
