#!/usr/bin/env bash
# Installs what is missing, prints the code's layout (scripts/check-layout.py: each room's
# size, the largest files; fails on a loop of includes), then builds and tests every flavour:
#   qt5   Qt 5.15 + KF5 SyntaxHighlighting (the full build on Debian 12 / Ubuntu 24.04, the
#         one packaged): every suite, every integration suite against both server versions
#   qt6   Qt 6 (+ KF6 SyntaxHighlighting when installed): unit, cli, tools and ui, and Qt 6's
#         own network and WebSocket stack against the real primary server (the protocol,
#         terminal and push-follow suites); the other integration suites prove the same core client again,
#         so they run once, in qt5
#   asan  Qt 5 with AddressSanitizer + UndefinedBehaviorSanitizer: unit, cli, tools, ui and the
#         integration suites of the core against the primary server version (without the
#         protocol suite's version matrix, the probe and the widget pages against servers,
#         which qt5 runs)
#         Neither runs the suites of sandbox/cleanup.sh (tst_cleanup_script, _hardening): what
#         they test is bash and awk, the same in every flavour, so they run once, in qt5 (they
#         were 135 s of the two flavours' suites).
#   fuzz  clang + libFuzzer: the stream-json parser, the shell quoting, the redaction and the
#         terminal sanitiser, each for a bounded time
# The qt5 flavour also builds the .deb and checks it (scripts/package.sh: lintian clean, installs,
# runs, purges) and, once every flavour has passed, runs the benchmarks once and prints their
# figures (scripts/bench.sh).
# SANDSCOPE_FLAVOURS="qt6" limits the run; extra arguments go to ctest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

# Each phase's wall time, printed at the end so that growth shows from one run to the next,
# with how busy the cores were meanwhile (from /proc/stat): a phase that leaves them idle is
# one that more parallelism would shorten.
phase_names=() phase_seconds=() phase_busy=() phase_started=$SECONDS phase_current=install
cpu_ticks() { # prints "<busy ticks> <all ticks>" of every core since boot
  local _cpu user nice system idle iowait irq softirq steal _guests
  read -r _cpu user nice system idle iowait irq softirq steal _guests </proc/stat 2>/dev/null ||
    { echo "0 0"; return; }
  local all=$((user + nice + system + idle + iowait + irq + softirq + steal))
  echo "$((all - idle - iowait)) $all"
}
read -r phase_busy_start phase_all_start < <(cpu_ticks)
end_phase() {
  local busy all
  read -r busy all < <(cpu_ticks)
  phase_names+=("$phase_current") phase_seconds+=($((SECONDS - phase_started)))
  if [ $((all - phase_all_start)) -gt 0 ]; then
    phase_busy+=("$(((busy - phase_busy_start) * 100 / (all - phase_all_start)))%")
  else
    phase_busy+=("?")
  fi
  phase_busy_start=$busy phase_all_start=$all
}
phase() {
  end_phase
  phase_current=$1 phase_started=$SECONDS
  echo "=== $1"
}
print_phases() {
  end_phase
  echo "=== phase times (wall clock; cores busy meanwhile)"
  local i
  for i in "${!phase_names[@]}"; do
    printf '  %-40s %5d s  %4s\n' "${phase_names[i]}" "${phase_seconds[i]}" "${phase_busy[i]}"
  done
  printf '  %-40s %5d s\n' "total (the background builds overlap)" "$SECONDS"
}
on_exit() {
  # A failure ends the run: a build still running in the background goes with it.
  if [ -n "${background_pid:-}" ]; then kill -- "-$background_pid" 2>/dev/null || true; fi
  print_phases
}
trap on_exit EXIT

./scripts/install-deps.sh
# shellcheck source=/dev/null  # plain NAME=VALUE pins
. sandbox/versions.env

phase layout
python3 scripts/check-layout.py

jobs=$(nproc 2>/dev/null || echo 2)
# The sanitizer build is the longest of the background builds (below): built first, it is done
# by the end of the Qt 5 suites (measured: 610 s beside their 712 s; built after qt6 it still
# had 263 s to go when they ended), and the Qt 6 build finishes beside the sanitizer suites,
# which mostly wait on servers too, instead of the run waiting for a build in between.
flavours=${SANDSCOPE_FLAVOURS:-qt5 asan qt6 fuzz}
read -r -a flavour_list <<<"$flavours"

build_flavour() {
  cmake --preset "$1" >/dev/null
  local targets=()
  if [ "$1" = fuzz ]; then
    # Only the fuzzers are run in this flavour: the app and the other tests are built by the
    # flavours above.
    targets=(--target fuzz_runparser fuzz_shellquote fuzz_redaction fuzz_terminalsafe)
  fi
  cmake --build --preset "$1" -j "$jobs" "${targets[@]}"
}

# The integration suites mostly wait on servers and the CLI (about half a core of the two), so
# while the first flavour's suites run, every other flavour is built, one after the other in a
# single background job at the lowest priority: the suites keep the CPU they ask for and the
# builds take what they leave, and what is left of them goes on beside the package and the next
# flavour's suites. Built there, the sanitizer build no longer holds up the run after the Qt 6
# suites (333 s of a 2,400 s run waited for it). Each log is printed when its flavour is waited
# for; the benchmarks run last, when every build has ended, and never beside one.
background_pid='' background_started=0
declare -A built=()
start_background_builds() {
  background_started=$SECONDS
  mkdir -p build
  local flavour
  for flavour in "$@"; do rm -f "build/$flavour-build.status"; done
  export -f build_flavour
  export jobs
  # A session of its own (setsid does not fork here), so that a failure ends the whole job.
  # Each build leaves "<exit status> <seconds>" in build/<flavour>-build.status; the first
  # that fails ends the job. Where the kernel groups each session for the scheduler
  # (kernel.sched_autogroup_enabled), a nice value weighs only within the session: the new
  # session's group itself is set to 19, else it takes half the CPU from the suites whenever
  # both want it.
  # shellcheck disable=SC2016  # the inner shell's own variables
  setsid nice -n 19 bash -c '
    if [ -w /proc/self/autogroup ]; then echo 19 >/proc/self/autogroup 2>/dev/null || true; fi
    for flavour; do
      started=$SECONDS status=0
      build_flavour "$flavour" >"build/$flavour-build.log" 2>&1 || status=$?
      echo "$status $((SECONDS - started))" >"build/$flavour-build.status"
      [ "$status" -eq 0 ] || exit "$status"
    done' build "$@" &
  background_pid=$!
  echo "=== $*: configure and build one after the other, in the background (build/<flavour>-build.log)"
}
# Waits for one flavour of the background job (the job reports each flavour as it ends).
wait_background_build() {
  local flavour=$1 status seconds
  [ -z "${built[$flavour]:-}" ] || return 0
  while [ ! -f "build/$flavour-build.status" ] && kill -0 "$background_pid" 2>/dev/null; do
    sleep 1
  done
  if [ -f "build/$flavour-build.status" ]; then
    read -r status seconds <"build/$flavour-build.status"
  else
    status=1 seconds=$((SECONDS - background_started))
  fi
  tail -n 5 "build/$flavour-build.log" 2>/dev/null || true
  phase_names+=("($flavour: build, in the background)")
  phase_seconds+=("$seconds") phase_busy+=("")
  if [ "$status" -ne 0 ]; then
    cat "build/$flavour-build.log" 2>/dev/null || true
    echo "=== $flavour: build failed"
    exit "$status"
  fi
  built[$flavour]=1
}
all_background_builds_done() {
  local flavour
  for flavour in "${flavour_list[@]:1}"; do wait_background_build "$flavour"; done
  if [ -n "$background_pid" ]; then
    wait "$background_pid" || true # each build's status was read above
    background_pid=''
  fi
}

for i in "${!flavour_list[@]}"; do
  flavour=${flavour_list[i]}
  if [ "$i" -eq 0 ]; then
    phase "$flavour: configure and build"
    build_flavour "$flavour"
  elif [ -z "${built[$flavour]:-}" ]; then
    if [ ! -f "build/$flavour-build.status" ]; then phase "$flavour: waiting for its build"; fi
    wait_background_build "$flavour"
  fi
  phase "$flavour: test"
  if [ "$i" -eq 0 ] && [ "${#flavour_list[@]}" -gt 1 ]; then
    start_background_builds "${flavour_list[@]:1}"
  fi
  # The presets build only the integration suites a flavour runs (SANDSCOPE_INTEGRATION_TESTS).
  # One suite more than there are cores: most integration suites spend their time waiting on
  # servers and on the CLI, and a core left idle while they wait is time the run waits too.
  test_jobs=$((jobs + 1))
  script_suites='^tst_cleanup_(script|hardening)$' # run in qt5 only (above)
  case $flavour in
    qt6)
      if [ $# -gt 0 ]; then # a selection of the caller's
        ctest --preset "$flavour" -j "$test_jobs" "$@"
      else # the protocol and terminal suites against the primary version only, in one pass
        ctest --preset "$flavour" -j "$test_jobs" \
          -E "^integration_[a-z]+_${OPEN_TERMINAL_LEGACY_VERSION}(_single|_multi)?\$|${script_suites}"
      fi
      ;;
    asan)
      # Sanitizers need one pass over the client code: the server-version matrix of the
      # protocol suite, the legacy versions of the per-version suites and the isolation probe
      # (the same client calls again) are left to qt5.
      ctest --preset "$flavour" -j "$test_jobs" "$@" \
        -E "integration_openterminal_|integration_[a-z]+_${OPEN_TERMINAL_LEGACY_VERSION}|^tst_probe(denials)?\$|${script_suites}"
      ;;
    *) ctest --preset "$flavour" -j "$test_jobs" "$@" ;;
  esac
  if [ "$flavour" = qt5 ]; then
    phase "$flavour: package"
    ./scripts/package.sh "build/$flavour"
  fi
done
all_background_builds_done
# Last, when no build runs any more: the builds left over after the Qt 5 suites go on beside
# the package and the next flavours' suites instead of holding up the run before the figures.
if [[ " $flavours " == *" qt5 "* ]]; then
  phase "qt5: benchmarks"
  echo "(figures, not pass/fail)"
  ./scripts/bench.sh build/qt5
fi
echo "=== all flavours passed: $flavours"
