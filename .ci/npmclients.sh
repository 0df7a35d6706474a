#!/usr/bin/env bash
# Installs the real agent-facing clients the end-to-end tests drive
# (e2e/npmclients_test.go) from npm, once, cached by their pinned versions:
# ${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/npm-clients-$KEY/node_modules.
# The directory holding node_modules is the last line printed on stdout:
# DRAGOMAN_NPM_CLIENTS=$(.ci/npmclients.sh | tail -n1).
#
# Versions are pinned to ones that run on the Node.js this machine has (20):
# openai 7, ai 6+ and @openai/agents 0.4+ need Node 22, so these are the last
# releases that do not (the AI SDK 5, whose default OpenAI provider speaks the
# Responses API; the Agents SDK 0.3 over openai 6).
set -euo pipefail

pkgs=(ollama@0.6.4 openai@6.49.0 ai@5.0.277 @ai-sdk/openai@2.0.130 @ai-sdk/openai-compatible@1.0.61 zod@3.25.76
      @openai/agents@0.3.9)
key=$(printf '%s\n' "${pkgs[@]}" | sha256sum | cut -c1-12)
dir="${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/npm-clients-$key"

if [ -f "$dir/.installed" ]; then
  echo "npmclients.sh: using cached $dir" >&2
  echo "$dir"
  exit 0
fi
command -v npm >/dev/null || { echo "npmclients.sh: npm not found" >&2; exit 1; }
echo "npmclients.sh: installing ${pkgs[*]} into $dir" >&2
rm -rf "$dir"
mkdir -p "$dir"
(cd "$dir" && echo '{"private":true,"type":"module"}' > package.json &&
  npm install --no-audit --no-fund --no-package-lock --ignore-scripts "${pkgs[@]}" >&2)
touch "$dir/.installed"
echo "$dir"
