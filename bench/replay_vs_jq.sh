#!/usr/bin/env bash
# `sandscope replay FILE --summary --json` against `jq -c .type` and a Python json.loads loop
# on one stream-json capture of about MB megabytes (default 100), built from the captures in
# tests/data with unique ids per copy (bench/make_capture.py). Checks that all three read the
# same number of lines, then prints each one's wall time, CPU time and MB/s and the ratios
# against the targets (>= 1200 MB/s and <= 85 ms CPU for 100 MB; >= 20x jq and >= 13x Python
# in CPU time), each "met" or "NOT MET". Then the same summary of a session transcript of
# about MB megabytes with a sub-agent file per copy (make_capture.py --transcript), in MB/s
# of CPU time over all its files (target >= 500). Targets are reported, never enforced (exit 1
# only when a tool failed or the line counts differ). Each figure is the best of the runs:
# wall and CPU time each their own best, CPU time (user + system) to the microsecond.
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

# Runs a command, its output to $2, and writes "wall user system" (seconds) of it to $1.
cat >"$work/timed.py" <<'PY'
import os, resource, subprocess, sys, time
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.monotonic()
with open(sys.argv[2], "wb") as out, open(sys.argv[3], "wb") as err:
    code = subprocess.call(sys.argv[4:], stdout=out, stderr=err)
wall = time.monotonic() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as times:
    times.write(f"{wall:.6f} {after.ru_utime - before.ru_utime:.6f} "
                f"{after.ru_stime - before.ru_stime:.6f} {after.ru_minflt - before.ru_minflt} "
                f"{after.ru_majflt - before.ru_majflt}\n")
sys.exit(code)
PY

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

# Runs "$@" $runs times; sets best_wall / best_cpu (seconds), best_detail (that run's user and
# system time and page faults: a slow figure from the host shows there, not in user time) and
# lines (from the output).
measure() {
  local kind=$1; shift
  best_wall=""; best_cpu=""; best_detail=""; lines=""
  for _ in $(seq "$runs"); do
    python3 "$work/timed.py" "$work/time" "$work/out" "$work/err" "$@"
    local code=$?
    if [ "$kind" = sandscope ] && [ "$code" -gt 1 ] || [ "$kind" != sandscope ] && [ "$code" -ne 0 ]; then
      echo "$kind failed (exit $code):"; head -5 "$work/err"; return 1
    fi
    # replay exits 1 when the run failed (a figure, not a failure here).
    read -r wall user sys minor major <"$work/time"
    local cpu; cpu=$(python3 -c "print($user + $sys)")
    if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $wall < $best_wall else 1)"; then
      best_wall=$wall
    fi
    if [ -z "$best_cpu" ] || python3 -c "import sys; sys.exit(0 if $cpu < $best_cpu else 1)"; then
      best_cpu=$cpu
      best_detail="user $user s, system $sys s, page faults $minor minor, $major major"
    fi
    case $kind in
      sandscope) lines=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lines"])' "$work/out") ;;
      jq) lines=$(wc -l <"$work/out") ;;
      python) lines=$(cat "$work/out") ;;
    esac
  done
}

measure sandscope "$sandscope" replay "$capture" --summary --json || exit 1
s_wall=$best_wall; s_cpu=$best_cpu; s_lines=$lines; s_detail=$best_detail
measure jq jq -c .type "$capture" || exit 1
j_wall=$best_wall; j_cpu=$best_cpu; j_lines=$lines
measure python python3 "$work/loads.py" "$capture" || exit 1
p_wall=$best_wall; p_cpu=$best_cpu; p_lines=$lines

read -r transcript t_bytes < <(python3 "$here/bench/make_capture.py" --transcript "$here/tests/data" \
  "$work/transcript" "$megabytes") || exit 1
t_main=$(stat -c %s "$transcript")
cat "$work/transcript"/*/subagents/* "$transcript" >/dev/null
measure sandscope "$sandscope" replay "$transcript" --summary --json || exit 1
t_cpu=$best_cpu; t_detail=$best_detail

python3 - "$bytes" "$s_wall" "$s_cpu" "$s_lines" "$j_wall" "$j_cpu" "$j_lines" \
    "$p_wall" "$p_cpu" "$p_lines" "$t_bytes" "$t_main" "$t_cpu" "$s_detail" "$t_detail" <<'PY'
import sys
size = int(sys.argv[1])
rows = [("sandscope replay --summary --json", *sys.argv[2:5]), ("jq -c .type", *sys.argv[5:8]),
        ("python json.loads per line", *sys.argv[8:11])]
t_bytes, t_main, t_cpu = int(sys.argv[11]), int(sys.argv[12]), max(float(sys.argv[13]), 0.001)
mb = size / 1e6
print(f"capture: {mb:.1f} MB, best of the runs (wall clock and CPU time, whole process)")
for name, wall, cpu, lines in rows:
    wall, cpu = max(float(wall), 0.005), float(cpu)
    print(f"  {name:34s} {wall:7.3f} s wall {cpu:7.3f} s CPU {mb / wall:8.1f} MB/s  {lines} lines")
    if name.startswith("sandscope"):
        print(f"    (that run: {sys.argv[14]})")
def verdict(ok):
    return "met" if ok else "NOT MET"
s_wall, s_cpu = max(float(rows[0][1]), 0.005), float(rows[0][2])
scale = 100.0 / mb  # the CPU target is for 100 MB
print(f"  sandscope {mb / s_wall:.0f} MB/s (target >= 1200): {verdict(mb / s_wall >= 1200)}")
print(f"  sandscope CPU {s_cpu * 1000 * scale:.0f} ms per 100 MB (target <= 85): "
      f"{verdict(s_cpu * scale <= 0.085)}")
for (name, _, cpu, _), target in zip(rows[1:], (20, 13)):
    ratio = float(cpu) / max(s_cpu, 0.001)
    print(f"  {ratio:.1f}x {name} in CPU time (target >= {target}x): {verdict(ratio >= target)}")
t_rate = t_bytes / 1e6 / t_cpu
print(f"  sandscope transcript with sub-agents: {t_bytes / 1e6:.1f} MB ({t_main / 1e6:.1f} MB main "
      f"file) in {t_cpu:.3f} s CPU, {t_rate:.0f} MB/s (target >= 500): {verdict(t_rate >= 500)}")
print(f"    (that run: {sys.argv[15]})")
counts = {lines for _, _, _, lines in rows}
if len(counts) != 1:
    print("line counts differ: " + ", ".join(f"{n}={l}" for n, _, _, l in rows))
    sys.exit(1)
print(f"  all three read {counts.pop()} lines")
PY
verdicts=$?

# Where sandscope's CPU time goes (bench/bench_summaryphases.cpp), with the process's own start
# and exit (`sandscope --version`) beside it.
phases=$build/bench/bench_summaryphases
if [ -x "$phases" ]; then
  measure_start() {
    local best=""
    for _ in $(seq "$runs"); do
      python3 "$work/timed.py" "$work/time" "$work/out" "$work/err" "$sandscope" --version || return 1
      read -r _ user sys _ <"$work/time"
      best=$(python3 -c "import sys; c = $user + $sys; b = sys.argv[1]; print(c if not b or c < float(b) else b)" "$best")
    done
    echo "$best"
  }
  start_cpu=$(measure_start) || { echo "sandscope --version failed"; exit 1; }
  "$phases" "$capture" "$runs" >"$work/phases" || { cat "$work/phases"; exit 1; }
  cat "$work/phases"
  python3 - "$start_cpu" "$work/phases" "$s_cpu" <<'PY'
import re, sys
start_ms = float(sys.argv[1]) * 1000
text = open(sys.argv[2]).read()
# Each phase by its label (the bench prints more figures than these three).
def phase(label):
    found = re.search(re.escape(label) + r"\s+([0-9.]+) ms", text)
    if not found:
        sys.exit(f"replay_vs_jq: no '{label}' figure in bench_summaryphases' output")
    return float(found.group(1))
cut = phase("mapped and cut into lines")
decided = phase("+ each line decided as the DOM parser would")
summary = phase("+ the summary (summarizeRunFile)")
whole_ms = float(sys.argv[3]) * 1000
print(f"  process start and exit (sandscope --version)   {start_ms:7.1f} ms")
print(f"  so of the whole process's {whole_ms:.0f} ms: {start_ms + decided:.0f} ms start, exit and "
      f"lines decided before any field is read, {summary - decided:.0f} ms reading the fields "
      f"and counting")
PY
fi
exit "$verdicts"
