#!/usr/bin/env bash
# Installs the real agent-facing clients the end-to-end tests drive
# (e2e/npmclients_test.go) from npm, once, cached by their pinned versions:
# ${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/npm-clients-$KEY/node_modules.
# The directory holding node_modules is the last line printed on stdout:
# DRAGOMAN_NPM_CLIENTS=$(.ci/npmclients.sh | tail -n1).
#
# Versions are pinned to ones that run on the Node.js this machine has (20):
# openai 7 needs Node 22, so the OpenAI client is the last 6.x.
set -euo pipefail

pkgs=(ollama@0.6.4 openai@6.49.0)
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
