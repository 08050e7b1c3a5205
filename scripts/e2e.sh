#!/usr/bin/env bash
# End-to-end test: `wails dev` under a private Xvfb display serves the app
# with live Go bindings on http://localhost:34115; the system Chromium
# (playwright-core) drives it. Screenshots go to artifacts/.
#
# The app runs with private XDG_CONFIG_HOME and XDG_DATA_HOME (temporary
# directories) and WEFT_KEYRING=off, so it never touches the user's settings,
# chats or autosaves. Its settings point at the fake LLM server (llmtest's
# fakellm), which the specs script through its control endpoints.
#
# Usage: scripts/e2e.sh   (WEFT_E2E_SPECS="tests/run.test.mjs" runs some specs only; needs: xvfb, chromium, wails CLI, npm deps;
# scripts/deps.sh test installs them). WEFT_E2E_PORT picks another port for
# the dev server than 34115 (to run beside another `wails dev`).
#        scripts/e2e.sh --restart-app   (for specs: stops the running
# `wails dev` and starts it again with the same environment; needs the
# WEFT_E2E_SCRATCH that scripts/e2e.sh exports)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$(go env GOPATH)/bin:$PATH"
PORT=${WEFT_E2E_PORT:-34115}
ART="$ROOT/artifacts"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_app LOG: starts `wails dev` in its own process group (so that it,
# Vite and the Go app all stop together), records the group in
# $SCRATCH/dev.pgid and waits until the app answers. -m: never `go mod
# tidy`; -s: Vite serves the frontend, no build; -skipbindings: the frontend
# calls Go through frontend/src/gen/bindings.ts (make types), not through
# bindings Wails would generate.
start_app() {
  local log=$1
  setsid wails dev -tags webkit2_41 -m -nosyncgomod -s -skipbindings -noreload -nogorebuild -nocolour \
    -devserver "localhost:$PORT" -loglevel Warning -viteservertimeout 60 >"$log" 2>&1 </dev/null &
  local pgid=$!
  echo "$pgid" >"$SCRATCH/dev.pgid"
  echo "e2e: waiting for http://localhost:$PORT (log: $log)"
  for _ in $(seq 1 600); do
    if ! kill -0 "$pgid" 2>/dev/null; then
      echo "e2e: wails dev exited early:" >&2
      tail -40 "$log" >&2
      return 1
    fi
    if grep -q "To develop in the browser" "$log" && port_open "$PORT"; then
      return 0
    fi
    sleep 0.5
  done
  echo "e2e: wails dev did not come up within 300s" >&2
  tail -40 "$log" >&2
  return 1
}

# stop_app stops the process group recorded by start_app and waits until the
# port is free again.
stop_app() {
  local pgid
  pgid=$(cat "$SCRATCH/dev.pgid" 2>/dev/null || true)
  [ -n "$pgid" ] || return 0
  kill -TERM -- "-$pgid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$pgid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.1; done
  for _ in $(seq 1 100); do port_open "$PORT" || break; sleep 0.1; done
  rm -f "$SCRATCH/dev.pgid"
}

if [ "${1:-}" = "--restart-app" ]; then
  SCRATCH=${WEFT_E2E_SCRATCH:?--restart-app is for specs run by scripts/e2e.sh}
  n=$(($(cat "$SCRATCH/restarts" 2>/dev/null || echo 0) + 1))
  echo "$n" >"$SCRATCH/restarts"
  t0=$(date +%s)
  stop_app
  start_app "$ART/e2e-wails-dev-restart$n.log"
  echo "e2e: app restarted in $(($(date +%s) - t0))s"
  exit 0
fi

START=$(date +%s)
mkdir -p "$ART"
LOG="$ART/e2e-wails-dev.log"

SCRATCH=$(mktemp -d /tmp/weft-e2e.XXXXXX)
XVFB_PID=""
FAKE_PID=""

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
  stop_app
  if [ -n "${LOCAL_PID:-}" ]; then
    kill "$LOCAL_PID" 2>/dev/null || true
    wait "$LOCAL_PID" 2>/dev/null || true
  fi
  if [ -n "$FAKE_PID" ]; then
    kill "$FAKE_PID" 2>/dev/null || true
    wait "$FAKE_PID" 2>/dev/null || true
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

if port_open "$PORT"; then
  echo "e2e: port $PORT is already in use (another wails dev?); stop it first" >&2
  exit 2
fi

# Private settings, chats and autosaves. Go's own settings file lives under
# XDG_CONFIG_HOME too, so pin it first; the WEFT_LLM_* overrides would point
# the app elsewhere.
export GOENV="$(go env GOENV)"
export XDG_CONFIG_HOME="$SCRATCH/config" XDG_DATA_HOME="$SCRATCH/data" XDG_STATE_HOME="$SCRATCH/state"
export WEFT_KEYRING=off
unset WEFT_LLM_BASE_URL WEFT_LLM_MODEL WEFT_LLM_API_KEY WEFT_MAX_REPAIR_ATTEMPTS
mkdir -p "$XDG_CONFIG_HOME/weft" "$XDG_DATA_HOME"

# The fake LLM: an OpenAI-compatible server the specs script over HTTP.
echo "e2e: starting the fake LLM"
go build -o "$SCRATCH/fakellm" ./backend/llm/llmtest/cmd/fakellm
FAKE_KEY=sk-e2e-fake-0123456789
"$SCRATCH/fakellm" --addr 127.0.0.1:0 --api-key "$FAKE_KEY" >"$SCRATCH/fakellm.url" 2>"$ART/e2e-fakellm.log" </dev/null &
FAKE_PID=$!
FAKE_URL=""
for _ in $(seq 1 100); do
  FAKE_URL=$(head -n1 "$SCRATCH/fakellm.url" 2>/dev/null || true)
  [ -n "$FAKE_URL" ] && break
  kill -0 "$FAKE_PID" 2>/dev/null || break
  sleep 0.1
done
[ -n "$FAKE_URL" ] || { echo "e2e: the fake LLM did not start:" >&2; cat "$ART/e2e-fakellm.log" >&2; exit 1; }
echo "e2e: fake LLM at $FAKE_URL"

# A second one without a key, as a local model server (Ollama and the like)
# for the first-run setup to find: the app probes it instead of the usual ports.
"$SCRATCH/fakellm" --addr 127.0.0.1:0 --echo --quiet --models "local-llama,local-qwen" >"$SCRATCH/localllm.url" 2>>"$ART/e2e-fakellm.log" </dev/null &
LOCAL_PID=$!
LOCAL_URL=""
for _ in $(seq 1 100); do
  LOCAL_URL=$(head -n1 "$SCRATCH/localllm.url" 2>/dev/null || true)
  [ -n "$LOCAL_URL" ] && break
  sleep 0.1
done
[ -n "$LOCAL_URL" ] || { echo "e2e: the local fake LLM did not start" >&2; exit 1; }
export WEFT_LOCAL_MODEL_SERVERS="Local test server=$LOCAL_URL"

SETTINGS="$XDG_CONFIG_HOME/weft/settings.json"
cat >"$SETTINGS" <<EOF
{
  "max_repair_attempts": 3,
  "llm": { "base_url": "$FAKE_URL", "model": "fake-model", "api_key": "$FAKE_KEY", "timeout_s": 30 },
  "features": { "allow_ai_transforms": true, "allow_agent_steps": false },
  "mcp_servers": {},
  "run": { "default_retries": 2, "retention_runs": 50 }
}
EOF
chmod 600 "$SETTINGS"

# A private X display: the first free number from 99 up.
DISPLAY_NUM=99
while [ -e "/tmp/.X${DISPLAY_NUM}-lock" ] || [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ]; do
  DISPLAY_NUM=$((DISPLAY_NUM + 1))
done
Xvfb ":$DISPLAY_NUM" -screen 0 1440x900x24 -nolisten tcp >"$ART/e2e-xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ] && break; sleep 0.1; done
export DISPLAY=":$DISPLAY_NUM"

# This machine's scheduler, as the app sees it: a fake crontab keeping its
# table in a file (the schedules spec runs the entries it installs).
export WEFT_CRONTAB_TAB="$SCRATCH/crontab.tab"
cat >"$SCRATCH/crontab" <<CRONTAB
#!/bin/sh
if [ "\$1" = -l ]; then [ -f "$WEFT_CRONTAB_TAB" ] || { echo "no crontab for e2e" >&2; exit 1; }; cat "$WEFT_CRONTAB_TAB"; exit 0; fi
cat >"$WEFT_CRONTAB_TAB"
CRONTAB
chmod +x "$SCRATCH/crontab"
export WEFT_SCHEDULER="cron:$SCRATCH/crontab"

# The command line (the desktop binary's, without the GUI): `weft trust`.
echo "e2e: building the command line"
CGO_ENABLED=0 go build -o "$SCRATCH/bin/weft" ./backend/cmd/weft
export WEFT_CLI="$SCRATCH/bin/weft"

echo "e2e: starting wails dev on $DISPLAY"
start_app "$LOG"
echo "e2e: app up after $(($(date +%s) - START))s"

for f in invalid pipeline empty; do cp "e2e/fixtures/$f.json" "$SCRATCH/$f.json"; done
# The specs' workflow files are the project's own, written into the scratch
# folder: trusted there as a person's CI trusts a checkout (`weft trust`,
# with the app's XDG folders). Files Weft did not write are reviewed before
# they run; trust.test.mjs reviews some in a folder outside this one.
"$WEFT_CLI" trust "$SCRATCH"
export WEFT_URL="http://localhost:$PORT" WEFT_INVALID="$SCRATCH/invalid.json" WEFT_ARTIFACTS="$ART"
export WEFT_PIPELINE="$SCRATCH/pipeline.json" WEFT_EMPTY="$SCRATCH/empty.json"
export WEFT_FAKE_LLM="$FAKE_URL" WEFT_FAKE_KEY="$FAKE_KEY" WEFT_SETTINGS="$SETTINGS" WEFT_E2E_SCRATCH="$SCRATCH"
export WEFT_RESTART="$ROOT/scripts/e2e.sh --restart-app" WEFT_E2E_PORT="$PORT"
(cd e2e && node --test --test-concurrency=1 --test-reporter=spec ${WEFT_E2E_SPECS:-tests/})
