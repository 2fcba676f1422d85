#!/usr/bin/env bash
# Installs, builds and starts Sandscope against a local real open-terminal server:
# the pinned version from the virtualenv, on 127.0.0.1 with a freshly generated key,
# in multi-user mode when running as root (else single-user). The key reaches the app
# through an owner-only file, never through the command line.
#   scripts/run-local.sh [--user ID] [--flavour qt5|qt6]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
user=demo
flavour=qt5
while [ $# -gt 0 ]; do
  case $1 in
    --user) user=$2; shift 2 ;;
    --flavour) flavour=$2; shift 2 ;;
    *) echo "usage: $0 [--user ID] [--flavour qt5|qt6]" >&2; exit 2 ;;
  esac
done

./scripts/install-deps.sh
# shellcheck source=/dev/null  # plain NAME=VALUE pins
. sandbox/versions.env
cmake --preset "$flavour" >/dev/null
cmake --build --preset "$flavour" --target sandscope -j "$(nproc)"

state=${XDG_RUNTIME_DIR:-$HOME/.cache/sandscope}/local-server
mkdir -p "$state" && chmod 700 "$state"
keyfile=$state/api-key
(umask 077 && head -c 36 /dev/urandom | base64 | tr '+/' '-_' > "$keyfile")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

multi=false
args=()
if [ "$(id -u)" -eq 0 ] && command -v sudo >/dev/null; then
  multi=true
  args=(--user "$user")
fi
cache=${SANDSCOPE_CACHE:-$HOME/.cache/sandscope}
echo "Starting open-terminal $OPEN_TERMINAL_VERSION on 127.0.0.1:$port (multi-user: $multi)"
OPEN_TERMINAL_API_KEY=$(cat "$keyfile") OPEN_TERMINAL_MULTI_USER=$multi \
OPEN_TERMINAL_USER_PREFIX=sandscope_ OPEN_TERMINAL_LOG_DIR="$state/logs" \
  "$cache/ot-$OPEN_TERMINAL_VERSION/bin/open-terminal" run --host 127.0.0.1 --port "$port" \
  >"$state/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || { cat "$state/server.log" >&2; exit 1; }
  sleep 0.2
done

display_args=()
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "No display: starting under xvfb-run" >&2
  display_args=(xvfb-run -a)
fi
"${display_args[@]}" "build/$flavour/ui/sandscope" --server "http://127.0.0.1:$port" \
  --api-key-file "$keyfile" "${args[@]}"
