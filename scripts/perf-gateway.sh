#!/bin/sh
# Measures the gateway (dragoman serve) against a fast fake Ollama: added
# latency beside direct calls and a bare proxy, throughput beside the bare
# proxy at 8, 32 and 256 clients, 256 concurrent streaming
# clients for 60 s, idle RSS of the real binary; rewrites the "## Gateway"
# section of docs/PERFORMANCE.md.
# Extra arguments go to scripts/perfgateway (e.g. -duration 10s for a quick
# run, -clients 64, -n 500 -rounds 3, -gwprofile /tmp/gw.prof; -tduration 1s
# -tclients 8,32 for a shorter throughput phase, -only throughput for that
# phase alone, printed).
# The model's template comes from $DRAGOMAN_SHARED/models/tiny-qwen3-toolcall.gguf,
# or ../shared/models/.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/perfgateway -out docs/PERFORMANCE.md "$@"
