// Generates large, valid weft/v1 workflows for the editor benchmark: blocks
// of ten nodes (a command, an If with an AI transform and a log on its two
// branches, a join, a Loop with a body and its EndLoop, a Switch with a case
// and a default) chained one after another, laid out left to right in rows.
// Usage: node gen-workflow.mjs N OUT.json [--no-positions]
import { writeFileSync } from 'node:fs';

const BLOCK = 10;
const BLOCK_W = 1820;
const PER_ROW = 4;
const ROW_H = 420;

/** generate returns a workflow with about n nodes (a multiple of ten). */
export function generate(n, { positions = true } = {}) {
  const blocks = Math.max(1, Math.round(n / BLOCK));
  const nodes = [];
  const edges = [];
  const at = (b, x, y) => {
    if (!positions) return undefined;
    const col = b % PER_ROW;
    const row = Math.floor(b / PER_ROW);
    return { x: col * BLOCK_W + x, y: row * ROW_H + y };
  };
  const add = (b, id, type, name, params, x, y) => {
    const node = { id: `${id}_${b}`, key: `${id}_${b}`, name: `${name} ${b + 1}`, type, params };
    const p = at(b, x, y);
    if (p) node.position = p;
    nodes.push(node);
    return node.id;
  };
  for (let b = 0; b < blocks; b++) {
    const k = (id) => `${id}_${b}`;
    add(b, 'fetch', 'Tool', 'Fetch page', { tool: 'run_command', arguments: { command: `curl -s https://example.test/page/${b}` } }, 0, 100);
    add(b, 'check', 'If', 'Fetched?', { condition: `${k('fetch')}.exit_code == 0` }, 260, 100);
    add(b, 'summary', 'AiTransform', 'Summarise', { kind: 'summarize', input: `{{${k('fetch')}.stdout}}` }, 520, 0);
    add(b, 'failed', 'Tool', 'Log failure', { tool: 'log', arguments: { message: `fetch ${b} failed: {{${k('fetch')}.stderr}}` } }, 520, 200);
    add(b, 'join', 'Tool', 'Note progress', { tool: 'log', arguments: { message: `block ${b} done` } }, 780, 100);
    add(b, 'retry', 'Loop', 'Retry upload', { exit_condition: `${k('upload')}.exit_code == 0`, max_iterations: 3 }, 1040, 100);
    add(b, 'upload', 'Tool', 'Upload', { tool: 'run_command', arguments: { command: `echo upload ${b}` } }, 1300, 0);
    add(b, 'end', 'EndLoop', 'End retry', { loop_id: k('retry') }, 1560, 0);
    add(
      b,
      'route',
      'Switch',
      'Route',
      { cases: [{ name: 'uploaded', condition: `${k('upload')}.exit_code == 0` }] },
      1300,
      220,
    );
    add(b, 'skip', 'Tool', 'Log skip', { tool: 'log', arguments: { message: `skipped ${b}` } }, 1560, 260);
    edges.push(
      { from: k('fetch'), to: k('check') },
      { from: k('check'), to: k('summary'), output: { type: 'IfTrue' } },
      { from: k('check'), to: k('failed'), output: { type: 'IfFalse' } },
      { from: k('summary'), to: k('join') },
      { from: k('failed'), to: k('join') },
      { from: k('join'), to: k('retry') },
      { from: k('retry'), to: k('upload'), output: { type: 'LoopBody' } },
      { from: k('upload'), to: k('end') },
      { from: k('end'), to: k('retry') },
      { from: k('retry'), to: k('route'), output: { type: 'LoopDone' } },
      { from: k('route'), to: k('skip'), output: { type: 'SwitchDefault' } },
    );
    if (b + 1 < blocks) {
      edges.push({ from: k('route'), to: `fetch_${b + 1}`, output: { type: 'SwitchCase', name: 'uploaded' } });
      edges.push({ from: k('skip'), to: `fetch_${b + 1}` });
    } else {
      edges.push({ from: k('route'), to: k('skip'), output: { type: 'SwitchCase', name: 'uploaded' } });
    }
  }
  return {
    format: 'weft/v1',
    id: `bench-${blocks * BLOCK}${positions ? '' : '-nopos'}`,
    name: `Benchmark, ${blocks * BLOCK} nodes`,
    nodes,
    edges,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const [n, out, flag] = process.argv.slice(2);
  if (!n || !out) {
    console.error('usage: node gen-workflow.mjs N OUT.json [--no-positions]');
    process.exit(2);
  }
  const w = generate(Number(n), { positions: flag !== '--no-positions' });
  writeFileSync(out, JSON.stringify(w, null, 1));
  console.log(`${out}: ${w.nodes.length} nodes, ${w.edges.length} edges`);
}
