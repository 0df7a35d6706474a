#!/usr/bin/env bash
# Measures concurrent streaming requests to the embedded engine on the tiny
# random model: total tokens/s and the medians of the time to the first
# token and to the end, at 1, 4, 16 and 64 streams, decoded together (64
# slots), with the default 4 slots, and taking turns (one at a time, as
# before the scheduler) — BenchmarkConcurrent in backend/llamacpp.
# With OLD=<commit> the same measure also runs on that commit's engine (its
# sources unpacked by git archive into a temporary directory), after ours.
# Fetches the libraries with .ci/llamalib.sh unless $DRAGOMAN_LLAMA_LIB is set;
# threads from $DRAGOMAN_LLAMA_THREADS (default 1).
# Usage: [OLD=<commit>] scripts/perf-concurrent.sh [go test -bench flags, e.g. -count=3]
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0
export DRAGOMAN_LLAMA_LIB="${DRAGOMAN_LLAMA_LIB:-$(.ci/llamalib.sh | tail -n 1)}"
export DRAGOMAN_LLAMA_THREADS="${DRAGOMAN_LLAMA_THREADS:-1}"
export DRAGOMAN_SHARED="${DRAGOMAN_SHARED:-$(cd .. && pwd)/shared}" # the models, also for the old engine's copy
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD), $(nproc) CPUs, $DRAGOMAN_LLAMA_THREADS thread(s), load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -m1 'model name' /proc/cpuinfo || true
go test ./backend/llamacpp -run '^$' -bench '^BenchmarkConcurrent$' -benchtime 3x "$@"
if [ -n "${OLD:-}" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	git archive "$OLD" | tar -x -C "$dir"
	cp backend/llamacpp/concurrent_bench_test.go "$dir/backend/llamacpp/"
	cat >"$dir/backend/llamacpp/concurrent_old_test.go" <<'GO'
package llamacpp

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// The old engine: requests take turns whatever its slots.
func BenchmarkConcurrent(b *testing.B) {
	threads, _ := strconv.Atoi(os.Getenv("DRAGOMAN_LLAMA_THREADS"))
	e, err := New(Options{LibDir: libDir(b), Models: []string{modelPath(b, "tiny-qwen3-random.gguf")}, ContextSize: 2048, Threads: max(threads, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.byID["tiny-qwen3-random"].noReuse = true
	for _, n := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("streams=%d/old", n), func(b *testing.B) { benchStreams(b, e, n) })
	}
}
GO
	echo "# the engine of $(git rev-parse --short "$OLD")"
	(cd "$dir" && go test ./backend/llamacpp -run '^$' -bench '^BenchmarkConcurrent$' -benchtime 3x "$@")
fi
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
