#!/usr/bin/env bash
# Takes the README's screenshots (docs/screenshots/*.png) from the real window, offscreen: a
# real multi-user open-terminal (needs root, like the integration tests) with the recorded
# sessions of tests/data/transcripts; Sessions, a session in a run tab, Files with a preview,
# a Cleanup dry run and a real Isolation probe (tests/screenshots/screenshot_tour.cpp).
#   scripts/screenshots.sh [build-dir]   (default build/qt5)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/qt5}
cmake --build "$build" --target screenshot_tour
QT_QPA_PLATFORM=offscreen "$build/tests/screenshot_tour" "$here/docs/screenshots"
