#!/usr/bin/env bash
# `sandscope replay FILE --summary --json` against `jq -c .type` and a Python json.loads loop
# on one stream-json capture of about MB megabytes (default 100), built from the captures in
# tests/data with unique ids per copy (bench/make_capture.py). Checks that all three read the
# same number of lines, then prints each one's wall time, CPU time and MB/s and the ratios
# against the targets (>= 700 MB/s and <= 150 ms CPU for 100 MB; >= 7x jq and Python), each
# "met" or "NOT MET". Targets are reported, never enforced (exit 1 only when a tool failed or
# the line counts differ).
#   bench/replay_vs_jq.sh [build-dir] [MB] [runs]   (defaults: build/qt5, 100, 3; best run)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/qt5}
megabytes=${2:-100}
runs=${3:-3}
sandscope=$build/ui/sandscope
[ -x "$sandscope" ] || { echo "replay_vs_jq: $sandscope not built"; exit 0; }
command -v jq >/dev/null || { echo "replay_vs_jq: jq not installed (scripts/install-deps.sh)"; exit 0; }
command -v python3 >/dev/null || { echo "replay_vs_jq: python3 not found"; exit 0; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
capture=$work/capture.jsonl
python3 "$here/bench/make_capture.py" "$here/tests/data" "$capture" "$megabytes" >/dev/null || exit 1
bytes=$(stat -c %s "$capture")
cat "$capture" >/dev/null # in the page cache for every contender

cat >"$work/loads.py" <<'PY'
import json, sys
count = 0
with open(sys.argv[1], "rb") as capture:
    for line in capture:
        if line.strip():
            json.loads(line)
            count += 1
print(count)
PY

# Runs "$@" $runs times; sets best_wall / best_cpu (seconds) and lines (from the output).
measure() {
  local kind=$1; shift
  best_wall=""; best_cpu=""; lines=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >"$work/out" 2>"$work/err"
    local code=$?
    if [ "$kind" = sandscope ] && [ "$code" -gt 1 ] || [ "$kind" != sandscope ] && [ "$code" -ne 0 ]; then
      echo "$kind failed (exit $code):"; head -5 "$work/err"; return 1
    fi
    # time(1) puts "Command exited with non-zero status 1" first when replay says the run
    # failed (exit 1, a figure, not a failure here): the times are its last line.
    read -r wall user sys < <(tail -n 1 "$work/time")
    local cpu; cpu=$(python3 -c "print($user + $sys)")
    if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $wall < $best_wall else 1)"; then
      best_wall=$wall; best_cpu=$cpu
    fi
    case $kind in
      sandscope) lines=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lines"])' "$work/out") ;;
      jq) lines=$(wc -l <"$work/out") ;;
      python) lines=$(cat "$work/out") ;;
    esac
  done
}

measure sandscope "$sandscope" replay "$capture" --summary --json || exit 1
s_wall=$best_wall; s_cpu=$best_cpu; s_lines=$lines
measure jq jq -c .type "$capture" || exit 1
j_wall=$best_wall; j_cpu=$best_cpu; j_lines=$lines
measure python python3 "$work/loads.py" "$capture" || exit 1
p_wall=$best_wall; p_cpu=$best_cpu; p_lines=$lines

python3 - "$bytes" "$s_wall" "$s_cpu" "$s_lines" "$j_wall" "$j_cpu" "$j_lines" \
    "$p_wall" "$p_cpu" "$p_lines" <<'PY'
import sys
size = int(sys.argv[1])
rows = [("sandscope replay --summary --json", *sys.argv[2:5]), ("jq -c .type", *sys.argv[5:8]),
        ("python json.loads per line", *sys.argv[8:11])]
mb = size / 1e6
print(f"capture: {mb:.1f} MB, best of the runs (wall clock, whole process)")
for name, wall, cpu, lines in rows:
    wall, cpu = max(float(wall), 0.005), float(cpu)
    print(f"  {name:34s} {wall:7.3f} s wall {cpu:7.3f} s CPU {mb / wall:8.1f} MB/s  {lines} lines")
def verdict(ok):
    return "met" if ok else "NOT MET"
s_wall, s_cpu = max(float(rows[0][1]), 0.005), float(rows[0][2])
scale = 100.0 / mb  # the CPU target is for 100 MB
print(f"  sandscope {mb / s_wall:.0f} MB/s (target >= 700): {verdict(mb / s_wall >= 700)}")
print(f"  sandscope CPU {s_cpu * 1000 * scale:.0f} ms per 100 MB (target <= 150): "
      f"{verdict(s_cpu * scale <= 0.150)}")
for name, wall, _, _ in rows[1:]:
    ratio = float(wall) / s_wall
    print(f"  {ratio:.1f}x {name} (target >= 7x): {verdict(ratio >= 7)}")
counts = {lines for _, _, _, lines in rows}
if len(counts) != 1:
    print("line counts differ: " + ", ".join(f"{n}={l}" for n, _, _, l in rows))
    sys.exit(1)
print(f"  all three read {counts.pop()} lines")
PY
