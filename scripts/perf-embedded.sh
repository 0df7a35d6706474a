#!/usr/bin/env bash
# Measures the embedded llama.cpp engine on the tiny models.
#
# 1. In process: time to first token and tokens per second
#    (backend/llamacpp/bench_test.go), one thread.
# 2. Side by side over HTTP, in one run, with the same GGUF, threads, slots,
#    context and requests (scripts/sidebyside): `dragoman serve -model` and
#    a real llama-server built from source (../shared/runtimes/README.md),
#    whose path is $DRAGOMAN_LLAMA_SERVER; without it this part says so and
#    measures the engine alone. Tokens/s of one stream, time to first token
#    of a long conversation cold and resent with one more turn, throughput
#    at 1, 4, 16 and 64 concurrent streams; the rounds take turns, each
#    server alone while it is measured.
#
# Fetches the libraries with .ci/llamalib.sh unless $DRAGOMAN_LLAMA_LIB is set.
# Usage: scripts/perf-embedded.sh [go test -bench flags, e.g. -count=5]
# Environment: PERF_MODEL (default ../shared/models/tiny-qwen3-random.gguf),
# PERF_THREADS (1), PERF_SLOTS (4), PERF_CTX (2048), PERF_LONG (words in the
# long conversation, 1500), PERF_ROUNDS (rounds taking turns, 5), PERF_SKIP_BENCH=1
# to run the side-by-side part alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0
export DRAGOMAN_LLAMA_LIB="${DRAGOMAN_LLAMA_LIB:-$(.ci/llamalib.sh | tail -n 1)}"
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD)"
grep -m1 'model name' /proc/cpuinfo || true
if [ "${PERF_SKIP_BENCH:-}" != 1 ]; then
	go test ./backend/llamacpp -run '^$' -bench . -benchtime 20x "$@"
fi

shared="${DRAGOMAN_SHARED:-../shared}"
model="${PERF_MODEL:-$shared/models/tiny-qwen3-random.gguf}"
threads="${PERF_THREADS:-1}" slots="${PERF_SLOTS:-4}" ctx="${PERF_CTX:-2048}" long="${PERF_LONG:-1500}"
rounds="${PERF_ROUNDS:-5}"
name="$(basename "$model" .gguf)"
tmp="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
go build -o "$tmp/dragoman" ./cmd/dragoman
go build -o "$tmp/sidebyside" ./scripts/sidebyside

# wait_for URL: until it answers /v1/models (60 s at most).
wait_for() {
	for _ in $(seq 600); do
		curl -fs "$1/v1/models" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "perf-embedded: $1 did not start" >&2
	return 1
}

echo "# side by side: $name, $threads thread(s), $slots slots, context $ctx, long conversation of $long words, $rounds rounds"
# start_engine and start_llama_server start one server and wait for it; the
# caller stops it (stop). llama-server runs as the engine does: the same
# threads for prompts and generation, slots sharing one unified KV cache of
# the same size, prompt caching on (its default), continuous batching (its
# default).
start_engine() {
	"$tmp/dragoman" serve -listen 127.0.0.1:18490 -no-discover -log-format off -model "$model" -threads "$threads" \
		-slots "$slots" -ctx "$ctx" 2>"$tmp/dragoman.log" &
	pids+=($!)
	wait_for http://127.0.0.1:18490
}
start_llama_server() {
	"$DRAGOMAN_LLAMA_SERVER" -m "$model" --host 127.0.0.1 --port 18491 -t "$threads" -tb "$threads" -np "$slots" -kvu \
		-c "$ctx" --no-webui 2>"$tmp/llama-server.log" &
	pids+=($!)
	wait_for http://127.0.0.1:18491
}
stop() {
	kill "${pids[-1]}" 2>/dev/null || true
	wait "${pids[-1]}" 2>/dev/null || true
	unset 'pids[-1]'
}
if [ -z "${DRAGOMAN_LLAMA_SERVER:-}" ]; then
	start_engine
	grep -m1 'loaded in this process' "$tmp/dragoman.log" || true
	"$tmp/sidebyside" -name engine -url http://127.0.0.1:18490 -model "$name" -long "$long" -runs "$rounds"
	echo "# llama-server: not measured, DRAGOMAN_LLAMA_SERVER is unset (build it as ../shared/runtimes/README.md says and set it to the binary)"
	exit 0
fi
"$DRAGOMAN_LLAMA_SERVER" --version 2>&1 | grep -m1 "^version" | sed 's/^/# llama-server /'
# The rounds take turns (engine, llama-server, engine, …), each server alone
# on the machine while it is measured (started for its round and stopped
# after: an idle server beside the other slowed it measurably), each round
# with prompts of its own, so that a machine whose load changes over a
# minute slows both alike; each pair of blocks is one round.
for round in $(seq 0 $((rounds - 1))); do
	echo "# round $((round + 1)) of $rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
	start_engine
	"$tmp/sidebyside" -name engine -url http://127.0.0.1:18490 -model "$name" -long "$long" -runs 1 -first "$round"
	stop
	start_llama_server
	"$tmp/sidebyside" -name llama-server -url http://127.0.0.1:18491 -model "$name" -long "$long" -runs 1 -first "$round"
	stop
done
