#!/usr/bin/env bash
# Measures the embedded llama.cpp engine on the tiny models: time to first
# token and tokens per second (backend/llamacpp/bench_test.go), one thread.
# Fetches the libraries with .ci/llamalib.sh unless $DRAGOMAN_LLAMA_LIB is set.
# Usage: scripts/perf-embedded.sh [go test -bench flags, e.g. -count=5]
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0
export DRAGOMAN_LLAMA_LIB="${DRAGOMAN_LLAMA_LIB:-$(.ci/llamalib.sh | tail -n 1)}"
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -m1 'model name' /proc/cpuinfo || true
go test ./backend/llamacpp -run '^$' -bench . -benchtime 20x "$@"
