#!/usr/bin/env bash
# Builds the .deb from a configured build tree (default build/qt5) and proves it:
#   1. desktop-file-validate and appstreamcli validate --no-net on packaging/ (warnings fail);
#   2. cpack -G DEB, then lintian on the package: any error or warning fails;
#   3. dpkg -i, then the installed /usr/bin/sandscope runs --version and a replay without any
#      GUI library, reads a profile's key through /usr/lib/sandscope/sandscope-keyring.so, and
#      opens its window (offscreen) from /usr/lib/sandscope/sandscope-window.so;
#   4. dpkg --purge, and nothing of the package is left behind.
# Steps 3-4 change the system (root or sudo); SANDSCOPE_PACKAGE_INSTALL_TEST=0 skips them.
# Usage: scripts/package.sh [BUILD_DIR]      (scripts/test.sh runs it for the qt5 flavour)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
build=${1:-build/qt5}
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

for tool in cpack lintian desktop-file-validate appstreamcli dpkg-deb dpkg-shlibdeps help2man rsvg-convert; do
  command -v "$tool" >/dev/null || { echo "package: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
[ -f "$build/CMakeCache.txt" ] || { echo "package: $build is not a configured build tree" >&2; exit 1; }

echo "=== package: desktop file and AppStream metadata"
desktop-file-validate packaging/sandscope.desktop
appstreamcli validate --no-net packaging/*.metainfo.xml

echo "=== package: build the .deb from $build"
# Reconfigured so that tools installed since the first configure are found; then the
# executable, the private library and the generated man page, icons and changelog.
cmake -S . -B "$build" >/dev/null
cmake --build "$build" --target sandscope sandscope_package_data
rm -f "$build"/sandscope_*.deb
(cd "$build" && cpack -G DEB)
debs=("$build"/sandscope_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  echo "package: cpack made no single .deb" >&2
  exit 1
fi
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
dpkg-deb -c "$deb" | awk '{print $1, $6, $7, $8}'

echo "=== package: lintian $deb"
lintian --fail-on error,warning "$deb"
echo "package: lintian reports no errors or warnings"

if [ "${SANDSCOPE_PACKAGE_INSTALL_TEST:-1}" = 0 ]; then
  echo "=== package: install test skipped (SANDSCOPE_PACKAGE_INSTALL_TEST=0)"
  exit 0
fi
if dpkg-query -W -f='${Status}' sandscope 2>/dev/null | grep -q 'install ok installed'; then
  echo "package: sandscope is already installed here; remove it (dpkg --purge sandscope) or set" \
       "SANDSCOPE_PACKAGE_INSTALL_TEST=0" >&2
  exit 1
fi

echo "=== package: dpkg -i, run the installed copy, dpkg --purge"
purge() { as_root dpkg --purge sandscope >/dev/null; }
trap purge EXIT
as_root dpkg -i "$deb"
(
  # From outside the source and build trees, so nothing but the installed files can be used.
  cd /
  installed=$(env -u LD_LIBRARY_PATH /usr/bin/sandscope --version)
  echo "$installed"
  [ "$installed" = "sandscope $version" ] \
    || { echo "package: the installed sandscope is not version $version" >&2; exit 1; }
  # Captured first: under pipefail, `ldd | grep -q` fails whenever grep exits before ldd has
  # written its last line (SIGPIPE), which made this check fail at random.
  libs=$(env -u LD_LIBRARY_PATH ldd /usr/bin/sandscope)
  grep -q "libsandscope_core.so.0 => /usr/bin/../lib/sandscope/" <<<"$libs" \
    || { echo "package: /usr/bin/sandscope does not load its private libsandscope_core:" >&2
         grep sandscope <<<"$libs" >&2 || echo "(ldd names no libsandscope_core)" >&2; exit 1; }
  env -u LD_LIBRARY_PATH /usr/bin/sandscope replay "$here/tests/data/stream-basic.jsonl" --summary
  # The command line loads no GUI library; the window's module is installed and all its
  # libraries resolve; `sandscope` alone opens the window (still running after 3 s).
  if grep -E "libQt[0-9](Gui|Widgets)" <<<"$libs" >&2; then
    echo "package: /usr/bin/sandscope links GUI libraries (they belong in sandscope-window.so)" >&2; exit 1
  fi
  # The window's and the keyring's modules are installed and all their libraries resolve; the
  # command line itself loads neither QtKeychain nor D-Bus (the core loads the keyring module,
  # installed beside it, when a key is stored or read).
  for module in sandscope-window.so sandscope-keyring.so; do
    module_libs=$(env -u LD_LIBRARY_PATH ldd "/usr/lib/sandscope/$module")
    if grep "not found" <<<"$module_libs" >&2; then
      echo "package: /usr/lib/sandscope/$module misses libraries" >&2; exit 1
    fi
  done
  if grep -E "keychain|libQt[0-9]DBus" <<<"$libs" >&2; then
    echo "package: /usr/bin/sandscope links the keyring (it belongs in sandscope-keyring.so)" >&2; exit 1
  fi
  # A profile's key is read through the installed keyring module: the installed core loads it
  # from beside itself, and with no D-Bus session bus here the error says so (the module's
  # words), not that the key is missing for no reason.
  keyring_home=$(mktemp -d)
  mkdir -p "$keyring_home/.config/sandscope"
  printf '[profiles]\nkeyless\\url=http://127.0.0.1:9\nkeyless\\defaultUserId=package-test\n' \
    >"$keyring_home/.config/sandscope/profiles.ini"
  keyring_log=$(env -u LD_LIBRARY_PATH -u DBUS_SESSION_BUS_ADDRESS -u SANDSCOPE_API_KEY -u DISPLAY \
    HOME="$keyring_home" XDG_CONFIG_HOME="$keyring_home/.config" XDG_RUNTIME_DIR="$keyring_home" \
    LD_DEBUG=files /usr/bin/sandscope server-info --profile keyless 2>&1 || true)
  rm -rf "$keyring_home"
  grep -q "calling init: /usr/lib/sandscope/sandscope-keyring.so$" <<<"$keyring_log" \
    || { echo "package: the installed core did not load /usr/lib/sandscope/sandscope-keyring.so:" >&2
         grep -E "sandscope:|keyring" <<<"$keyring_log" >&2; exit 1; }
  grep -q 'keyring: no D-Bus session bus to reach the Secret Service or KWallet through' <<<"$keyring_log" \
    || { echo "package: reading a profile's key did not go through the keyring module:" >&2
         grep "sandscope:" <<<"$keyring_log" >&2; exit 1; }
  echo "package: a profile's key is read through the installed sandscope-keyring.so"
  window_home=$(mktemp -d)
  window_status=0
  env -u LD_LIBRARY_PATH HOME="$window_home" XDG_CONFIG_HOME="$window_home" QT_QPA_PLATFORM=offscreen \
    timeout 3 /usr/bin/sandscope || window_status=$?
  rm -rf "$window_home"
  [ "$window_status" -eq 124 ] \
    || { echo "package: the installed sandscope did not keep its window open (exit $window_status)" >&2; exit 1; }
  echo "package: the window opened from the installed sandscope-window.so"
)
trap - EXIT
as_root dpkg --purge sandscope
if dpkg-query -W sandscope >/dev/null 2>&1 || [ -e /usr/bin/sandscope ] || [ -e /usr/lib/sandscope ]; then
  echo "package: dpkg --purge sandscope left files or package state behind" >&2
  exit 1
fi
echo "=== package: $deb passed (lintian clean, installs, runs, purges)"
