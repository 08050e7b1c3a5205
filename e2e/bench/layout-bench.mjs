// Auto-layout in the browser: how long ELK takes for generated workflows
// without positions, and the longest frame the page drew meanwhile (the
// stall a person sees), with ELK in its web worker (the app's way) and on
// the page (before). Needs Vite serving the frontend:
//   (cd frontend && npx vite --port 5199 --strictPort) &
//   node e2e/bench/layout-bench.mjs [http://localhost:5199] [runs]
// Prints a table of medians (ms).
import { openBrowser } from '../tests/browser.mjs';
import { generate } from './gen-workflow.mjs';

const URL = process.argv[2] ?? 'http://localhost:5199';
const RUNS = Number(process.argv[3] ?? 5);

const { page, close } = await openBrowser({});
await page.goto(URL, { waitUntil: 'domcontentloaded' });
// As in the app: the worker warmed up at idle after the page loaded.
await page.evaluate(async () => (await import('/src/graph/layout.ts')).warmLayout());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const where of ["worker", "page"]) {
  for (const n of [60, 200]) {
    const runs = await page.evaluate(
      async ({ w, where, runs }) => {
        const { elkLayout } = await import('/src/graph/layout.ts');
        const out = [];
        for (let i = 0; i < runs; i++) {
          // Frames drawn while ELK works: the longest gap is the stall.
          let last = performance.now();
          let longest = 0;
          let going = true;
          const tick = (t) => {
            longest = Math.max(longest, t - last);
            last = t;
            if (going) requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
          const t0 = performance.now();
          await elkLayout(w, where);
          const ms = performance.now() - t0;
          going = false;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          out.push({ ms, longest: Math.max(longest, performance.now() - last) });
        }
        return out;
      },
      { w: generate(n, { positions: false }), where, runs: RUNS },
    );
    rows.push({
      where,
      n,
      first: runs[0].ms,
      firstFrame: runs[0].longest,
      warm: median(runs.slice(1).map((r) => r.ms)),
      warmFrame: median(runs.slice(1).map((r) => r.longest)),
    });
  }
}
await close();
const f = (x) => x.toFixed(0).padStart(6);
console.log('ELK in | nodes | first layout | longest frame | later (median) | longest frame');
for (const r of rows) console.log(`${r.where.padEnd(6)} | ${String(r.n).padStart(5)} | ${f(r.first)} | ${f(r.firstFrame)} | ${f(r.warm)} | ${f(r.warmFrame)}`);
