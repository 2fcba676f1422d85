#!/usr/bin/env bash
# Where sandbox/cleanup.sh spends its time when executing a large plan: generates HOMES homes with
# CHATS expired chat folders and CHATS expired sessions each (the layout of bench_cleanup.cpp: a
# session per chat in its own project, with a sub-agent file), makes the dry run (scan, decisions,
# report), then executes its plan with CLEANUP_TEST_TIMING_FILE set, and prints the total and the
# time of each phase of the deletion step (move into quarantine and check again, put back,
# write the records and delete); the rest is scanning again and deciding. Needs root and python3.
# Target: executing 50,000 items <= 300 s.
#   Usage: bench/bench_cleanup_phases.sh [homes] [chats] [script]   (default 500 50: 50,000 items)
set -euo pipefail
homes=${1:-500} chats=${2:-50}
script=${3:-$(dirname -- "$(realpath -- "$0")")/../sandbox/cleanup.sh}
[[ $homes =~ ^[1-9][0-9]*$ && $chats =~ ^[1-9][0-9]*$ ]] || {
    echo "usage: $0 [homes] [chats] [script]" >&2
    exit 2
}
((EUID == 0)) || { echo "$0: executing a plan needs root" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
python3 - "$work/home" "$homes" "$chats" <<'PY'
import os, sys, time
root, homes, chats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
old = time.time() - 200 * 86400
transcript = b'{"type":"user","message":"hello"}\n' * 20
def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)
    os.utime(path, (old, old))
for h in range(homes):
    home = f"{root}/user{h}"
    os.makedirs(home + "/.claude/projects")
    for c in range(chats):
        chat = f"{home}/chat-{c}"
        os.mkdir(chat)
        write(chat + "/notes.md", b"notes\n")
        write(chat + "/data.txt", b"x" * 2000)
        os.utime(chat, (old, old))
        project = f"{home}/.claude/projects/-home-user{h}-chat-{c}"
        sid = f"{0x10000000 + h:x}-0000-4000-8000-{0x100000000000 + c:x}"
        os.makedirs(f"{project}/{sid}/subagents")
        write(f"{project}/{sid}.jsonl", transcript)
        write(f"{project}/{sid}/subagents/agent-a.jsonl", transcript)
        for folder in (f"{project}/{sid}/subagents", f"{project}/{sid}"):
            os.utime(folder, (old, old))
PY
items=$((homes * chats * 2))
now() { printf '%s' "$EPOCHREALTIME"; }
t0=$(now)
HOME_ROOT=$work/home CLEANUP_FORMAT=json bash "$script" >"$work/plan.jsonl"
t1=$(now)
HOME_ROOT=$work/home CLEANUP_FORMAT=json CLEANUP_PLAN=$work/plan.jsonl CLEANUP_DRY_RUN=false \
    CLEANUP_TEST_TIMING_FILE=$work/timing bash "$script" >"$work/out.jsonl" || true
t2=$(now)
deleted=$(grep -c '"outcome":"deleted"' "$work/out.jsonl" || true)
awk -v items="$items" -v deleted="$deleted" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" '
    { sum[$1] += $3 - $2; n[$1]++ }
    END {
        execute = t2 - t1; phases = 0
        printf "cleanup.sh, %d items (%d deleted), load %s at the end\n", items, deleted, load
        printf "  dry run (scan, decide, report):        %8.1f s\n", t1 - t0
        printf "  execute, total:                         %8.1f s  (target <= 300 s: %s)\n", execute, execute <= 300 ? "met" : "NOT MET"
        for (p in sum) { printf "    deletion step %-8s (%5d runs):   %8.1f s\n", p, n[p], sum[p]; phases += sum[p] }
        printf "    scanning again, deciding, reporting: %8.1f s\n", execute - phases
    }' "$work/timing" </dev/null
