#!/usr/bin/env bash
# Installs Debian's chromium for the trace page's browser test
# (e2e/tracepage_test.go), unless a browser is already there. Prints the
# browser's path on its last line.
set -euo pipefail
bin="${DRAGOMAN_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$bin" ]; then
  echo "chromium.sh: installing Debian's chromium" >&2
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >&2
fi
[ -x "$bin" ] || { echo "chromium.sh: no browser at $bin" >&2; exit 1; }
echo "$bin"
