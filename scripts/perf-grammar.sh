#!/bin/sh
# Runs the grammar package's benchmarks (constraint generation for 1, 20 and 100 BFCL tools, uncached and
# cached; the recogniser on one call) and prints the facts the "## Grammar" section of docs/PERFORMANCE.md
# records: date, commit, Go, load average before and after, and the benchmark lines. The section is
# written by hand from this output.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "Commit: $(git rev-parse --short=12 HEAD)$(git diff --quiet || echo -dirty)"
echo "Go: $(go version | cut -d' ' -f3-)"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
go test ./grammar -run '^$' -bench 'Tools|Match' -benchmem -count "${COUNT:-3}" "$@"
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
