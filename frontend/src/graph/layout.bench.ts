// Auto-layout time (ELK layered) of generated workflows without positions:
// `npx vitest bench --run src/graph/layout.bench.ts`. The figures go in
// docs/benchmarks.md, "Editor" (issue 28: 200 nodes under 300 ms).
import { bench, describe } from 'vitest';
import { generate } from '../../../e2e/bench/gen-workflow.mjs';
import type { Workflow } from '../types';
import { elkLayout } from './layout';

for (const n of [60, 200]) {
  const w = generate(n, { positions: false }) as Workflow;
  describe(`${w.nodes.length} nodes, ${w.edges.length} edges`, () => {
    bench('elkLayout', async () => {
      await elkLayout(w);
    }, { iterations: 5, warmupIterations: 1 });
  });
}
