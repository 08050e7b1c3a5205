#!/usr/bin/env bash
# Smoke test of the built desktop binary: `wails build` → build/bin/weft,
# started under a private Xvfb display. Passes when the window appears, the
# frontend has loaded the sample (the title becomes "sample.json — Weft",
# which the frontend sets after the Go LoadSample call) and a screenshot is
# not blank. Screenshots go to artifacts/.
# Usage: scripts/smoke.sh   (WEFT_SMOKE_NO_BUILD=1 reuses build/bin/weft)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$(go env GOPATH)/bin:$PATH"
START=$(date +%s)
ART="$ROOT/artifacts"
mkdir -p "$ART"
BIN="$ROOT/build/bin/weft"
MIN_STDDEV=${WEFT_SMOKE_MIN_STDDEV:-0.03}

SCRATCH=$(mktemp -d /tmp/weft-smoke.XXXXXX)
XVFB_PID=""
APP_PGID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$APP_PGID" ]; then
    kill -TERM -- "-$APP_PGID" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 -- "-$APP_PGID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$APP_PGID" 2>/dev/null || true
  fi
  if [ -n "$XVFB_PID" ]; then
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
  fi
  rm -rf "$SCRATCH"
  if [ "$rc" -eq 0 ]; then
    echo "smoke: PASS ($(($(date +%s) - START))s)"
  else
    echo "smoke: FAIL (exit $rc after $(($(date +%s) - START))s; app log: $ART/smoke-app.log)"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need() { command -v "$1" >/dev/null || { echo "smoke: $1 not found (run scripts/deps.sh test)" >&2; exit 2; }; }
need Xvfb
need xdotool
for t in /usr/bin/import /usr/bin/convert; do
  [ -x "$t" ] || { echo "smoke: $t not found (apt-get install imagemagick)" >&2; exit 2; }
done

if [ "${WEFT_SMOKE_NO_BUILD:-}" != 1 ] || [ ! -x "$BIN" ]; then
  need wails
  echo "smoke: building (wails build -tags webkit2_41)"
  # -m: never `go mod tidy`; -nosyncgomod: leave go.mod alone; -skipbindings:
  # the frontend calls Go through frontend/src/gen/bindings.ts (make types).
  wails build -tags webkit2_41 -m -nosyncgomod -skipbindings -nocolour >"$ART/smoke-build.log" 2>&1 || {
    tail -40 "$ART/smoke-build.log" >&2
    exit 1
  }
  echo "smoke: built in $(($(date +%s) - START))s"
  # The runtime wails writes is committed: a build must not change it.
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    stale=$(git status --porcelain -- frontend/wailsjs)
    if [ -n "$stale" ]; then
      echo "smoke: the build changed frontend/wailsjs; commit what wails generated:" >&2
      echo "$stale" >&2
      git diff --stat -- frontend/wailsjs >&2 || true
      exit 1
    fi
  fi
fi
[ -x "$BIN" ] || { echo "smoke: $BIN missing after build" >&2; exit 1; }

# Started with a command, the desktop binary is the command line, with no
# display: what a schedule made in the app runs (`weft run FILE`).
CLI_DIR="$SCRATCH/cli"
mkdir -p "$CLI_DIR"
cat >"$CLI_DIR/hello.json" <<'WF'
{"format": "weft/v1", "id": "smoke-hello", "name": "Smoke hello",
 "nodes": [{"id": "say", "key": "say", "name": "Say", "type": "Tool",
   "params": {"tool": "run_command", "arguments": {"command": "echo hello from the schedule | tee hello.txt"}}}],
 "edges": []}
WF
cli() { env -u DISPLAY -u WAYLAND_DISPLAY XDG_CONFIG_HOME="$CLI_DIR/config" XDG_DATA_HOME="$CLI_DIR/data" XDG_STATE_HOME="$CLI_DIR/state" "$BIN" "$@" </dev/null 2>&1; }
# Weft did not write hello.json: with no terminal to ask on, nothing in it
# runs until it is reviewed.
if cli_out=$(cli run "$CLI_DIR/hello.json" --on-escalate abort); then
  echo "smoke: a workflow file nobody reviewed ran without asking:" >&2; echo "$cli_out" >&2; exit 1
fi
case "$cli_out" in
  *"not written by Weft"*) [ ! -e "$CLI_DIR/hello.txt" ] || { echo "smoke: the refused run ran its step" >&2; exit 1; }
    echo "smoke: a file Weft did not write is refused until reviewed" ;;
  *) echo "smoke: \`weft run\` of a file nobody reviewed did not say why it did not run:" >&2; echo "$cli_out" >&2; exit 1 ;;
esac
# --approve approves what it lists (the checked-in file, as CI would).
cli_out=$(cli run "$CLI_DIR/hello.json" --on-escalate abort --approve) || { echo "smoke: the desktop binary as \`weft run --approve\` failed:" >&2; echo "$cli_out" >&2; exit 1; }
case "$cli_out" in
  *succeeded*) [ -s "$CLI_DIR/hello.txt" ] || { echo "smoke: the run succeeded but its step wrote nothing" >&2; exit 1; }
    echo "smoke: the desktop binary runs a workflow headless (as a schedule does)" ;;
  *) echo "smoke: \`weft run\` through the desktop binary did not succeed:" >&2; echo "$cli_out" >&2; exit 1 ;;
esac

DISPLAY_NUM=99
while [ -e "/tmp/.X${DISPLAY_NUM}-lock" ] || [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ]; do
  DISPLAY_NUM=$((DISPLAY_NUM + 1))
done
Xvfb ":$DISPLAY_NUM" -screen 0 1440x900x24 -nolisten tcp >"$ART/smoke-xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X${DISPLAY_NUM}" ] && break; sleep 0.1; done
export DISPLAY=":$DISPLAY_NUM"

# A scratch home: the app must not read or write the user's settings.
mkdir -p "$SCRATCH/home" "$SCRATCH/config"
HOME="$SCRATCH/home" XDG_CONFIG_HOME="$SCRATCH/config" WEFT_KEYRING=off \
  setsid "$BIN" >"$ART/smoke-app.log" 2>&1 </dev/null &
APP_PGID=$!

wait_for() { # wait_for SECONDS CMD...: retry CMD until it succeeds
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@"; do
    kill -0 "$APP_PGID" 2>/dev/null || { echo "smoke: the app exited:" >&2; tail -30 "$ART/smoke-app.log" >&2; return 1; }
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}
window() { xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1; }
has_window() { [ -n "$(window "$1")" ]; }

wait_for 60 has_window 'Weft' || { echo "smoke: no window named Weft within 60s" >&2; exit 1; }
WID=$(window 'Weft')
echo "smoke: window $WID up after $(($(date +%s) - START))s"
wait_for 60 has_window 'sample\.json' || {
  echo "smoke: the title never showed sample.json (frontend or LoadSample failed): $(xdotool getwindowname "$WID")" >&2
  exit 1
}
echo "smoke: sample loaded: \"$(xdotool getwindowname "$WID")\""

# Give React Flow a moment to lay out and fit, then check the pixels.
stddev=0
for _ in $(seq 1 20); do
  sleep 1
  /usr/bin/import -display "$DISPLAY" -window root "$ART/smoke.png"
  stddev=$(/usr/bin/convert "$ART/smoke.png" -format '%[fx:standard_deviation]' info:)
  awk -v s="$stddev" -v m="$MIN_STDDEV" 'BEGIN { exit !(s > m) }' && break
done
/usr/bin/import -display "$DISPLAY" -window "$WID" "$ART/smoke-window.png" 2>/dev/null || true
echo "smoke: screenshot standard deviation $stddev (need > $MIN_STDDEV): $ART/smoke.png"
awk -v s="$stddev" -v m="$MIN_STDDEV" 'BEGIN { exit !(s > m) }' || { echo "smoke: the screenshot looks blank" >&2; exit 1; }
