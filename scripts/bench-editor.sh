#!/usr/bin/env bash
# Editor benchmark (not part of `make test`). Under a private Xvfb display
# and private XDG directories:
#  1. builds the production frontend into a scratch folder and generates
#     500- and 2,000-node workflows (e2e/bench/gen-workflow.mjs);
#  2. starts `wails dev` (live Go bindings) and runs e2e/bench/editor-bench.mjs
#     in Chromium against the production build: open → first render, open →
#     validated, fit-all, pan and zoom frame times, ELK layout of 2,000 nodes
#     without positions, JS heap and renderer memory;
#  3. starts the built app (build/bin/weft; built first unless
#     WEFT_BENCH_NO_BUILD=1 and it exists) with the sample open and measures
#     the memory of its processes (the Go process and WebKitGTK's) at idle.
# Results: artifacts/bench-editor.json, artifacts/bench-editor-app.json and a
# summary in artifacts/bench-editor.md (also printed).
# Usage: scripts/bench-editor.sh   (env: WEFT_BENCH_RUNS=3, WEFT_BENCH_NO_BUILD=1)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$(go env GOPATH)/bin:/usr/local/go/bin:$PATH"
ART="$ROOT/artifacts"
mkdir -p "$ART"
PORT=34115
START=$(date +%s)

SCRATCH=$(mktemp -d /tmp/weft-bench-editor.XXXXXX)
XVFB_PID=""
DEV_PGID=""
APP_PGID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for g in "$DEV_PGID" "$APP_PGID"; do
    [ -n "$g" ] || continue
    kill -TERM -- "-$g" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$g" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$g" 2>/dev/null || true
  done
  if [ -n "$XVFB_PID" ]; then
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
  fi
  rm -rf "$SCRATCH"
  if [ "$rc" -eq 0 ]; then echo "bench-editor: done ($(($(date +%s) - START))s)"; else echo "bench-editor: FAIL (exit $rc)"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need() { command -v "$1" >/dev/null || { echo "bench-editor: $1 not found (run scripts/deps.sh test)" >&2; exit 2; }; }
need Xvfb
need wails
need node
need xdotool
[ -x /usr/bin/chromium ] || { echo "bench-editor: /usr/bin/chromium not found" >&2; exit 2; }
[ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
[ -d e2e/node_modules ] || (cd e2e && npm ci --no-audit --no-fund --loglevel=error)

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_open "$PORT"; then
  echo "bench-editor: port $PORT is in use (another wails dev or e2e run?); stop it first" >&2
  exit 2
fi

export GOENV="$(go env GOENV)"
export XDG_CONFIG_HOME="$SCRATCH/config" XDG_DATA_HOME="$SCRATCH/data" WEFT_KEYRING=off
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"

DISPLAY_NUM=99
while [ -e "/tmp/.X${DISPLAY_NUM}-lock" ] || [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ]; do DISPLAY_NUM=$((DISPLAY_NUM + 1)); done
Xvfb ":$DISPLAY_NUM" -screen 0 1440x900x24 -nolisten tcp >"$ART/bench-editor-xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ] && break; sleep 0.1; done
export DISPLAY=":$DISPLAY_NUM"

echo "bench-editor: building the production frontend"
(cd frontend && npx vite build --outDir "$SCRATCH/dist" --emptyOutDir --logLevel warn) >"$ART/bench-editor-vite.log" 2>&1 || {
  tail -20 "$ART/bench-editor-vite.log" >&2
  exit 1
}
mkdir -p "$SCRATCH/wf"
node e2e/bench/gen-workflow.mjs 500 "$SCRATCH/wf/wf-500.json"
node e2e/bench/gen-workflow.mjs 2000 "$SCRATCH/wf/wf-2000.json"
node e2e/bench/gen-workflow.mjs 2000 "$SCRATCH/wf/wf-2000-nopos.json" --no-positions

echo "bench-editor: starting wails dev"
setsid wails dev -tags webkit2_41 -m -nosyncgomod -s -skipbindings -noreload -nogorebuild -nocolour \
  -loglevel Warning -viteservertimeout 60 >"$ART/bench-editor-wails-dev.log" 2>&1 </dev/null &
DEV_PGID=$!
ready=""
for _ in $(seq 1 600); do
  kill -0 "$DEV_PGID" 2>/dev/null || { tail -30 "$ART/bench-editor-wails-dev.log" >&2; exit 1; }
  if grep -q "To develop in the browser" "$ART/bench-editor-wails-dev.log" && port_open "$PORT"; then ready=1; break; fi
  sleep 0.5
done
[ -n "$ready" ] || { echo "bench-editor: wails dev did not come up" >&2; exit 1; }

echo "bench-editor: measuring in Chromium (production build, live Go bindings)"
WEFT_URL="http://localhost:$PORT" WEFT_BENCH_DIR="$SCRATCH/wf" WEFT_BENCH_DIST="$SCRATCH/dist" WEFT_ARTIFACTS="$ART" \
  node e2e/bench/editor-bench.mjs >"$ART/bench-editor-run.log" 2>&1 || { tail -30 "$ART/bench-editor-run.log" >&2; exit 1; }

kill -TERM -- "-$DEV_PGID" 2>/dev/null || true
for _ in $(seq 1 50); do kill -0 -- "-$DEV_PGID" 2>/dev/null || break; sleep 0.1; done
kill -KILL -- "-$DEV_PGID" 2>/dev/null || true
DEV_PGID=""

# The built app's memory with the sample open, at idle.
BIN="$ROOT/build/bin/weft"
if [ "${WEFT_BENCH_NO_BUILD:-}" != 1 ] || [ ! -x "$BIN" ]; then
  echo "bench-editor: building the app (wails build)"
  wails build -tags webkit2_41 -m -nosyncgomod -skipbindings -nocolour >"$ART/bench-editor-build.log" 2>&1 || { tail -30 "$ART/bench-editor-build.log" >&2; exit 1; }
fi
rm -rf "$XDG_DATA_HOME/weft" # no autosave from the Chromium run: open straight on the sample
echo "bench-editor: starting the built app"
setsid "$BIN" >"$ART/bench-editor-app.log" 2>&1 </dev/null &
APP_PGID=$!
shown=""
for _ in $(seq 1 120); do
  if xdotool search --name "sample.json — Weft" >/dev/null 2>&1; then shown=1; break; fi
  kill -0 "$APP_PGID" 2>/dev/null || { tail -30 "$ART/bench-editor-app.log" >&2; exit 1; }
  sleep 0.5
done
[ -n "$shown" ] || { echo "bench-editor: the app did not show the sample within 60s" >&2; exit 1; }
sleep 5 # idle

# Every process of the app, the Go process and WebKitGTK's helpers: its session.
pids() { ps -o pid= -s "$1" 2>/dev/null; }
{
  echo '{"processes": ['
  first=1
  for p in $(pids "$APP_PGID"); do
    [ -r "/proc/$p/status" ] || continue
    name=$(awk '/^Name:/ {print $2}' "/proc/$p/status")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status")
    pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
    [ -n "$rss" ] || continue
    [ $first = 1 ] || echo ','
    first=0
    printf '{"pid": %s, "name": "%s", "rss_kb": %s, "pss_kb": %s}' "$p" "$name" "$rss" "${pss:-0}"
  done
  echo ']}'
} >"$ART/bench-editor-app.json"

node - "$ART" <<'EOF'
const fs = require('fs');
const art = process.argv[2];
const b = JSON.parse(fs.readFileSync(`${art}/bench-editor.json`, 'utf8'));
const a = JSON.parse(fs.readFileSync(`${art}/bench-editor-app.json`, 'utf8'));
const mb = (kb) => (kb / 1024).toFixed(0);
const rss = a.processes.reduce((s, p) => s + p.rss_kb, 0);
const pss = a.processes.reduce((s, p) => s + p.pss_kb, 0);
const fr = (f) => `${f.medianMs} / ${f.p95Ms} ms`;
const lines = [
  `Chromium ${b.production ? 'production build' : 'dev build'}, load average ${b.loadavg.join(' ')}, ${b.cpus} CPUs, median of ${b.runs} runs.`,
  '',
  '| | 500 nodes | 2,000 nodes |',
  '|---|---|---|',
  `| open → first render | ${b.open500.firstRenderMs} ms | ${b.open2000.firstRenderMs} ms |`,
  `| open → validated | ${b.open500.validatedMs} ms | ${b.open2000.validatedMs} ms |`,
  `| nodes drawn at the start view (zoom) | ${b.open500.drawnAtStart} (${b.open500.startZoom}) | ${b.open2000.drawnAtStart} (${b.open2000.startZoom}) |`,
  `| pan, start view: frame median / p95 | ${fr(b.open500.panAtStart)} | ${fr(b.open2000.panAtStart)} |`,
  `| wheel zoom, start view | ${fr(b.open500.zoomAtStart)} | ${fr(b.open2000.zoomAtStart)} |`,
  `| pan at zoom 0.3 | ${fr(b.open500.panAt03)} | ${fr(b.open2000.panAt03)} |`,
  `| fit all (${b.open2000.fitAll.overview ? 'overview' : 'DOM'}) → drawn | ${b.open500.fitAll.ms} ms | ${b.open2000.fitAll.ms} ms |`,
  `| pan, all in view | ${fr(b.open500.panFitAll)} | ${fr(b.open2000.panFitAll)} |`,
  `| wheel zoom, all in view | ${fr(b.open500.zoomFitAll)} | ${fr(b.open2000.zoomFitAll)} |`,
  `| JS heap with it open | ${b.open500.memory.jsHeapMB} MB | ${b.open2000.memory.jsHeapMB} MB |`,
  '',
  `2,000 nodes without positions, laid out by ELK on open, to first render: ${b.layout2000.openLaidOutMs} ms.`,
  `Sample open, idle: JS heap ${b.sampleIdle.jsHeapMB} MB, Chromium renderer RSS ${b.sampleIdle.rendererRssMB} MB; after the large workflows: ${b.sampleAfterLarge.jsHeapMB} MB.`,
  `Built app, sample open, idle: ${a.processes.length} processes, RSS ${mb(rss)} MB (PSS ${mb(pss)} MB): ` +
    a.processes.map((p) => `${p.name} ${mb(p.rss_kb)} MB`).join(', ') + '.',
];
fs.writeFileSync(`${art}/bench-editor.md`, lines.join('\n') + '\n');
console.log(lines.join('\n'));
EOF
