#!/bin/sh
# Times constraint generation (the tools' grammar for 1, 20 and 100 BFCL tools, every family's call
# constraint for 20, uncached and cached; the recogniser on one call) and writes the "## Grammar" section
# of docs/PERFORMANCE.md. About two minutes; arguments go to the program (-count, -benchtime, -out).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
exec go run ./scripts/perfgrammar -out "$root/docs/PERFORMANCE.md" "$@"
