#!/usr/bin/env bash
# Installs, builds and starts Sandscope against a local real open-terminal server:
# the pinned version from the virtualenv, on 127.0.0.1 with a freshly generated key,
# in multi-user mode when running as root (else single-user), started and checked by
# scripts/local-server.sh. The key reaches the app through an owner-only file, never
# through the command line. Without ANTHROPIC_API_KEY it also starts the demo model.
#   scripts/run-local.sh [--user ID] [--flavour qt5|qt6]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# cron, containers and `su` without a login shell may leave HOME unset.
HOME=${HOME:-$(getent passwd "$(id -un)" | cut -d: -f6)}
export HOME
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
# Without an Anthropic key (none in the environment, none stored for this server's runs: a new
# server has none) the scripted model server of tests/model_server is started as the demo model,
# and the window offers it through SANDSCOPE_DEMO_MODEL_URL (app/claude/demomodel.h).
server_args=(--state "$state" --user "$user")
if [ -z "${ANTHROPIC_API_KEY:-}" ]; then
  server_args+=(--demo-model)
fi
# Starts the server with its own account's environment and checks the first /execute as
# the user; on failure it prints the server log's last lines and nothing opens.
./scripts/local-server.sh "${server_args[@]}"
# shellcheck source=/dev/null  # written by local-server.sh: NAME=VALUE lines
. "$state/server.env"
trap 'kill "$SERVER_PID" ${DEMO_MODEL_PID:+"$DEMO_MODEL_PID"} 2>/dev/null || true' EXIT

args=()
if [ "$MULTI_USER" = true ]; then
  # Root in the sandbox is root here: Cleanup and the all-users views use `sudo -n`.
  args=(--user "$user" --admin-command "sudo -n")
fi
# A local server has no /opt/cleanup.sh: Cleanup runs the copy Sandscope ships
# (SANDSCOPE_CLEANUP_SCRIPT=shipped); the demo model is named by SANDSCOPE_DEMO_MODEL_URL.
app_env=(env SANDSCOPE_CLEANUP_SCRIPT=shipped)
if [ -n "$DEMO_MODEL_URL" ]; then
  app_env+=(SANDSCOPE_DEMO_MODEL_URL="$DEMO_MODEL_URL")
fi

display_args=()
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "No display: starting under xvfb-run" >&2
  display_args=(xvfb-run -a)
fi
"${app_env[@]}" "${display_args[@]}" "build/$flavour/ui/sandscope" --server "$SERVER_URL" \
  --api-key-file "$state/api-key" "${args[@]}"
