import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Workflow } from '../types';

// How the fake worker behaves: answer as ELK's worker does, or fail to start.
const mode = vi.hoisted(() => ({ broken: false, layouts: 0 }));

vi.mock('elkjs/lib/elk-worker.min.js?worker&inline', async () => {
  const { default: ELK } = await import('elkjs/lib/elk.bundled.js');
  const elk = new ELK();
  type Msg = { id: number; cmd: string; graph?: Parameters<typeof elk.layout>[0]; layoutOptions?: Record<string, string> };
  // Called with new, it gives its object: a closure, not a class.
  function FakeWorker() {
    const w: { onmessage: ((m: { data: unknown }) => void) | null; addEventListener: (t: string, f: (e: Event) => void) => void; postMessage: (m: Msg) => void; terminate: () => void } = {
      onmessage: null,
      addEventListener: (type, f) => {
        if (type === 'error' && mode.broken) setTimeout(() => f(new Event('error')), 0);
      },
      postMessage: (msg) => {
        if (mode.broken) return; // a worker that never ran answers nothing
        if (msg.cmd !== 'layout') {
          setTimeout(() => w.onmessage?.({ data: { id: msg.id } }), 0);
          return;
        }
        mode.layouts++;
        void elk.layout(msg.graph!, { layoutOptions: msg.layoutOptions }).then((g) => w.onmessage?.({ data: { id: msg.id, data: g } }));
      },
      terminate: () => {},
    };
    return w;
  }
  return { default: FakeWorker };
});

function chain(n: number): Workflow {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, key: `n${i}`, name: `N${i}`, type: 'Tool' as const, params: { tool: 'log' } }));
  return { format: 'weft/v1', id: 'c', name: 'C', nodes, edges: nodes.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id })) };
}

/** A fresh layout module in a page that has workers. */
async function layoutModule() {
  vi.resetModules();
  vi.stubGlobal('Worker', class {});
  return import('./layout');
}

afterEach(() => {
  vi.unstubAllGlobals();
  mode.broken = false;
  mode.layouts = 0;
});

describe('auto-layout in a web worker', () => {
  it('lays out in the worker, left to right', async () => {
    const { elkLayout } = await layoutModule();
    const before = mode.layouts;
    const pos = await elkLayout(chain(5));
    expect(mode.layouts).toBe(before + 1);
    expect(Object.keys(pos)).toHaveLength(5);
    for (let i = 1; i < 5; i++) expect(pos[`n${i}`].x).toBeGreaterThan(pos[`n${i - 1}`].x);
  });

  it('lays out on the page when the worker cannot start, at once and from then on', async () => {
    mode.broken = true;
    const { elkLayout } = await layoutModule();
    const t0 = Date.now();
    const pos = await elkLayout(chain(4));
    expect(Object.keys(pos)).toHaveLength(4);
    expect(Date.now() - t0).toBeLessThan(5000); // not the layout timeout's fallback
    expect(Object.keys(await elkLayout(chain(3)))).toHaveLength(3);
    expect(mode.layouts).toBe(0);
  });
});
