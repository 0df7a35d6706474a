#!/usr/bin/env bash
# Builds a real Ollama server for the end-to-end tests (internal/ollamatest),
# cached by version: ${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/ollama-$VERSION/bin/ollama.
# Skips the build when that binary is already there. The binary's path is the
# last line printed on stdout, so callers can do: DRAGOMAN_OLLAMA=$(.ci/ollama.sh | tail -n1).
#
# Ollama is a Go module, but its module zip lacks a few vendored C headers:
# nlohmann/json and stb come from Debian, miniaudio.h from the malgo Go module.
# The build needs cgo (CGO_ENABLED=1 here only) and takes 7-16 minutes on two
# cores (16 with a cold module cache on a busy machine).
set -euo pipefail

version="${DRAGOMAN_OLLAMA_VERSION:-v0.17.4}"
malgo="github.com/gen2brain/malgo@v0.11.24"
cache="${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/ollama-$version"
bin="$cache/bin/ollama"
log="$cache/build.log"

die() { echo "ollama.sh: $*" >&2; exit 1; }

if [ -x "$bin" ]; then
  echo "ollama.sh: using cached $bin" >&2
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
# One build at a time per cache directory.
exec 9>"$cache/.lock"
if command -v flock >/dev/null; then flock 9; fi
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

command -v go >/dev/null || die "go not found on PATH"
command -v gcc >/dev/null && command -v g++ >/dev/null || die "gcc and g++ are needed (cgo build)"

# C/C++ headers from Debian.
pkgs=()
for p in nlohmann-json3-dev libstb-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || pkgs+=("$p")
done
if [ ${#pkgs[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing Debian packages ${pkgs[*]}; install them as root (apt-get install ${pkgs[*]})"
  echo "ollama.sh: installing ${pkgs[*]}" >&2
  if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${pkgs[@]}"; } >"$cache/apt.log" 2>&1; then
    tail -n 30 "$cache/apt.log" >&2
    die "apt-get install ${pkgs[*]} failed (log: $cache/apt.log)"
  fi
fi

# miniaudio.h from the malgo module, exposed as <miniaudio/miniaudio.h>.
cd "$cache"   # outside any module, so the repository's go.mod plays no part
export GOWORK=off GOFLAGS=-mod=mod
malgo_json=$(go mod download -json "$malgo" 2>&1) || { echo "$malgo_json" >&2; die "go mod download $malgo failed"; }
malgo_dir=$(printf '%s\n' "$malgo_json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' | head -n1)
[ -n "$malgo_dir" ] && [ -f "$malgo_dir/miniaudio.h" ] || die "miniaudio.h not found in $malgo (dir: '${malgo_dir}')"
inc="$cache/include"
mkdir -p "$inc/miniaudio"
ln -sf "$malgo_dir/miniaudio.h" "$inc/miniaudio/miniaudio.h"

# Install into a scratch GOBIN and move into place, so a failed or
# interrupted build never leaves a binary that looks cached.
tmpbin="$cache/bin.tmp"
rm -rf "$tmpbin"
mkdir -p "$tmpbin" "$cache/bin"
echo "ollama.sh: building ollama $version (log: $log; 7-16 min on 2 cores)" >&2
start=$(date +%s)
if ! CGO_ENABLED=1 CGO_CPPFLAGS="-I$inc" GOBIN="$tmpbin" \
    go install "github.com/ollama/ollama@$version" >"$log" 2>&1; then
  echo "---- last 40 lines of $log" >&2
  tail -n 40 "$log" >&2
  die "building ollama $version failed (full log: $log)"
fi
[ -x "$tmpbin/ollama" ] || die "go install succeeded but $tmpbin/ollama is missing"
mv -f "$tmpbin/ollama" "$bin"
rmdir "$tmpbin"
echo "ollama.sh: built $bin in $(( $(date +%s) - start ))s" >&2
echo "$bin"
