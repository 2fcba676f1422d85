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
#   fuzz  clang + libFuzzer: the stream-json parser, the shell quoting, the redaction and the
#         terminal sanitiser, each for a bounded time
# The qt5 flavour also runs the benchmarks once and prints their figures (scripts/bench.sh),
# then builds the .deb and checks it (scripts/package.sh: lintian clean, installs, runs, purges).
# SANDSCOPE_FLAVOURS="qt6" limits the run; extra arguments go to ctest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

# Each phase's wall time, printed at the end so that growth shows from one run to the next.
phase_names=() phase_seconds=() phase_started=$SECONDS phase_current=install
phase() {
  phase_names+=("$phase_current") phase_seconds+=($((SECONDS - phase_started)))
  phase_current=$1 phase_started=$SECONDS
  echo "=== $1"
}
print_phases() {
  phase_names+=("$phase_current") phase_seconds+=($((SECONDS - phase_started)))
  echo "=== phase times (wall clock)"
  local i
  for i in "${!phase_names[@]}"; do
    printf '  %-40s %5d s\n' "${phase_names[i]}" "${phase_seconds[i]}"
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
flavours=${SANDSCOPE_FLAVOURS:-qt5 qt6 asan fuzz}
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

# The integration suites mostly wait on servers and the CLI (about half a core of the two),
# so the next flavour is built meanwhile, at the lowest priority: the suites keep the CPU they
# ask for and the build takes what they leave. Its log is printed when it is waited for; the
# benchmarks never run beside a build.
background_flavour='' background_pid='' background_started=0
start_background_build() {
  background_flavour=$1 background_started=$SECONDS
  mkdir -p build
  export -f build_flavour
  export jobs
  # A session of its own (setsid does not fork here), so that a failure ends the whole build.
  # shellcheck disable=SC2016  # $1 is the inner shell's argument
  setsid nice -n 19 bash -c 'set -e; build_flavour "$1"' build "$1" >"build/$1-build.log" 2>&1 &
  background_pid=$!
  echo "=== $1: configure and build, in the background (build/$1-build.log)"
}
wait_background_build() {
  [ -n "$background_pid" ] || return 0
  local status=0
  wait "$background_pid" || status=$?
  tail -n 5 "build/$background_flavour-build.log"
  phase_names+=("($background_flavour: build, in the background)")
  phase_seconds+=($((SECONDS - background_started)))
  if [ "$status" -ne 0 ]; then
    cat "build/$background_flavour-build.log"
    echo "=== $background_flavour: build failed"
    exit "$status"
  fi
  background_pid=''
}

for i in "${!flavour_list[@]}"; do
  flavour=${flavour_list[i]}
  next=${flavour_list[i + 1]:-}
  if [ "$background_flavour" != "$flavour" ]; then
    phase "$flavour: configure and build"
    build_flavour "$flavour"
  elif [ -n "$background_pid" ]; then
    phase "$flavour: waiting for its build"
    wait_background_build
  fi
  phase "$flavour: test"
  [ -n "$next" ] && start_background_build "$next"
  # The presets build only the integration suites a flavour runs (SANDSCOPE_INTEGRATION_TESTS).
  case $flavour in
    qt6)
      if [ $# -gt 0 ]; then # a selection of the caller's
        ctest --preset "$flavour" -j "$jobs" "$@"
      else # the protocol and terminal suites against the primary version only
        ctest --preset "$flavour" -j "$jobs" -LE integration
        ctest --preset "$flavour" -j "$jobs" -R \
          "^(integration_openterminal_${OPEN_TERMINAL_VERSION}_(single|multi)|integration_(terminal|followchannel)_${OPEN_TERMINAL_VERSION})\$"
      fi
      ;;
    asan)
      # Sanitizers need one pass over the client code: the server-version matrix of the
      # protocol suite, the legacy versions of the per-version suites and the isolation probe
      # (the same client calls again) are left to qt5.
      ctest --preset "$flavour" -j "$jobs" "$@" \
        -E "integration_openterminal_|integration_[a-z]+_${OPEN_TERMINAL_LEGACY_VERSION}|^tst_probe(denials)?\$"
      ;;
    *) ctest --preset "$flavour" -j "$jobs" "$@" ;;
  esac
  if [ "$flavour" = qt5 ]; then
    if [ -n "$background_pid" ]; then
      phase "$next: the rest of its build"
      wait_background_build
    fi
    phase "$flavour: benchmarks"
    echo "(figures, not pass/fail)"
    ./scripts/bench.sh "build/$flavour"
    phase "$flavour: package"
    ./scripts/package.sh "build/$flavour"
  fi
done
echo "=== all flavours passed: $flavours"
