#!/bin/sh
# Compares the format package's streaming parsers with Ollama's own and
# rewrites the "## Parse" section of docs/PERFORMANCE.md. The comparison lives
# in the separate module bench/peers, so the main module never depends on
# Ollama.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/bench/peers"
exec go run ./cmd/perfparse -root "$root" -out "$root/docs/PERFORMANCE.md" "$@"
