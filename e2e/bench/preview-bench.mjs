// A plan's preview in the browser: from the moment the assistant's reply
// for an EMPTY workflow reaches the frontend (the AssistantSend binding's
// promise resolves) to the first frame in which every node of the plan is
// drawn (in the DOM, measured, not hidden), and to the first in which each
// is also inside the canvas on screen (fitted: every node's bounding box
// within the canvas's), with the longest frame meanwhile. The app's own
// store, assistant actions and canvas run, in a window of the desktop's
// size with the Assistant tab open, the message sent from it; Go is
// stubbed (window.go, window.runtime) and the reply is what service.Chat
// returns for a plan: the generated workflow (gen-workflow.mjs) laid out by
// planner.Layout itself (golayout/, needs Go), its diff and its review
// (every field of every node).
// Needs Vite serving the frontend, in development or built:
//   (cd frontend && npx vite --port 5199 --strictPort) &
//   (cd frontend && npx vite build --outDir /tmp/weft-dist --emptyOutDir &&
//    npx vite preview --outDir /tmp/weft-dist --port 5198 --strictPort) &
//   node e2e/bench/preview-bench.mjs http://localhost:5198 [runs]
// Prints a table of medians (ms). WEFT_BENCH_SHOT=<dir> saves a screenshot of
// each case after its last run.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { openBrowser } from '../tests/browser.mjs';
import { generate } from './gen-workflow.mjs';

const URL = process.argv[2] ?? 'http://localhost:5199';
const RUNS = Number(process.argv[3] ?? 7);
// The generated blocks (branches, a loop, a switch) and, as wide as a plan
// of n steps gets, n steps in one chain.
const CASES = [
  { n: 50, shape: 'blocks' },
  { n: 50, shape: 'chain' },
  { n: 200, shape: 'blocks' },
  { n: 200, shape: 'chain' },
];

/** chain is n logging steps one after another. */
function chain(n) {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, key: `s${i}`, name: `Step ${i + 1}`, type: 'Tool', params: { tool: 'log', arguments: { message: `step ${i + 1}` } } }));
  const edges = nodes.slice(1).map((x, i) => ({ from: nodes[i].id, to: x.id }));
  return { format: 'weft/v1', id: `chain-${n}`, name: `Chain of ${n}`, nodes, edges };
}

/** laidOut places w's nodes as planner.Layout does: Go itself lays it out
 * (golayout, `go run`, from the repository's root). */
function laidOut(w) {
  // WEFT_BENCH_GO_ROOT: another checkout's layout (one with golayout/), to compare.
  const root = process.env.WEFT_BENCH_GO_ROOT ?? fileURLToPath(new globalThis.URL('../..', import.meta.url));
  const pos = JSON.parse(execFileSync('go', ['run', './e2e/bench/golayout'], { cwd: root, input: JSON.stringify(w), encoding: 'utf8' }));
  return { ...w, nodes: w.nodes.map((n) => ({ ...n, position: pos[n.id] })) };
}

/** fields lists a node's fields by path, as assistant.wholeNode does. */
function fields(n) {
  const out = [];
  const walk = (path, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(`${path}.${k}`, x);
    else out.push({ field: path, old: null, new: typeof v === 'string' ? { text: v } : { text: JSON.stringify(v, null, 2), json: true } });
  };
  walk('params', n.params); // (not the position, which the review leaves out)
  return out;
}

/** planReply is the assistant.Result of a plan of n nodes for an empty workflow. */
function planReply(n, shape) {
  const w = laidOut(shape === 'chain' ? chain(n) : generate(n, { positions: false }));
  const label = (id) => {
    const x = w.nodes.find((m) => m.id === id);
    return `'${x.name}' (${x.key})`;
  };
  return {
    kind: 'plan',
    message: `A plan of ${w.nodes.length} steps.`,
    patch: { added_nodes: w.nodes, removed_node_ids: [], updated_nodes: [], added_edges: w.edges, removed_edges: [], warnings: [] },
    workflow: w,
    diff: { added_node_ids: w.nodes.map((x) => x.id), removed_node_ids: [], modified_node_ids: [], added_edges: w.edges, removed_edges: [] },
    changes: {
      added_nodes: w.nodes.map((x) => ({ id: x.id, key: x.key, name: x.name, type: x.type, fields: fields(x) })),
      removed_nodes: [],
      updated_nodes: [],
      added_edges: w.edges.map((e) => ({ from: e.from, to: e.to, from_label: label(e.from), to_label: label(e.to), output: e.output })),
      removed_edges: [],
    },
    warnings: [],
    problems: [],
    valid: true,
    unused: {},
    validated: true,
    attempts: 1,
    llm_calls: 1,
    usage: {},
  };
}

// The desktop window's size (main.go), the Assistant tab open.
const { page, close } = await openBrowser({ width: 1280, height: 800 });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
// Go, stubbed: an empty workflow opens; a model is configured; the reply
// comes when the bench says (window.__reply).
await page.addInitScript(() => {
  const empty = { format: 'weft/v1', id: 'bench-empty', name: 'Empty', nodes: [], edges: [] };
  const stubs = {
    LoadStart: async () => ({ open: { path: '', name: 'Empty', workflow: empty, warnings: [] }, notice: '' }),
    GetSettings: async () => ({ settings: { llm: { model: 'bench', base_url: 'http://127.0.0.1:9' } }, warnings: [] }),
    AssistantHistory: async () => ({ messages: [], path: '', warnings: [] }),
    ValidateWorkflow: async () => ({ valid: true, problems: [] }),
    AssistantSend: () => new Promise((resolve) => (window.__reply = resolve)),
    AssistantStop: async () => false,
  };
  window.go = { main: { App: new Proxy(stubs, { get: (t, m) => t[m] ?? (async () => null) }) } };
  window.runtime = new Proxy({}, { get: () => () => () => {} });
});
await page.goto(URL, { waitUntil: 'domcontentloaded' });
await page.waitForFunction(() => window.weft?.store?.getState().doc?.id === 'bench-empty', null, { timeout: 60_000 });
await page.evaluate(() => window.weft.store.getState().setSidebarTab('assistant'));
await page.waitForTimeout(1000);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const { n, shape } of CASES) {
  const reply = planReply(n, shape);
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    // As a person would: the proposal before discarded, the message sent
    // from the Assistant panel; the reply waits in the stub.
    await page.evaluate(() => {
      const s = window.weft.store.getState();
      if (s.proposal) s.endProposal('discarded');
      window.__reply = null;
    });
    await page.waitForTimeout(300);
    await page.evaluate(() => window.weft.canvas.setViewport({ x: 0, y: 0, zoom: 1 }));
    await page.fill('[data-testid="assistant-input"]', 'Plan it');
    await page.click('[data-testid="assistant-send"]');
    await page.waitForFunction(() => typeof window.__reply === 'function');
    await page.waitForTimeout(100);
    runs.push(
      await page.evaluate(async (reply) => {
        const ids = new Set(reply.workflow.nodes.map((x) => x.id));
        const canvas = document.querySelector('[data-testid="canvas"]');
        // state: how many nodes of the plan are drawn (in the DOM, measured,
        // not hidden) and how many of those lie inside the canvas.
        const state = () => {
          const c = canvas.getBoundingClientRect();
          let drawn = 0;
          let inside = 0;
          for (const el of canvas.querySelectorAll('.react-flow__node')) {
            if (!ids.has(el.dataset.id)) continue;
            const r = el.getBoundingClientRect();
            if (r.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
            drawn++;
            if (r.left >= c.left - 1 && r.top >= c.top - 1 && r.right <= c.right + 1 && r.bottom <= c.bottom + 1) inside++;
          }
          return { drawn, inside };
        };
        // after runs f once the frame this rAF callback precedes is drawn.
        const after = (f) => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => f(performance.now());
          ch.port2.postMessage(0);
        };
        return await new Promise((resolve) => {
          const out = { store: null, drawn: null, fitted: null, longestDrawn: 0, longestFitted: 0, inside: 0 };
          // When the preview reached the store (the reply's JS: the
          // proposal, previewGraph); the rest is React, React Flow, the fit.
          const unsub = window.weft.store.subscribe((s) => {
            if (s.previewNodes && out.store === null) out.store = performance.now() - t0;
          });
          let last = performance.now();
          let longest = 0;
          let t0 = 0;
          const done = () => {
            const c = canvas.getBoundingClientRect();
            unsub();
            resolve({ ...out, zoom: window.weft.canvas.getViewport().zoom, canvas: `${Math.round(c.width)}×${Math.round(c.height)}` });
          };
          const tick = (t) => {
            longest = Math.max(longest, t - last);
            last = t;
            const st = state();
            out.inside = st.inside;
            const all = st.drawn === ids.size;
            const fitted = all && st.inside === ids.size;
            if (all && out.drawn === null) {
              out.drawn = -1;
              after((p) => ((out.drawn = p - t0), (out.longestDrawn = Math.max(longest, p - last))));
            }
            if (fitted) {
              after((p) => {
                out.fitted = p - t0;
                out.longestFitted = Math.max(longest, p - last);
                done();
              });
              return;
            }
            // Not fitted 2 s after the reply: it will not be.
            if (t - t0 > 2000 && out.drawn !== -1) return done();
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
          last = performance.now();
          t0 = performance.now();
          window.__reply(reply);
        });
      }, reply),
    );
  }
  // WEFT_BENCH_SHOT=<dir>: the window after the last run of each case, to look at.
  if (process.env.WEFT_BENCH_SHOT) await page.screenshot({ path: `${process.env.WEFT_BENCH_SHOT}/preview-${shape}-${n}.png` });
  const med = (k) => {
    const xs = runs.map((r) => r[k]).filter((x) => x !== null);
    return xs.length === runs.length ? median(xs) : null;
  };
  rows.push({
    n: reply.workflow.nodes.length,
    shape,
    edges: reply.workflow.edges.length,
    store: med('store'),
    drawn: med('drawn'),
    longestDrawn: med('longestDrawn'),
    fitted: med('fitted'),
    longestFitted: runs.every((r) => r.fitted !== null) ? med('longestFitted') : null,
    inside: runs[0].inside,
    zoom: runs[0].zoom,
    canvas: runs[0].canvas,
  });
}
await close();
if (errors.length) console.error(`page errors:\n${errors.join('\n')}`);
const f = (x) => (x === null ? '—' : x.toFixed(0)).padStart(6);
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${RUNS} runs each; medians (ms)`);
console.log('shape  | nodes | edges | in the store | all drawn | longest frame | all fitted | longest frame | inside the canvas | zoom | canvas (px)');
for (const r of rows) {
  console.log(
    `${r.shape.padEnd(6)} | ${String(r.n).padStart(5)} | ${String(r.edges).padStart(5)} | ${f(r.store)} | ${f(r.drawn)} | ${f(r.longestDrawn)} | ${f(r.fitted)} | ${f(r.longestFitted)} | ${String(r.inside).padStart(4)} of ${r.n} | ${r.zoom.toFixed(3)} | ${r.canvas}`,
  );
}
