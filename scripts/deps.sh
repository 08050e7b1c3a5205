#!/usr/bin/env bash
# Installs what building and testing Weft needs on Debian/Ubuntu, skipping
# whatever is already there. Safe to run again. Usage: scripts/deps.sh [build|test]
set -euo pipefail
cd "$(dirname "$0")/.."

WAILS_VERSION=v2.16.0   # @latest resolves v2.9.2, which does not build with Go 1.26
STATICCHECK_VERSION=0.8.2   # staticcheck 2026.2.2, built for Go 1.26 (make vet)
MODE=${1:-test}

APT_PKGS=(libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config gcc)
if [ "$MODE" = test ]; then
  # systemd: systemd-analyze verify loads the schedules' units in the tests
  # (nothing is installed into systemd); util-linux: flock, in cron lines.
  APT_PKGS+=(xvfb xauth xdotool imagemagick chromium systemd util-linux)
fi

# Outputs are captured before they are matched: under pipefail, `cmd |
# grep -q` fails when grep exits at the first match and cmd gets SIGPIPE.
missing=()
for p in "${APT_PKGS[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

command -v go >/dev/null || { echo "deps: Go is required (https://go.dev/dl/); not found on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "deps: Node.js and npm are required; not found on PATH" >&2; exit 1; }

GOBIN_DIR="$(go env GOPATH)/bin"
have=$("$GOBIN_DIR/wails" version 2>/dev/null || true)
if [[ "$have" != *"${WAILS_VERSION}"* ]]; then
  echo "deps: installing Wails CLI ${WAILS_VERSION}"
  go install "github.com/wailsapp/wails/v2/cmd/wails@${WAILS_VERSION}"
fi
if [ "$MODE" = test ]; then
  have=$("$GOBIN_DIR/staticcheck" -version 2>/dev/null || true)
  if [[ "$have" != *"(${STATICCHECK_VERSION})"* ]]; then
    echo "deps: installing staticcheck ${STATICCHECK_VERSION}"
    go install "honnef.co/go/tools/cmd/staticcheck@v${STATICCHECK_VERSION}"
  fi
fi

npm_install() {
  local dir=$1
  [ -f "$dir/package.json" ] || return 0
  # Reinstall only when the lock file changed since the last install.
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "deps: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
npm_install frontend
if [ "$MODE" = test ]; then
  npm_install e2e
  npm_install testdata/mcp
fi
echo "deps: ok"
