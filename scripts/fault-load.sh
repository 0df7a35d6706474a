#!/bin/sh
# Runs the real dragoman serve (CGO_ENABLED=0, built from HEAD) under 256
# streaming clients for 60 s per mode (own, relay) against a fake Ollama that
# stalls, cuts, floods and sends garbage on purpose; counts the outcomes, hung
# requests, malformed errors, upstream requests not cancelled, goroutines and
# RSS left after the load; rewrites the "## Fault injection" section of
# docs/PERFORMANCE.md. A measurement, not a test: nothing is timed against a
# goal.
# Extra arguments go to scripts/faultload (e.g. -duration 10s -clients 64 for a
# quick run, -modes own, -rev '' to build the work tree, -dump /tmp/gor for the
# goroutine dumps).
# The model's template comes from $DRAGOMAN_SHARED/models/tiny-qwen3-toolcall.gguf,
# or ../shared/models/.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/faultload -out docs/PERFORMANCE.md "$@"
