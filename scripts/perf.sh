#!/bin/sh
# Times our render of every corpus pair against the Python oracle (in the same
# run) and rewrites the "## Render" section of docs/PERFORMANCE.md.
# Extra arguments go to scripts/perfrender (e.g. -mintime 50ms, -json /tmp/perf.json).
# The corpus is $DRAGOMAN_SHARED/corpus, or ../shared/corpus.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/perfrender -out docs/PERFORMANCE.md "$@"
