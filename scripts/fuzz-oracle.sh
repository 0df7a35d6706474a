#!/usr/bin/env bash
# Differential fuzzing campaign against the reference renderer (Python Jinja2
# set up as transformers' apply_chat_template sets it up).
#
#   scripts/fuzz-oracle.sh [SEED] [N]
#
# Runs TestDifferentialOracle with N cases (default 50000) from SEED (default:
# today's date, so repeated campaigns explore new cases), shrinks the
# mismatches it finds and appends the new ones to
# jinja/testdata/fuzz_regressions.jsonl, which TestOracleCases replays.
# Needs python3 with jinja2, and the shared corpus at ../shared or
# $DRAGOMAN_SHARED. Exits non-zero when there were mismatches.
set -euo pipefail

cd "$(dirname "$0")/.."
seed="${1:-$(date +%Y%m%d)}"
n="${2:-50000}"

echo "differential fuzzing: seed $seed, $n cases"
export DRAGOMAN_FUZZ_SEED="$seed" DRAGOMAN_FUZZ_N="$n" DRAGOMAN_FUZZ_RECORD=1
status=0
go test ./jinja -run '^TestDifferentialOracle$' -count=1 -v -timeout 6h >/tmp/fuzz-oracle.$$.log 2>&1 || status=$?

# The summary: cases per generator, the mismatches and what was recorded.
grep -E 'conv:|tmpl:|warning:|mismatch|recorded|DRAGOMAN_FUZZ|^(ok|FAIL|---)' /tmp/fuzz-oracle.$$.log | cut -c1-400 || true
echo "full log: /tmp/fuzz-oracle.$$.log"
exit "$status"
