#!/usr/bin/env bash
# End-to-end test: `wails dev` under a private Xvfb display serves the app
# with live Go bindings on http://localhost:34115; the system Chromium
# (playwright-core) drives it. Screenshots go to artifacts/.
# Usage: scripts/e2e.sh   (needs: xvfb, chromium, wails CLI, npm deps;
# scripts/deps.sh test installs them)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$(go env GOPATH)/bin:$PATH"
export WEFT_KEYRING=off
START=$(date +%s)
ART="$ROOT/artifacts"
mkdir -p "$ART"
LOG="$ART/e2e-wails-dev.log"
PORT=34115

SCRATCH=$(mktemp -d /tmp/weft-e2e.XXXXXX)
XVFB_PID=""
DEV_PGID=""

result() {
  local rc=$1
  if [ "$rc" -eq 0 ]; then
    echo "e2e: PASS ($(($(date +%s) - START))s)"
  else
    echo "e2e: FAIL (exit $rc after $(($(date +%s) - START))s; wails dev log: $LOG)"
  fi
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$DEV_PGID" ]; then
    kill -TERM -- "-$DEV_PGID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$DEV_PGID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$DEV_PGID" 2>/dev/null || true
  fi
  if [ -n "$XVFB_PID" ]; then
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
  fi
  rm -rf "$SCRATCH"
  result "$rc"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need() { command -v "$1" >/dev/null || { echo "e2e: $1 not found (run scripts/deps.sh test)" >&2; exit 2; }; }
need Xvfb
need wails
need node
[ -x /usr/bin/chromium ] || { echo "e2e: /usr/bin/chromium not found (apt-get install chromium)" >&2; exit 2; }

[ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
[ -d e2e/node_modules ] || (cd e2e && npm ci --no-audit --no-fund --loglevel=error)

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "e2e: port $PORT is already in use (another wails dev?); stop it first" >&2
  exit 2
fi

# A private X display: the first free number from 99 up.
DISPLAY_NUM=99
while [ -e "/tmp/.X${DISPLAY_NUM}-lock" ] || [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ]; do
  DISPLAY_NUM=$((DISPLAY_NUM + 1))
done
Xvfb ":$DISPLAY_NUM" -screen 0 1440x900x24 -nolisten tcp >"$ART/e2e-xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ] && break; sleep 0.1; done
export DISPLAY=":$DISPLAY_NUM"

# wails dev in its own process group so that it, Vite and the Go app all stop
# together. -m: never `go mod tidy`; -s: Vite serves the frontend, no build;
# -skipbindings: the committed bindings are used as they are.
echo "e2e: starting wails dev on $DISPLAY (log: $LOG)"
setsid wails dev -tags webkit2_41 -m -nosyncgomod -s -skipbindings -noreload -nogorebuild -nocolour \
  -loglevel Warning -viteservertimeout 60 >"$LOG" 2>&1 </dev/null &
DEV_PGID=$!

echo "e2e: waiting for http://localhost:$PORT"
ready=""
for _ in $(seq 1 600); do
  if ! kill -0 "$DEV_PGID" 2>/dev/null; then
    echo "e2e: wails dev exited early:" >&2
    tail -40 "$LOG" >&2
    exit 1
  fi
  if grep -q "To develop in the browser" "$LOG" && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    ready=1
    break
  fi
  sleep 0.5
done
[ -n "$ready" ] || { echo "e2e: wails dev did not come up within 300s" >&2; tail -40 "$LOG" >&2; exit 1; }
echo "e2e: app up after $(($(date +%s) - START))s"

cp e2e/fixtures/invalid.json "$SCRATCH/invalid.json"
export WEFT_URL="http://localhost:$PORT" WEFT_INVALID="$SCRATCH/invalid.json" WEFT_ARTIFACTS="$ART"
(cd e2e && node --test --test-concurrency=1 --test-reporter=spec tests/)
