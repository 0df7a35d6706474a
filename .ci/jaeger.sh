#!/usr/bin/env bash
# Builds a real Jaeger (the v2 binary, cmd/jaeger: an OpenTelemetry
# collector with Jaeger's storage and query service) for the OpenTelemetry
# export test (gateway/otel_jaeger_test.go), cached by version:
# ${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/jaeger-$VERSION/bin/jaeger.
# Skips the build when that binary is already there. The binary's path is the
# last line printed on stdout, so callers can do:
# DRAGOMAN_JAEGER=$(.ci/jaeger.sh | tail -n1).
#
# Jaeger is a Go module served by the Go module proxy, built as a tool of a
# throwaway module in the cache directory (`go get -tool`), so that neither
# its dependencies nor its version ever enter Dragoman's go.mod. Pure Go
# (CGO_ENABLED=0), built without debug information (-ldflags='-s -w') and
# with -trimpath; see docs/OBSERVABILITY.md for how long it takes.
set -euo pipefail

version="${DRAGOMAN_JAEGER_VERSION:-v1.76.0}"
cache="${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/jaeger-$version"
bin="$cache/bin/jaeger"
log="$cache/build.log"

die() { echo "jaeger.sh: $*" >&2; exit 1; }

if [ -x "$bin" ]; then
  echo "jaeger.sh: using cached $bin" >&2
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
# One build at a time per cache directory.
exec 9>"$cache/.lock"
if command -v flock >/dev/null; then flock 9; fi
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

command -v go >/dev/null || die "go not found on PATH"

# A module of its own, outside the repository: Dragoman's go.mod plays no part.
mod="$cache/module"
mkdir -p "$mod"
cd "$mod"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0
[ -f go.mod ] || go mod init dragoman.invalid/jaeger-build >"$log" 2>&1 || { cat "$log" >&2; die "go mod init failed"; }

# Build into a scratch path and move into place, so a failed or interrupted
# build never leaves a binary that looks cached.
tmp="$cache/bin/jaeger.tmp"
mkdir -p "$cache/bin"
rm -f "$tmp"
echo "jaeger.sh: building jaeger $version (log: $log)" >&2
start=$(date +%s)
if ! { go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" &&
       go build -trimpath -ldflags='-s -w' -o "$tmp" github.com/jaegertracing/jaeger/cmd/jaeger; } >>"$log" 2>&1; then
  echo "---- last 40 lines of $log" >&2
  tail -n 40 "$log" >&2
  die "building jaeger $version failed (full log: $log)"
fi
[ -x "$tmp" ] || die "go build succeeded but $tmp is missing"
mv -f "$tmp" "$bin"
echo "jaeger.sh: built $bin in $(( $(date +%s) - start ))s" >&2
echo "$bin"
