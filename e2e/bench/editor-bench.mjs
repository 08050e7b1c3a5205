// Editor benchmark: Chromium (playwright-core) against `wails dev` with the
// live Go bindings. With WEFT_BENCH_DIST the page is the production build
// (index.html and assets served from that folder, the Wails IPC scripts
// injected as the dev server does), so React runs as in the built app.
// Measures, for generated 500- and 2,000-node workflows: open → first
// render, open → validated, the fit-all render, pan and zoom frame times,
// automatic layout of a workflow without positions, and the JS heap and
// renderer memory with the sample open. scripts/bench-editor.sh runs it.
import { readFileSync, writeFileSync, existsSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, extname } from 'node:path';
import { chromium } from 'playwright-core';

const URL = process.env.WEFT_URL ?? 'http://localhost:34115';
const DIR = process.env.WEFT_BENCH_DIR;
const DIST = process.env.WEFT_BENCH_DIST ?? '';
const ARTIFACTS = process.env.WEFT_ARTIFACTS ?? 'artifacts';
const CHROMIUM = process.env.WEFT_CHROMIUM ?? '/usr/bin/chromium';
const RUNS = Number(process.env.WEFT_BENCH_RUNS ?? 3);
if (!DIR) {
  console.error('WEFT_BENCH_DIR must name the folder with wf-500.json, wf-2000.json and wf-2000-nopos.json');
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const r1 = (x) => Math.round(x * 10) / 10;

const MIME = { '.js': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff', '.svg': 'image/svg+xml', '.png': 'image/png', '.html': 'text/html' };

async function serveProductionBuild(page) {
  const index = readFileSync(join(DIST, 'index.html'), 'utf8').replace(
    '<head>',
    '<head><script src="/wails/ipc.js"></script><script src="/wails/runtime.js"></script>',
  );
  await page.route('**/*', async (route) => {
    const u = new globalThis.URL(route.request().url());
    if (u.origin !== new globalThis.URL(URL).origin) return route.continue();
    if (u.pathname === '/' || u.pathname === '/index.html') {
      return route.fulfill({ status: 200, contentType: 'text/html', body: index });
    }
    if (u.pathname.startsWith('/assets/')) {
      const f = join(DIST, u.pathname);
      if (existsSync(f)) return route.fulfill({ status: 200, contentType: MIME[extname(f)] ?? 'application/octet-stream', body: readFileSync(f) });
    }
    return route.continue();
  });
}

/** rendererRss sums the resident memory of this browser's renderer processes. */
function rendererRss(profile) {
  let kb = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer') || !cmd.includes(profile)) continue;
      const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
      if (m) kb += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return kb;
}

const profile = mkdtempSync(join(tmpdir(), 'weft-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  viewport: { width: 1440, height: 900 },
  deviceScaleFactor: 1,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--enable-precise-memory-info', '--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests'],
});
const page = context.pages()[0] ?? (await context.newPage());
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
if (DIST) await serveProductionBuild(page);
await page.goto(URL, { waitUntil: 'domcontentloaded' });
await page.waitForFunction(() => window.go?.main?.App && window.weft?.store, null, { timeout: 60_000 });
await page.waitForFunction(() => window.weft.store.getState().doc || window.weft.store.getState().dialog, null, { timeout: 60_000 });
if (await page.evaluate(() => !!window.weft.store.getState().dialog)) await page.locator('[data-testid="dialog-discard"]').click();
await page.waitForFunction(() => window.weft.store.getState().fileName === 'sample.json' && document.querySelectorAll('.weft-node').length > 0);
const production = await page.evaluate(() => !document.querySelector('script[src*="@vite/client"]'));
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');

async function heap() {
  await cdp.send('HeapProfiler.enable').catch(() => {});
  await cdp.send('HeapProfiler.collectGarbage').catch(() => {});
  const { metrics } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  return { jsHeapMB: r1(m.JSHeapUsedSize / 1048576), domNodes: m.Nodes };
}

/** open opens a file the way the UI does and times it. */
async function open(file, id) {
  return page.evaluate(
    async ({ file, id }) => {
      const store = window.weft.store;
      const t0 = performance.now();
      const done = window.weft.actions.openPath(file);
      const first = await new Promise((resolve) => {
        const check = () => {
          const s = store.getState();
          const drawn = document.querySelectorAll('.weft-node').length;
          if (s.doc?.id === id && drawn > 0 && s.nodes.length > 0 && !s.nodes.some((n) => !n.position)) {
            // The frame after the nodes are in the DOM is the one that paints them.
            requestAnimationFrame(() => resolve(performance.now() - t0));
          } else requestAnimationFrame(check);
        };
        check();
      });
      await done;
      const validated = performance.now() - t0;
      // Wait for the view to settle (fit) and count what is drawn.
      await new Promise((r) => setTimeout(r, 400));
      await new Promise((r) => requestAnimationFrame(() => r()));
      return { first, validated, drawn: document.querySelectorAll('.weft-node').length, zoom: window.weft.canvas.getViewport()?.zoom ?? 0 };
    },
    { file, id },
  );
}

async function resetToSample() {
  await page.evaluate(() => window.weft.actions.loadSample());
  await page.waitForFunction(() => window.weft.store.getState().fileName === 'sample.json');
  await page.waitForTimeout(200);
}

/** frames records requestAnimationFrame intervals while f runs. */
async function frames(f) {
  await page.evaluate(() => {
    window.__frames = [];
    window.__framesOn = true;
    let last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__framesOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
  });
  await f();
  const xs = await page.evaluate(() => {
    window.__framesOn = false;
    return window.__frames;
  });
  return { frames: xs.length, medianMs: r1(median(xs)), p95Ms: r1(pct(xs, 95)), maxMs: r1(Math.max(...xs)), over50ms: xs.filter((x) => x > 50).length };
}

/** pan moves the viewport a little every frame for about a second. */
async function pan() {
  return frames(() =>
    page.evaluate(async () => {
      const c = window.weft.canvas;
      const v0 = c.getViewport();
      for (let i = 0; i < 60; i++) {
        await new Promise((r) => requestAnimationFrame(() => r()));
        c.setViewport({ x: v0.x - i * 12, y: v0.y - i * 4, zoom: v0.zoom });
      }
      c.setViewport(v0);
    }),
  );
}

/** zoom turns the mouse wheel over the canvas, in then out. */
async function zoom() {
  const box = await page.locator('[data-testid="canvas"]').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  return frames(async () => {
    for (let i = 0; i < 24; i++) {
      await page.mouse.wheel(0, i < 12 ? -60 : 60);
      await page.waitForTimeout(16);
    }
  });
}

const results = { date: new Date().toISOString(), production, loadavg: loadavg().map(r1), cpus: (await import('node:os')).cpus().length, runs: RUNS };

// Memory with the sample open, idle.
await page.waitForTimeout(1500);
results.sampleIdle = { ...(await heap()), rendererRssMB: r1(rendererRss(profile) / 1024) };

for (const n of [500, 2000]) {
  const file = join(DIR, `wf-${n}.json`);
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    await resetToSample();
    runs.push(await open(file, `bench-${n}`));
  }
  results[`open${n}`] = {
    firstRenderMs: r1(median(runs.map((r) => r.first))),
    firstRenderRuns: runs.map((r) => r1(r.first)),
    validatedMs: r1(median(runs.map((r) => r.validated))),
    drawnAtStart: runs[0].drawn,
    startZoom: r1(runs[0].zoom * 100) / 100,
  };
  results[`open${n}`].panAtStart = await pan();
  results[`open${n}`].zoomAtStart = await zoom();
  // Zoomed out to 0.3: the most nodes drawn as DOM (low detail) before the overview.
  await page.evaluate(() => {
    const c = window.weft.canvas;
    const v = c.getViewport();
    const size = c.size();
    const cx = (size.width / 2 - v.x) / v.zoom;
    const cy = (size.height / 2 - v.y) / v.zoom;
    c.setViewport({ x: size.width / 2 - cx * 0.3, y: size.height / 2 - cy * 0.3, zoom: 0.3 });
  });
  await page.waitForTimeout(500);
  results[`open${n}`].drawnAt03 = await page.evaluate(() => document.querySelectorAll('.weft-node').length);
  results[`open${n}`].panAt03 = await pan();
  // Fit everything into view: the worst case for drawing.
  const fit = await page.evaluate(async () => {
    const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
    const t0 = performance.now();
    window.weft.canvas.fitView({ duration: 0 });
    // Drawn: two frames after the view moved (React Flow renders, then paints).
    await raf();
    await raf();
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 300));
    return {
      ms,
      drawn: document.querySelectorAll('.weft-node').length,
      overview: !!document.querySelector('[data-testid="overview-layer"]'),
      zoom: window.weft.canvas.getViewport().zoom,
    };
  });
  results[`open${n}`].fitAll = { ms: r1(fit.ms), drawnDomNodes: fit.drawn, overview: fit.overview, zoom: r1(fit.zoom * 1000) / 1000 };
  results[`open${n}`].panFitAll = await pan();
  results[`open${n}`].zoomFitAll = await zoom();
  results[`open${n}`].memory = { ...(await heap()), rendererRssMB: r1(rendererRss(profile) / 1024) };
  await page.screenshot({ path: join(ARTIFACTS, `bench-editor-${n}.png`) });
}

// Memory back on the sample after the large workflows (before any ELK layout).
await resetToSample();
await page.waitForTimeout(1000);
results.sampleAfterLarge = { ...(await heap()), rendererRssMB: r1(rendererRss(profile) / 1024) };

// A workflow without positions is laid out (ELK layered) on open.
{
  const runs = [];
  for (let i = 0; i < Math.min(RUNS, 2); i++) {
    await resetToSample();
    runs.push(await open(join(DIR, 'wf-2000-nopos.json'), 'bench-2000-nopos'));
  }
  results.layout2000 = { openLaidOutMs: r1(median(runs.map((r) => r.first))), runs: runs.map((r) => r1(r.first)) };
}

await resetToSample();
await page.waitForTimeout(1500);
results.sampleIdleAfter = { ...(await heap()), rendererRssMB: r1(rendererRss(profile) / 1024) };
results.pageErrors = errors;

writeFileSync(join(ARTIFACTS, 'bench-editor.json'), JSON.stringify(results, null, 2));
console.log(JSON.stringify(results, null, 2));
await context.close();
rmSync(profile, { recursive: true, force: true });
