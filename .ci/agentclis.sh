#!/usr/bin/env bash
# Installs the coding-agent CLIs the end-to-end tests drive through the real
# binary (e2e/agentclis_test.go) from npm, once, cached by their pinned
# versions: ${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/agent-clis-$KEY, whose
# node_modules/.bin holds codex and claude. That directory is the last line
# printed: DRAGOMAN_AGENT_CLIS=$(.ci/agentclis.sh | tail -n1).
#
# Both packages carry a native binary in a platform package (Codex's is about
# 400 MB unpacked), installed by npm as an optional dependency; neither needs
# Node.js to run (Claude Code's package asks for Node 22 and warns on 20, but
# its binary is native). Install scripts are off, but for Claude Code's own,
# which only puts the platform package's binary in place (no download).
set -euo pipefail

pkgs=(@openai/codex@0.169.0 @anthropic-ai/claude-code@2.1.328)
key=$(printf '%s\n' "${pkgs[@]}" | sha256sum | cut -c1-12)
dir="${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/agent-clis-$key"

if [ -f "$dir/.installed" ]; then
  echo "agentclis.sh: using cached $dir" >&2
  echo "$dir"
  exit 0
fi
command -v npm >/dev/null || { echo "agentclis.sh: npm not found" >&2; exit 1; }
echo "agentclis.sh: installing ${pkgs[*]} into $dir" >&2
rm -rf "$dir"
mkdir -p "$dir"
(cd "$dir" && echo '{"private":true}' > package.json &&
  npm install --no-audit --no-fund --no-package-lock --ignore-scripts "${pkgs[@]}" >&2 &&
  node node_modules/@anthropic-ai/claude-code/install.cjs >&2)
"$dir/node_modules/.bin/codex" --version >&2
"$dir/node_modules/.bin/claude" --version >&2
touch "$dir/.installed"
echo "$dir"
