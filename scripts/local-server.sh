#!/usr/bin/env bash
# Starts the local real open-terminal server that scripts/run-local.sh connects to, and checks
# that it serves the first request before anything opens a window:
#   scripts/local-server.sh --state DIR [--user ID] [--demo-model] [--prefix P]
# The server runs in the background with an environment set completely (its account's USER,
# LOGNAME and HOME: open-terminal 0.14 adds "$USER" to every new account's group and fails
# the first request of a shell without USER), on 127.0.0.1 with a fresh key in DIR/api-key
# (owner-only). The first /execute as the user must succeed; otherwise the server log's last
# lines are printed and the script exits 1. With --demo-model it also starts the scripted
# model server of tests/model_server. DIR/server.env then names what runs:
#   SERVER_URL, SERVER_PID, MULTI_USER, DEMO_MODEL_URL and DEMO_MODEL_PID (empty without one).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=
user=demo
demo=false
prefix=sandscope_
usage="usage: $0 --state DIR [--user ID] [--demo-model] [--prefix ACCOUNT_PREFIX]"
while [ $# -gt 0 ]; do
  case $1 in
    --state) state=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --demo-model) demo=true; shift ;;
    --prefix) prefix=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[ -n "$state" ] || { echo "$usage" >&2; exit 2; }

# shellcheck source=/dev/null  # plain NAME=VALUE pins
. "$here/sandbox/versions.env"
# The account this script runs as, whatever the shell's environment says (USER and LOGNAME are
# unset under cron, in containers and after su without a login shell; HOME may be another's).
account=$(id -un)
account_home=$(getent passwd "$account" | cut -d: -f6)
account_home=${account_home:-${HOME:-/}}
cache=${SANDSCOPE_CACHE:-$account_home/.cache/sandscope}
server_bin=$cache/ot-$OPEN_TERMINAL_VERSION/bin/open-terminal
[ -x "$server_bin" ] || { echo "open-terminal $OPEN_TERMINAL_VERSION is not installed in $cache (run scripts/install-deps.sh)" >&2; exit 1; }

mkdir -p "$state" && chmod 700 "$state"
keyfile=$state/api-key
(umask 077 && head -c 36 /dev/urandom | base64 | tr '+/' '-_' > "$keyfile")
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
multi=false
if [ "$(id -u)" -eq 0 ] && command -v sudo >/dev/null; then
  multi=true
fi

log=$state/server.log
pids=()
fail() {
  echo "$1" >&2
  if [ -s "$log" ]; then
    echo "Last lines of the server log ($log):" >&2
    tail -n 20 "$log" >&2
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  exit 1
}

echo "Starting open-terminal $OPEN_TERMINAL_VERSION on 127.0.0.1:$port as $account (multi-user: $multi)"
# Exported in a subshell, not given to env(1): the key must never be an argument.
(
  export USER="$account" LOGNAME="$account" HOME="$account_home"
  OPEN_TERMINAL_API_KEY=$(cat "$keyfile")
  export OPEN_TERMINAL_API_KEY OPEN_TERMINAL_MULTI_USER=$multi
  export OPEN_TERMINAL_USER_PREFIX="$prefix" OPEN_TERMINAL_LOG_DIR="$state/logs"
  exec setsid "$server_bin" run --host 127.0.0.1 --port "$port"
) </dev/null >"$log" 2>&1 &
server=$!
pids+=("$server")
url=http://127.0.0.1:$port
for _ in $(seq 150); do
  curl -fsS "$url/health" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || fail "open-terminal exited before it answered /health."
  sleep 0.2
done
curl -fsS "$url/health" >/dev/null 2>&1 || fail "open-terminal did not answer /health within 30 s."

# The first request as the user: in multi-user mode it creates the account, which is where a
# server without its own USER fails (HTTP 500). The key goes through a header file, never argv.
headers=$state/request-headers
(umask 077 && printf 'Authorization: Bearer %s\nX-User-Id: %s\nContent-Type: application/json\n' \
  "$(cat "$keyfile")" "$user" > "$headers")
response=$(curl -sS -o "$state/first-execute.json" -w '%{http_code}' -H @"$headers" \
  -d '{"command":"id -un"}' "$url/execute?wait=20" 2>&1) || response="no answer ($response)"
rm -f "$headers"
[ "$response" = 200 ] || fail "The first request (/execute as $user) failed: HTTP $response: $(head -c 300 "$state/first-execute.json" 2>/dev/null)"
python3 - "$state/first-execute.json" <<'EOF' || fail "The first request (/execute as $user) did not run: $(head -c 300 "$state/first-execute.json")"
import json, sys
process = json.load(open(sys.argv[1]))
sys.exit(0 if process.get("status") == "done" and process.get("exit_code") == 0 else 1)
EOF

model_url=
model_pid=
if $demo; then
  model_out=$state/model-server.out
  setsid python3 "$here/tests/model_server/scripted_model_server.py" --host 127.0.0.1 \
    </dev/null >"$model_out" 2>"$state/model-server.log" &
  model_pid=$!
  pids+=("$model_pid")
  for _ in $(seq 75); do
    grep -q '^LISTENING ' "$model_out" 2>/dev/null && break
    kill -0 "$model_pid" 2>/dev/null || { log=$state/model-server.log; fail "The demo model server exited."; }
    sleep 0.2
  done
  model_port=$(sed -n 's/^LISTENING //p' "$model_out")
  [ -n "$model_port" ] || { log=$state/model-server.log; fail "The demo model server did not start within 15 s."; }
  model_url=http://127.0.0.1:$model_port
  echo "Demo model (scripted, not Claude) on $model_url"
fi

cat > "$state/server.env" <<EOF
SERVER_URL=$url
SERVER_PID=$server
MULTI_USER=$multi
DEMO_MODEL_URL=$model_url
DEMO_MODEL_PID=$model_pid
EOF
echo "open-terminal answers as $user: $url"
